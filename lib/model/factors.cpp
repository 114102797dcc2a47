#include "model/factors.hpp"

#include <string>

namespace fa4::model::factors {
namespace {

Factor factor_of(const Reporting& r, double value) {
  return {std::string(r.name), value, std::string(r.meaning), std::string(r.fitted_to)};
}

// The values' texts, in the order of Value; their fitted_to is the model file's source
// (predict_internal.hpp, measured_share) or none.
constexpr Reporting kValues[] = {
    {"gemm_efficiency", "sustained share of the tensor-core peak (large cuBLAS GEMM / datasheet)",
     ""},
    {"copy_efficiency", "sustained share of HBM bandwidth (device copy / datasheet)", ""},
    {"sustained_clock_share",
     "SM clock a long launch settles at, as a share of the boost clock (the launch starts at the "
     "boost clock and decays toward it with kLaunchClockTimeConstantSeconds)",
     ""},
    {"mma_sync_share", "mma.sync rate as a share of wgmma's, measured on this GPU", ""},
    {"overlap", kOverlapMeaning, ""},
    {"read_efficiency",
     "sustained share of HBM bandwidth for a read-only stream (read probe / datasheet; the copy "
     "share where none is measured)",
     ""},
};

}  // namespace

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::counted: return "counted";
    case Kind::published: return "published";
    case Kind::fitted: return "fitted";
    case Kind::by_design: return "by design";
    case Kind::derived: return "derived";
    case Kind::assumption: return "assumption";
  }
  return "";
}

std::span<const Entry> table() { return kTable; }

Factor reported(ReportedId factor, double value) {
  return factor_of(entry(factor.id).reported, value);
}

Factor reported(ReportedId factor) { return reported(factor, entry(factor.id).value); }

Factor reported(Value value_of, double value) { return factor_of(kValues[int(value_of)], value); }

}  // namespace fa4::model::factors
