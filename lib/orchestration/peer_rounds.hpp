// A peer timed in rounds for bench --ab: scripts/peers/torch_peers.py --serve for one peer and one
// pass, started once for the whole bench and driven over two pipes, one JSON line each way
// (peer_common.serve, scripts/peers/README.md): told to prepare each shape (its inputs drawn, its
// output checked once), then to time one round whenever the other side has had its turn. Plain
// POSIX: tested with a fake runner, without PyTorch or a GPU.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

// A shape as the peer runner reads one (a sweep file's shape: heads, not heads_q). Its serving
// fields are not written: SDPA takes none of them.
nlohmann::json peer_shape_json(const AttnShape& shape);

class PeerRounds {
 public:
  // Starts `python runner --serve --peers PEER --pass PASS` and reads its first line (the peer's
  // source and device). An Error when it cannot start or ends first (its own messages, on
  // standard error, say why).
  static Result<std::unique_ptr<PeerRounds>> start(const std::string& python,
                                                   const std::filesystem::path& runner,
                                                   const std::string& peer, Pass pass);
  // Tells it to quit and waits for it.
  ~PeerRounds();
  PeerRounds(const PeerRounds&) = delete;
  PeerRounds& operator=(const PeerRounds&) = delete;

  const std::string& peer() const { return peer_; }
  const std::string& source() const { return source_; }  // "peer:torch-cudnn"
  const std::string& device() const { return device_; }  // as PyTorch names it

  // The peer on `shape` with inputs from `seed` (drawn by PyTorch: the same distribution as ours,
  // not the same bytes), checked once: ok, or failed or skipped with the reason.
  struct Check {
    store::MeasurementStatus status = store::MeasurementStatus::ok;
    std::string reason;
  };
  Result<Check> prepare(const AttnShape& shape, std::uint64_t seed);
  // One round of the prepared peer: its samples, in the order taken.
  Result<std::vector<double>> round();

 private:
  PeerRounds(std::string peer, pid_t pid, int to_child, int from_child)
      : peer_(std::move(peer)), pid_(pid), to_child_(to_child), from_child_(from_child) {}
  // Writes `request` as one line and reads one reply; an Error when the runner has ended or
  // replies {"error": ...}.
  Result<nlohmann::json> exchange(const nlohmann::json& request);
  Result<nlohmann::json> read_reply();
  std::string ended();  // why the runner is gone: its exit status

  std::string peer_, source_, device_;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string buffer_;  // read past the last reply
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace fa4::orchestration
