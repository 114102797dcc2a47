// kernel_timing: times registered kernels for iterating on them, with lib/bench's check and timer
// (the same as `fa4-analyze bench`): check the output against the CPU oracle on sampled rows (a
// failing kernel is not timed), then warm up, then N samples, each after an L2 flush, timed with
// CUDA events around the launch alone; print median, min and max. The
// same run measures three ceilings: back-to-back bf16 mma.sync (fa2's compute unit; the
// mma_sync_bf16 probe of lib/bench/ceiling_probes.hpp), a cuBLAS bf16 8192^3 GEMM (wgmma) and a
// device-to-device copy. --csv appends rows to FILE. --rounds R times every shape R times over,
// the kernels taking turns (A B A B ...), one row per round: an A/B comparison whose rounds see
// the same clocks and temperatures, so the spread between rounds shows what a difference is worth.
// --pass bwd times the backward kernels instead (lib/bench/attention_bwd_run.hpp: the --forward
// kernel runs once, untimed, for O and LSE; the timed launch holds every kernel of the backward:
// preprocessing, main kernel, dQ conversion), with backward FLOPs (2.5 x forward).
//
// Shapes follow the FA papers: `--tokens` total (batch = tokens / seqlen), heads = hidden /
// headdim, kv heads = heads / --group (GQA). FLOPs = 4 * b * h * s^2 * d, halved when causal
// (core/shape.hpp).
//
//   kernel_timing [--kernels fa2,naive] [--headdim 128] [--seqlens 4096,8192,16384]
//                 [--causal both|0|1] [--dtype bf16|fp16] [--tokens 16384] [--hidden 2048]
//                 [--samples 30] [--warmup 5] [--rounds 1] [--csv FILE] [--no-ceilings]
//                 [--pass fwd|bwd] [--forward fa2] [--group 1]
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/attention_bwd_run.hpp"
#include "bench/attention_run.hpp"
#include "bench/ceiling_probes.hpp"
#include "bench/sm_clock.hpp"
#include "bench/timer.hpp"
#include "kernels/cuda_status.hpp"
#include "kernels/registry.hpp"
#include "reference/attention.hpp"
#include "reference/half_float.hpp"

namespace fa4::bench {
namespace {

constexpr int kGemmCeilingSize = 8192;
constexpr std::size_t kCopyCeilingBytes = std::size_t{2} << 30;

struct Options {
  std::vector<std::string> kernels;
  std::int64_t headdim = 128;
  std::vector<std::int64_t> seqlens{4096, 8192, 16384};
  std::vector<bool> causal{false, true};
  Dtype dtype = Dtype::bf16;
  std::int64_t tokens = 16384;
  std::int64_t hidden = 2048;
  std::int64_t group = 1;  // query heads per kv head
  int samples = 30;
  int warmup = 5;
  int rounds = 1;
  std::string csv;
  bool ceilings = true;
  Pass pass = Pass::fwd;
  std::string forward = "fa2";  // makes O and LSE for --pass bwd
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

Result<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-ceilings") {
      o.ceilings = false;
      continue;
    }
    if (i + 1 >= argc) return Error{"option " + flag + " needs a value"};
    const std::string value = argv[++i];
    try {
      if (flag == "--kernels")
        o.kernels = split(value);
      else if (flag == "--headdim")
        o.headdim = std::stoll(value);
      else if (flag == "--seqlens") {
        o.seqlens.clear();
        for (const std::string& s : split(value)) o.seqlens.push_back(std::stoll(s));
      } else if (flag == "--causal") {
        if (value == "both")
          o.causal = {false, true};
        else if (value == "0" || value == "1")
          o.causal = {value == "1"};
        else
          return Error{"--causal takes both, 0 or 1, not " + value};
      } else if (flag == "--dtype") {
        Result<Dtype> dtype = parse_dtype(value);
        if (!dtype) return dtype.error();
        o.dtype = *dtype;
      } else if (flag == "--tokens")
        o.tokens = std::stoll(value);
      else if (flag == "--hidden")
        o.hidden = std::stoll(value);
      else if (flag == "--group")
        o.group = std::stoll(value);
      else if (flag == "--samples")
        o.samples = std::stoi(value);
      else if (flag == "--warmup")
        o.warmup = std::stoi(value);
      else if (flag == "--rounds")
        o.rounds = std::stoi(value);
      else if (flag == "--csv")
        o.csv = value;
      else if (flag == "--pass") {
        Result<Pass> pass = parse_pass(value);
        if (!pass) return pass.error();
        o.pass = *pass;
      } else if (flag == "--forward")
        o.forward = value;
      else
        return Error{"unknown option " + flag + "; see the usage at the top of kernel_timing.cpp"};
    } catch (const std::exception&) {
      return Error{"option " + flag + " needs a number, not '" + value + "'"};
    }
  }
  if (o.samples < 1) return Error{"--samples must be at least 1"};
  if (o.rounds < 1) return Error{"--rounds must be at least 1"};
  return o;
}

Status print_ceilings(const bench::Timer& timer, const Options& o, std::ostream& csv) {
  Result<CeilingResult> mma =
      measure_ceiling(CeilingUnit::mma_sync_bf16, o.samples, current_sm_clock_mhz);
  if (!mma) return mma.error();
  std::printf("ceiling  mma_sync_bf16_m16n8k16  median %.3f ms  %.0f %s  (%.0f FLOP/clk/SM at %.0f "
              "MHz)\n",
              mma->median_s * 1e3, mma->value, mma->value_unit.c_str(), mma->per_sm_per_clk,
              mma->sm_clock_mhz);
  csv << "ceiling,mma_sync_bf16_m16n8k16,,," << mma->median_s * 1e3 << ",,," << mma->value
      << ",\n";

  // bf16 GEMM on random data (never zeros: zeros run faster than real data).
  const std::size_t n = kGemmCeilingSize;
  std::vector<std::uint16_t> matrix(n * n);
  std::minstd_rand rng(1234);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::uint16_t& x : matrix) x = reference::float_to_bf16_bits(uniform(rng));
  Result<DeviceBuffer> a = DeviceBuffer::allocate(n * n * sizeof(std::uint16_t));
  if (!a) return a.error();
  Result<DeviceBuffer> b = DeviceBuffer::allocate(n * n * sizeof(std::uint16_t));
  if (!b) return b.error();
  Result<DeviceBuffer> c = DeviceBuffer::allocate(n * n * sizeof(std::uint16_t));
  if (!c) return c.error();
  for (const DeviceBuffer* operand : {&*a, &*b})
    if (Status s = kernels::cuda_status(
            cudaMemcpy(operand->get(), matrix.data(), operand->size(), cudaMemcpyHostToDevice),
            "uploading GEMM operands");
        !s)
      return s;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return Error{"cannot create a cuBLAS handle"};
  const float one = 1.0f, zero = 0.0f;
  auto gemm = [&]() -> Status {
    const cublasStatus_t s =
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, a->get(),
                     CUDA_R_16BF, int(n), b->get(), CUDA_R_16BF, int(n), &zero, c->get(),
                     CUDA_R_16BF, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
      return Error{std::string("cuBLAS GEMM: ") + cublasGetStatusString(s)};
    return Ok{};
  };
  Result<TimingStats> gemm_time = timer.time(gemm);
  cublasDestroy(handle);
  if (!gemm_time) return gemm_time.error();
  const double gemm_tflops =
      2.0 * double(n) * double(n) * double(n) / (gemm_time->median_s) / 1e12;
  std::printf("ceiling  cublas_bf16_gemm_8192^3  median %.3f ms  %.0f TFLOP/s\n",
              gemm_time->median_s * 1e3, gemm_tflops);
  csv << "ceiling,cublas_bf16_gemm_8192,,," << gemm_time->median_s * 1e3 << "," << gemm_time->min_s * 1e3 << ","
      << gemm_time->max_s * 1e3 << "," << gemm_tflops << ",\n";

  Result<DeviceBuffer> source = DeviceBuffer::allocate(kCopyCeilingBytes);
  if (!source) return source.error();
  Result<DeviceBuffer> target = DeviceBuffer::allocate(kCopyCeilingBytes);
  if (!target) return target.error();
  if (Status s = kernels::cuda_status(cudaMemset(source->get(), 0x3c, kCopyCeilingBytes),
                                      "filling the copy source");
      !s)
    return s;
  auto copy = [&]() {
    return kernels::cuda_status(
        cudaMemcpyAsync(target->get(), source->get(), kCopyCeilingBytes, cudaMemcpyDeviceToDevice),
        "device copy");
  };
  Result<TimingStats> copy_time = timer.time(copy);
  if (!copy_time) return copy_time.error();
  const double tb_per_s = 2.0 * double(kCopyCeilingBytes) / (copy_time->median_s) / 1e12;
  std::printf("ceiling  device_copy_2GiB (read+write)  median %.3f ms  %.2f TB/s\n",
              copy_time->median_s * 1e3, tb_per_s);
  csv << "ceiling,device_copy_2GiB,,," << copy_time->median_s * 1e3 << "," << copy_time->min_s * 1e3 << ","
      << copy_time->max_s * 1e3 << ",," << tb_per_s << "\n";
  return Ok{};
}

Status run(const Options& o) {
  Result<kernels::DeviceCaps> device = kernels::query_device();
  if (!device) return device.error();
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("device %s (sm_%d, %d SMs, %.1f GiB, L2 %.0f MiB), driver API %d\n",
              device->name.c_str(), device->sm, device->multiprocessors,
              double(device->global_memory_bytes) / (1 << 30), double(device->l2_bytes) / (1 << 20),
              driver);
  std::ostringstream csv;

  Result<bench::Timer> timer = bench::Timer::create(
      device->l2_bytes, {.warmup = o.warmup, .min_samples = o.samples, .max_samples = o.samples});
  if (!timer) return timer.error();
  if (o.ceilings)
    if (Status s = print_ceilings(*timer, o, csv); !s) return s;

  std::vector<const kernels::Kernel*> selected;
  for (const kernels::Kernel* k : kernels::kernels_for(o.pass))
    if (o.kernels.empty() ||
        std::find(o.kernels.begin(), o.kernels.end(), std::string(k->name)) != o.kernels.end())
      selected.push_back(k);
  if (selected.empty())
    return Error{"no registered " + std::string(to_string(o.pass)) +
                 " kernel matches --kernels; 'fa4-analyze kernels' lists them"};
  const kernels::Kernel* forward = kernels::find_kernel(o.forward);
  if (!forward || forward->pass != Pass::fwd)
    return Error{"--forward " + o.forward + " is not a registered forward kernel"};

  const std::uint64_t seed = std::random_device{}();
  std::printf("inputs: normal(0, 1) rounded to %s, seed %llu (fresh per shape)\n",
              std::string(to_string(o.dtype)).c_str(), static_cast<unsigned long long>(seed));
  std::printf("%-22s %-34s %10s %10s %10s %9s  %s\n", "kernel", "shape", "median_ms", "min_ms",
              "max_ms", "TFLOP/s", "check");
  for (std::int64_t seqlen : o.seqlens)
    if (seqlen <= 0 || o.tokens % seqlen != 0 || o.hidden % o.headdim != 0 || o.group < 1 ||
        (o.hidden / o.headdim) % o.group != 0)
      return Error{
          "--tokens must be a multiple of each seqlen, --hidden of --headdim, and the heads "
          "(hidden / headdim) of --group"};
  for (std::int64_t seqlen : o.seqlens)
    for (bool causal : o.causal)
      for (int round = 0; round < o.rounds; ++round)
        for (const kernels::Kernel* kernel : selected) {
          const AttnShape shape{.batch = o.tokens / seqlen,
                                .heads_q = o.hidden / o.headdim,
                                .heads_kv = o.hidden / o.headdim / o.group,
                                .seqlen_q = seqlen,
                                .seqlen_k = seqlen,
                                .headdim = o.headdim,
                                .headdim_v = o.headdim,
                                .causal = causal,
                                .dtype = o.dtype};
          const std::string name = describe(shape);
          const std::string kernel_name(kernel->name);
          const std::uint64_t shape_seed = seed + std::uint64_t(seqlen);
          Result<bench::AttentionRun> r =
              o.pass == Pass::fwd
                  ? bench::run_attention(*kernel, shape, *device, *timer, shape_seed)
                  : bench::run_attention_backward(*kernel, *forward, shape, *device, *timer,
                                                  shape_seed);
          if (!r) return r.error();
          if (r->outcome == bench::Outcome::skipped) {
            std::printf("%-22s %-34s skipped: %s\n", kernel_name.c_str(), name.c_str(),
                        r->reason.c_str());
            continue;
          }
          if (r->outcome == bench::Outcome::failed) {
            std::printf("%-22s %-34s not timed: %s\n", kernel_name.c_str(), name.c_str(),
                        r->reason.c_str());
            csv << kernel_name << "," << name << "," << causal << "," << seqlen
                << ",,,,,check failed\n";
            continue;
          }
          const TimingStats& t = *r->timing;
          std::printf("%-22s %-34s %10.3f %10.3f %10.3f %9.1f  %s\n", kernel_name.c_str(),
                      name.c_str(), t.median_s * 1e3, t.min_s * 1e3, t.max_s * 1e3, r->tflops,
                      r->reason.c_str());
          const SampleFlag flag = sample_flag(t);
          if (flag == SampleFlag::drifted)
            std::printf("  warning: samples drifted %+.1f%% from the first quarter to the last\n",
                        100 * sample_drift(t.samples_s));
          else if (flag == SampleFlag::spread)
            std::printf("  warning: samples spread, IQR %.1f%% of the median\n",
                        100 * t.relative_iqr());
          csv << kernel_name << "," << name << "," << causal << "," << seqlen << ","
              << t.median_s * 1e3 << "," << t.min_s * 1e3 << "," << t.max_s * 1e3 << ","
              << r->tflops << ",ok\n";
        }
  if (!o.csv.empty()) {
    const bool fresh = !std::ifstream(o.csv).good();
    std::ofstream csv_file(o.csv, std::ios::app);
    if (!csv_file)
      return Error{"cannot write " + o.csv + ": check the folder exists and is writable"};
    if (fresh)
      csv_file << "kernel,shape,causal,seqlen,median_ms,min_ms,max_ms,tflops,tb_per_s_or_check\n";
    csv_file << csv.str();
  }
  return Ok{};
}

}  // namespace
}  // namespace fa4::bench

int main(int argc, char** argv) {
  const fa4::Result<fa4::bench::Options> options = fa4::bench::parse(argc, argv);
  const fa4::Status status = options ? fa4::bench::run(*options) : fa4::Status(options.error());
  if (!status) {
    std::fprintf(stderr, "error: %s\n", status.error().message.c_str());
    return 1;
  }
  return 0;
}
