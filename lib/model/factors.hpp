// Every number in the model that is not a hardware rate, each written once, in factors.def: its
// value, kind, what it is, and how a prediction reports it (name, meaning, what it was fitted
// to). Of that one list this header makes the constants the model computes with (kName), their
// ids (Id::kName) and the table the report lists; predict() reports the ones it used in
// Prediction::factors through reported().
#pragma once

#include <span>
#include <string_view>

#include "model/model.hpp"

namespace fa4::model::factors {

enum class Kind { counted, published, fitted, by_design, derived, assumption };
std::string_view to_string(Kind kind);

// How a prediction reports a factor: its name there, its meaning and what it was fitted to ("" when
// derived, not fitted). A factor no prediction reports has no meaning; its name may still say
// which prediction field shows it.
struct Reporting {
  std::string_view name;
  std::string_view meaning;
  std::string_view fitted_to;
};

// What the rows of factors.def share.
inline constexpr std::string_view kOurFa3Sweep = "our fa3 on H200, fa3-paper sweep (36 shapes)";
inline constexpr std::string_view kOurNaiveSweep =
    "our naive kernel on H200, fa3-paper sweep (36 shapes)";
// Named by the notes, not by its database's path: the published Hopper backward reports one of
// these factors in reports that show no reference runs.
inline constexpr std::string_view kOurBwdRun =
    "our backward kernels on H200, FA3-paper sweep of 2026-11-23 (lib/model/NOTES_BWD_FIT.md)";
inline constexpr std::string_view kOurFa2BwdRun =
    "our fa2_bwd on H200, FA3-paper sweep of 2026-11-27 (lib/model/NOTES_BWD_FIT.md)";
inline constexpr std::string_view kRecordForwardFit =
    "the published record's \"fit\" bf16 forward figures on Blackwell (cuDNN and FA4)";
inline constexpr std::string_view kRecordHopperBackwardFit =
    "the published record's \"fit\" bf16 backward figures on Hopper (cuDNN 9.19 on H200)";
inline constexpr std::string_view kRecordFa4WindowBackwardFit =
    "the published record's \"fit\" bf16 backward figures of FA4 under a window of 128 keys "
    "(GB200, GB300)";
inline constexpr std::string_view kOverlapMeaning =
    "share of the smaller of the tensor and softmax streams hidden behind the larger";
// FA2's backward re-read factor: one of three constants by head dim and tile
// (predict_internal.hpp, fa2_backward_rereads).
inline constexpr Reporting kFa2BackwardRereadsReported = {
    "fa2_backward_rereads", "times FA2's backward warp grids read each shared operand byte", ""};

#define REPORTED(name, meaning, fitted_to) (Reporting{name, meaning, fitted_to})
#define FIELD(name) (Reporting{name " (a prediction field)", "", ""})
#define NOT_REPORTED (Reporting{})

// The constants.
#define FA4_FACTOR(constant, value, ...) inline constexpr double constant = value;
#include "model/factors.def"
#undef FA4_FACTOR

// Their ids, in the table's order.
enum class Id {
#define FA4_FACTOR(constant, ...) constant,
#include "model/factors.def"
#undef FA4_FACTOR
};

struct Entry {
  std::string_view constant;  // as written: "kHopperPingPongHiddenShare"
  double value;
  Kind kind;
  std::string_view what;
  Reporting reported;
};

inline constexpr Entry kTable[] = {
#define FA4_FACTOR(constant, value, kind, what, reporting) \
  {#constant, constant, Kind::kind, what, reporting},
#include "model/factors.def"
#undef FA4_FACTOR
};

#undef REPORTED
#undef FIELD
#undef NOT_REPORTED

constexpr const Entry& entry(Id factor) { return kTable[int(factor)]; }
std::span<const Entry> table();

// A factor its row reports (a meaning), checked when compiled: reported(Id::kNaiveStreamingShare).
struct ReportedId {
  Id id;
  consteval ReportedId(Id factor) : id(factor) {
    if (entry(factor).reported.meaning.empty()) throw "factors.def reports no such factor";
  }
};

// The factor's record with the value a prediction used (its table value when not given).
Factor reported(ReportedId factor, double value);
Factor reported(ReportedId factor);

// What a prediction reports that is no constant of the model: the hardware model's measured
// shares (their source is the model file's) and the overlap of an algorithm on a GPU no fitted
// share of its own stands for (algorithm_traits.hpp, overlap).
enum class Value {
  gemm_efficiency,
  copy_efficiency,
  sustained_clock_share,
  mma_sync_share,
  overlap,
  read_efficiency
};
Factor reported(Value value_of, double value);

}  // namespace fa4::model::factors
