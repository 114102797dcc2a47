// fa4-analyze kernels: the kernel registry (name, summary, oldest GPU, whether this machine can
// run it). Without CUDA it says whether the build or the device is missing.
#include <memory>

#include <fmt/format.h>

#include "context.hpp"
#include "user_error.hpp"
#if FA4_HAVE_BENCH
#include "kernels/registry.hpp"
#endif

namespace fa4::app {
namespace {

void list_kernels(bool names_only) {
#if FA4_HAVE_BENCH
  if (names_only) {
    for (const kernels::Kernel* k : kernels::all_kernels()) fmt::print("{}\n", k->name);
    return;
  }
  const auto device = kernels::query_device();
  if (device)
    fmt::print("device: {} (sm_{})\n", device->name, device->sm);
  else
    fmt::print("no CUDA device ({})\n", device.error().message);
  fmt::print("{:<16} {:<7} {:<13} {}\n", "kernel", "min_sm", "runs here", "summary");
  for (const kernels::Kernel* k : kernels::all_kernels()) {
    const std::string here = !device                  ? "no device"
                             : device->sm < k->min_sm ? fmt::format("no (sm_{})", device->sm)
                                                      : "yes";
    fmt::print("{:<16} sm_{:<4} {:<13} {}\n", k->name, k->min_sm, here, k->summary);
  }
#else
  if (names_only) return;  // no kernels in this build: an empty list
  fmt::print("no CUDA build: this fa4-analyze was built without CUDA and has no kernels; "
             "rebuild with -DFA4_CUDA=ON on a machine with the CUDA toolkit\n");
#endif
}

void setup(CLI::App& app, Context&) {
  CLI::App* c = app.add_subcommand(
      "kernels", "List our registered attention kernels and whether this machine can run them");
  auto names_only = std::make_shared<bool>(false);
  c->add_flag("--names", *names_only, "Only the names, one a line (for scripts)");
  c->callback([names_only] { list_kernels(*names_only); });
}

const SubcommandRegistration registration{65, setup};

}  // namespace
}  // namespace fa4::app
