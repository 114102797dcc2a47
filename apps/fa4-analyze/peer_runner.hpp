// Running the peer runner (scripts/peers/torch_peers.py: PyTorch SDPA backends and our Triton
// kernel) from 'bench --peers' on the same shapes, then importing its results.
#pragma once

#include <string>
#include <vector>

#include "context.hpp"
#include "core/shape.hpp"

namespace fa4::app {

struct PeerRunOptions {
  std::string python = "python3";
  std::string passes = "fwd";  // fwd, bwd or both
};

// Checks that Python, PyTorch and a CUDA device are there (torch_peers.py --check-environment);
// the reason when not, empty when they are.
std::string peers_unavailable(const PeerRunOptions& o);

// Runs the peers on `shapes` (those with serving fields left out, saying so), writing their JSON Lines next to the database
// (<db>.peers-<time>.jsonl, kept for the record), and imports them. Throws UserError when the
// runner fails; what it wrote before failing is still imported.
void run_and_import_peers(const Context& ctx, const std::vector<AttnShape>& shapes,
                          const PeerRunOptions& o);

}  // namespace fa4::app
