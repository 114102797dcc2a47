#include "report_inputs.hpp"

#include <stdexcept>
#include <tuple>

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

store::MeasurementRow measurement(std::string device, std::string kernel, std::string source,
                                  std::int64_t seqlen, double tflops, std::string status,
                                  std::string reason) {
  store::MeasurementRow m;
  m.id = 500;
  m.run_id = 9;
  m.started_at = "2026-01-02T00:00:00Z";
  m.revision = "abc1234";
  m.device = std::move(device);
  m.kernel = std::move(kernel);
  m.source = std::move(source);
  m.shape.seqlen_q = m.shape.seqlen_k = seqlen;
  m.shape.batch = 32768 / seqlen;
  m.status = store::parse_measurement_status(status).value();
  m.reason = std::move(reason);
  m.tflops = tflops;
  m.median_s = tflops > 0 ? attention_flops(m.shape, m.pass) / (tflops * 1e12) : 0;
  return m;
}

std::vector<hw::Spec> real_specs() {
  return value_or_throw(hw::load_all_specs(FA4_SOURCE_DIR "/models"));
}

std::vector<PublishedFigure> real_published() {
  return value_or_throw(load_published_tree(FA4_SOURCE_DIR "/data/published"));
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

std::vector<store::MeasurementRow> sample_measurements() {
  const std::string h200 = "NVIDIA H200";
  const std::string no_triton = "triton is not installed\n  (pip install triton)";
  auto predicted = [](store::MeasurementRow m, double tflops) {
    m.predicted_tflops = tflops;
    m.predicted_gpu = "h200";
    return m;
  };
  auto bwd = [](store::MeasurementRow m) {
    m.pass = Pass::bwd;
    if (m.tflops > 0) m.median_s = attention_flops(m.shape, m.pass) / (m.tflops * 1e12);
    return m;
  };
  return {
      predicted(measurement(h200, "naive", "ours", 1024, 41.2), 60),
      predicted(measurement(h200, "naive", "ours", 8192, 44.8), 66),
      predicted(measurement(h200, "fa2", "ours", 1024, 318.6), 341),
      predicted(measurement(h200, "fa2", "ours", 8192, 371.4), 392),
      measurement(h200, "sdpa_cudnn", "peer:torch-cudnn", 1024, 455.1),
      measurement(h200, "sdpa_cudnn", "peer:torch-cudnn", 8192, 612.9),
      measurement(h200, "sdpa_flash", "peer:torch-flash", 1024, 472.3),
      measurement(h200, "sdpa_flash", "peer:torch-flash", 8192, 560.2),
      measurement(h200, "triton_fa", "peer:triton", 1024, 0, "skipped", no_triton),
      measurement(h200, "triton_fa", "peer:triton", 8192, 0, "skipped", no_triton),
      measurement(h200, "sdpa_math", "peer:torch-math", 1024, 96.5),
      measurement(h200, "sdpa_math", "peer:torch-math", 8192, 0, "failed",
                  "CUDA out of memory. Tried to allocate 16.00 GiB"),
      bwd(predicted(measurement(h200, "fa2_bwd", "ours", 1024, 210.4), 262)),
      bwd(predicted(measurement(h200, "fa2_bwd", "ours", 8192, 241.7), 280)),
      bwd(predicted(measurement(h200, "fa3_bwd", "ours", 8192, 402.5), 470)),
      bwd(measurement(h200, "sdpa_cudnn", "peer:torch-cudnn", 1024, 351.0)),
      bwd(measurement(h200, "sdpa_cudnn", "peer:torch-cudnn", 8192, 428.3)),
  };
}

ReportInputs golden_inputs() {
  ReportInputs in;
  in.title = "fa4-analyze report (golden test)";
  in.generated_at = "2026-01-01T00:00:00Z";
  in.revision = "abc1234";
  in.command = "fa4-analyze report --out golden-report.md";
  in.gpus = real_specs();
  in.predictions = digest_predictions(read_from(sample_rows()), in.gpus).value();
  in.measurements = sample_measurements();
  // The ladder's upper rungs and an ablation, and the GEMM ceiling they are set against.
  for (auto [kernel, s, tflops] :
       {std::tuple{"fa3", 1024, 540.0}, {"fa3", 8192, 655.0}, {"fa3_no_pingpong", 8192, 590.0}})
    in.measurements.push_back(measurement("NVIDIA H200", kernel, "ours", s, tflops));
  store::CeilingRow gemm;  // measured in the run of the measurements
  gemm.run_id = 9;
  gemm.started_at = "2026-01-02T00:00:00Z";
  gemm.ceiling.device = "NVIDIA H200";
  gemm.ceiling.unit = "gemm_bf16";
  gemm.ceiling.value = 800;
  gemm.ceiling.value_unit = "TFLOP/s";
  in.ceilings = {gemm};
  in.published = real_published();
  in.measured_origins = {
      "NVIDIA H200: 20 measurements in 1 run of 2026-01-02, revision abc1234, from `golden.db`"};
  in.chart_folder = "golden-report";
  return in;
}

}  // namespace fa4::report::testing
