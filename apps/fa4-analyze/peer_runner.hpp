// Running the peer runner (scripts/peers/torch_peers.py: PyTorch SDPA backends and our Triton
// kernel) from 'bench --peers' on the same shapes, then importing its results.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "context.hpp"
#include "core/error.hpp"
#include "core/shape.hpp"

namespace fa4::app {

struct PeerRunOptions {
  std::string python = "python3";
  std::string passes = "fwd";  // fwd, bwd or both
};

// scripts/peers/torch_peers.py in the source tree.
const std::filesystem::path& peer_runner_path();

// A peer the runner knows (peer_common.PEERS, the one list): its name and its measurements'
// source ("sdpa_cudnn", "peer:torch-cudnn").
struct PeerName {
  std::string name;
  std::string source;
};
// torch_peers.py --list-peers (needs Python, not PyTorch); the error when it cannot run.
Result<std::vector<PeerName>> list_peers(const PeerRunOptions& o);

// Checks that Python, PyTorch and a CUDA device are there (torch_peers.py --check-environment);
// the reason when not, empty when they are.
std::string peers_unavailable(const PeerRunOptions& o);

// Runs the peers on `shapes` (those with serving fields left out, saying so), writing their JSON Lines next to the database
// (<db>.peers-<time>.jsonl, kept for the record), and imports them. Throws UserError when the
// runner fails; what it wrote before failing is still imported.
void run_and_import_peers(const Context& ctx, const std::vector<AttnShape>& shapes,
                          const PeerRunOptions& o);

}  // namespace fa4::app
