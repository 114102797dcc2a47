#include "orchestration/peer_rounds.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ;

namespace fa4::orchestration {
namespace {

std::string errno_text() { return std::strerror(errno); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

nlohmann::json peer_shape_json(const AttnShape& s) {
  return {{"batch", s.batch},
          {"heads", s.heads_q},
          {"heads_kv", s.heads_kv},
          {"seqlen_q", s.seqlen_q},
          {"seqlen_k", s.seqlen_k},
          {"headdim", s.headdim},
          {"headdim_v", s.headdim_v},
          {"causal", s.causal},
          {"dtype", std::string(to_string(s.dtype))}};
}

Result<std::unique_ptr<PeerRounds>> PeerRounds::start(const std::string& python,
                                                      const std::filesystem::path& runner_path,
                                                      const std::string& peer, Pass pass) {
  // A runner that dies must not take fa4-analyze with it: a write to its pipe then fails instead.
  std::signal(SIGPIPE, SIG_IGN);
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) return Error{"cannot make a pipe: " + errno_text()};
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return Error{"cannot make a pipe: " + errno_text()};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  const std::string runner = runner_path.string();
  const std::string pass_text(to_string(pass));
  std::vector<std::string> args = {python, runner, "--serve", "--peers", peer, "--pass", pass_text};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (spawned != 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    return Error{fmt::format("cannot start {} {}: {}", python, runner, std::strerror(spawned))};
  }
  std::unique_ptr<PeerRounds> rounds(new PeerRounds(peer, pid, to_child[1], from_child[0]));
  auto ready = rounds->read_reply();
  if (!ready) return ready.error();
  if (!ready->value("ready", false) || !ready->contains("source"))
    return Error{
        fmt::format("{} --serve began with {}, not its ready line", runner, ready->dump())};
  rounds->source_ = ready->value("source", "");
  rounds->device_ = ready->value("device", "");
  return rounds;
}

PeerRounds::~PeerRounds() {
  if (to_child_ >= 0) {
    const std::string quit = "{\"op\": \"quit\"}\n";
    const ssize_t ignored = ::write(to_child_, quit.data(), quit.size());
    (void)ignored;
  }
  close_fd(to_child_);
  close_fd(from_child_);
  if (!reaped_ && pid_ > 0)
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
}

std::string PeerRounds::ended() {
  if (!reaped_ && pid_ > 0) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  const std::string how = WIFEXITED(status_) ? fmt::format("exit status {}", WEXITSTATUS(status_))
                                             : fmt::format("signal {}", WTERMSIG(status_));
  return fmt::format(
      "the peer runner (torch_peers.py --serve --peers {}) ended ({}); its messages above say why",
      peer_, how);
}

Result<nlohmann::json> PeerRounds::read_reply() {
  for (;;) {
    if (const std::size_t newline = buffer_.find('\n'); newline != std::string::npos) {
      const std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      nlohmann::json reply = nlohmann::json::parse(line, nullptr, false);
      if (reply.is_discarded() || !reply.is_object())
        return Error{
            fmt::format("the peer runner for {} replied '{}', not a JSON object", peer_, line)};
      if (reply.contains("error"))
        return Error{fmt::format("the peer runner for {}: {}", peer_,
                                 reply["error"].is_string() ? reply["error"].get<std::string>()
                                                            : reply["error"].dump())};
      return reply;
    }
    char chunk[4096];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{ended()};
    buffer_.append(chunk, std::size_t(n));
  }
}

Result<nlohmann::json> PeerRounds::exchange(const nlohmann::json& request) {
  const std::string line = request.dump() + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(to_child_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{ended()};
    written += std::size_t(n);
  }
  return read_reply();
}

Result<PeerRounds::Check> PeerRounds::prepare(const AttnShape& shape, std::uint64_t seed) {
  auto reply = exchange({{"op", "prepare"}, {"shape", peer_shape_json(shape)}, {"seed", seed}});
  if (!reply) return reply.error();
  const std::string status = reply->value("status", "");
  const auto parsed = store::parse_measurement_status(status);
  if (!parsed)
    return Error{fmt::format("the peer runner for {} prepared {} with status '{}'", peer_,
                             describe(shape), status)};
  Check check{.status = *parsed, .reason = ""};
  if (*parsed != store::MeasurementStatus::ok) {
    const auto& reason = (*reply)["reason"];
    check.reason =
        reason.is_string() ? reason.get<std::string>() : "the peer runner gave no reason";
  }
  return check;
}

Result<std::vector<double>> PeerRounds::round() {
  auto reply = exchange({{"op", "round"}});
  if (!reply) return reply.error();
  const auto& samples = (*reply)["samples_s"];
  std::vector<double> out;
  if (samples.is_array())
    for (const auto& x : samples)
      if (x.is_number() && x.get<double>() > 0) out.push_back(x.get<double>());
  if (out.empty() || out.size() != samples.size())
    return Error{fmt::format("the peer runner for {} replied {} to a round, not its samples", peer_,
                             reply->dump())};
  return out;
}

}  // namespace fa4::orchestration
