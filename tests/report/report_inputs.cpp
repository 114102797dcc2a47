#include "report_inputs.hpp"

#include <stdexcept>

#include "hw/loader.hpp"

namespace fa4::report::testing {
namespace {

template <class T>
T value_or_throw(Result<T> result) {
  if (!result) throw std::runtime_error(result.error().message);
  return std::move(result).value();
}

store::ReportRow row(std::string gpu, model::Algorithm algorithm, Pass pass, std::int64_t seqlen,
                     std::int64_t headdim, bool causal, double tflops) {
  store::ReportRow r;
  r.run_id = 7;
  r.prediction_id = 100;
  r.started_at = "2026-01-01T00:00:00Z";
  r.revision = "abc1234";
  r.gpu = std::move(gpu);
  r.algorithm = algorithm;
  r.pass = pass;
  r.shape.seqlen_q = r.shape.seqlen_k = seqlen;
  r.shape.batch = 32768 / seqlen;
  r.shape.headdim = r.shape.headdim_v = headdim;
  r.shape.heads_q = r.shape.heads_kv = 2048 / headdim;
  r.shape.causal = causal;
  r.tflops = tflops;
  r.model_version = std::string(model::kModelVersion);
  return r;
}

}  // namespace

std::vector<hw::Spec> real_specs() {
  return value_or_throw(hw::load_all_specs(FA4_SOURCE_DIR "/models"));
}

std::vector<PublishedFigure> real_published() {
  return value_or_throw(load_published_dir(FA4_SOURCE_DIR "/data/published"));
}

std::vector<store::ReportRow> sample_rows() {
  using model::Algorithm;
  return {
      row("h100-sxm", Algorithm::fa2, Pass::fwd, 1024, 128, false, 301),
      row("h100-sxm", Algorithm::fa2, Pass::fwd, 8192, 128, false, 352),
      row("h100-sxm", Algorithm::fa3, Pass::fwd, 1024, 128, false, 540),
      row("h100-sxm", Algorithm::fa3, Pass::fwd, 8192, 128, false, 661),
      row("b200", Algorithm::fa2, Pass::fwd, 1024, 128, false, 610.4),
      row("b200", Algorithm::fa4, Pass::fwd, 1024, 128, false, 1250.6),
      row("b200", Algorithm::fa4, Pass::fwd, 8192, 128, false, 1580),
      row("b200", Algorithm::fa4, Pass::fwd, 8192, 128, true, 1390),
      row("b200", Algorithm::fa4, Pass::bwd, 8192, 128, false, 1210),
  };
}

ReportInputs golden_inputs() {
  ReportInputs in;
  in.title = "fa4-analyze report (golden test)";
  in.generated_at = "2026-01-01T00:00:00Z";
  in.revision = "abc1234";
  in.command = "fa4-analyze report --out golden-report.md";
  in.gpus = real_specs();
  in.predictions = sample_rows();
  in.published = real_published();
  return in;
}

}  // namespace fa4::report::testing
