#include "peer_runner.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/count_noun.hpp"
#include "hw/loader.hpp"
#include "open_store.hpp"
#include "orchestration/peer_rounds.hpp"
#include "run_info.hpp"
#include "store/peer_records.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

const fs::path kRunner = fs::path(FA4_SOURCE_TREE) / "scripts" / "peers" / "torch_peers.py";

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command`; returns its exit code and (when `capture`) its output.
int shell(const std::string& command, std::string* capture = nullptr) {
  if (!capture) {
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return 127;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) *capture += buffer;
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

nlohmann::json sweep_of(const std::vector<AttnShape>& shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (const AttnShape& s : shapes) list.push_back(orchestration::peer_shape_json(s));
  return {{"name", "bench-peers"},
          {"description", "the shapes of one 'fa4-analyze bench --peers' run"},
          {"shapes", list}};
}

}  // namespace

const fs::path& peer_runner_path() { return kRunner; }

Result<std::vector<PeerName>> list_peers(const PeerRunOptions& o) {
  std::string out;
  const int code =
      shell(fmt::format("{} {} --list-peers", quoted(o.python), quoted(kRunner.string())), &out);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (code != 0) return Error{out.empty() ? fmt::format("{} exited with {}", o.python, code) : out};
  std::vector<PeerName> peers;
  std::size_t at = 0;
  while (at <= out.size()) {
    const std::size_t end = std::min(out.find('\n', at), out.size());
    const std::string line = out.substr(at, end - at);
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || space == 0)
      return Error{
          fmt::format("{} --list-peers printed '{}', not 'NAME SOURCE'", kRunner.string(), line)};
    peers.push_back({line.substr(0, space), line.substr(space + 1)});
    at = end + 1;
  }
  return peers;
}

std::string peers_unavailable(const PeerRunOptions& o) {
  std::string out;
  const int code =
      shell(fmt::format("{} {} --check-environment", quoted(o.python), quoted(kRunner.string())),
            &out);
  if (code == 0) return "";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.empty() ? fmt::format("{} exited with {}", o.python, code) : out;
}

void run_and_import_peers(const Context& ctx, const std::vector<AttnShape>& benched,
                          const PeerRunOptions& o) {
  // SDPA takes no paged cache, ragged key lengths or split count: the peers would time the plain
  // shape under the serving shape's name, so those shapes are left to our kernels.
  std::vector<AttnShape> shapes;
  std::size_t serving = 0;
  for (const AttnShape& s : benched)
    if (serving_fields(s) == ServingFields{})
      shapes.push_back(s);
    else
      ++serving;
  if (serving > 0)
    fmt::print(
        "peers: {} left out: SDPA takes no paged KV cache, ragged key lengths or split "
        "count\n",
        count_noun(static_cast<long long>(serving), "paged, ragged or split shape"));
  if (shapes.empty()) return;
  const std::string stamp = fmt::format(
      "{:%Y%m%dT%H%M%S}", std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  const fs::path results = ctx.db_path + ".peers-" + stamp + ".jsonl";
  const fs::path sweep = ctx.db_path + ".peers-" + stamp + ".sweep.json";
  take(write_file_atomically(sweep, sweep_of(shapes).dump(1) + "\n"));  // a full disk says so
  const int code = shell(fmt::format("{} {} --sweep {} --pass {} --out {} --revision {}",
                                     quoted(o.python), quoted(kRunner.string()),
                                     quoted(sweep.string()), o.passes, quoted(results.string()),
                                     quoted(source_revision())));
  fs::remove(sweep);
  if (fs::exists(results) && fs::file_size(results) > 0) {
    std::ifstream in(results);
    const auto specs = take(hw::load_all_specs(ctx.models_dir));
    const auto runs =
        take(store::parse_peer_records(in, results.string(), ctx.command_line, specs));
    auto db = open_store(ctx);
    const store::ImportCounts counts = take(db.import_runs(runs));
    fmt::print("peers: {} recorded from {}\n", count_noun(counts.added, "measurement"),
               results.string());
  }
  if (code != 0)
    throw UserError(fmt::format("the peer runner ({}) exited with {}; what it finished is "
                                "recorded; its output above says why",
                                kRunner.string(), code));
}

}  // namespace fa4::app
