#include "run_info.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <memory>

namespace fa4::app {

std::string source_revision() {
  const std::string command =
      "git -C '" FA4_SOURCE_TREE "' describe --always --dirty 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "unknown";
  std::array<char, 128> buffer{};
  std::string out;
  while (fgets(buffer.data(), int(buffer.size()), pipe.get())) out += buffer.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

namespace {

std::string host_name() {
  std::array<char, 256> name{};
  return gethostname(name.data(), name.size() - 1) == 0 ? std::string(name.data()) : "unknown";
}

}  // namespace

store::RunInfo current_run_info(store::RunKind kind, const Context& ctx, std::string device) {
  store::RunInfo info;
  info.kind = kind;
  info.revision = source_revision();
  info.host = host_name();
  info.command_line = ctx.command_line;
  info.device = std::move(device);
  return info;
}

}  // namespace fa4::app
