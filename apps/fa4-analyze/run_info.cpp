#include "run_info.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>
#include <utility>

#include "build_revision.hpp"
#if FA4_HAVE_BENCH
#include "bench/sm_clock.hpp"
#endif

namespace fa4::app {
namespace {

std::optional<std::string> checkout_revision() {
  const std::string command =
      "git -C '" FA4_SOURCE_TREE "' describe --always --dirty 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return std::nullopt;
  std::array<char, 128> buffer{};
  std::string out;
  while (fgets(buffer.data(), int(buffer.size()), pipe.get())) out += buffer.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return std::nullopt;
  return out;
}

std::string host_name() {
  std::array<char, 256> name{};
  return gethostname(name.data(), name.size() - 1) == 0 ? std::string(name.data()) : "unknown";
}

}  // namespace

std::string source_revision() { return FA4_BUILD_REVISION; }

std::optional<std::string> revision_mismatch_note() {
  const std::optional<std::string> checkout = checkout_revision();
  if (!checkout || *checkout == source_revision()) return std::nullopt;
  return "note: this binary was built from revision " + source_revision() + "; the checkout " +
         FA4_SOURCE_TREE + " is now at " + *checkout +
         ": rebuild to run (and record) that revision";
}

store::RunInfo current_run_info(store::RunKind kind, const Context& ctx, std::string device) {
  store::RunInfo info;
  info.kind = kind;
  info.revision = source_revision();
  info.host = host_name();
  info.command_line = ctx.command_line;
  info.device = std::move(device);
  return info;
}

#if FA4_HAVE_BENCH
store::RunInfo gpu_run_info(store::RunKind kind, const Context& ctx, std::string device) {
  store::RunInfo info = current_run_info(kind, ctx, std::move(device));
  info.driver = bench::driver_version();
  info.cuda_version = bench::cuda_versions();
  return info;
}
#endif

}  // namespace fa4::app
