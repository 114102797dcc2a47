// The numbers the report's summary states, each computed where its section computes it: the
// model's error on held-out figures (report_published.cpp), the predicted gain of FA4's softmax
// techniques (report_scaling.cpp), and our best kernel against the best peer per device
// (report_measured.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"
#include "report/published.hpp"
#include "store/store.hpp"

namespace fa4::report {

struct HeldOutError {
  int n = 0;
  int outside_bounds = 0;  // held-out figures left out: their data file gives the reason
  double median_abs_percent = 0;
  double worst_percent = 0;  // signed: (model - published) / published
  std::string worst_figure;  // "h200 sdpa-flash bwd b1 h16/16 s512x512 d128 bf16 causal"
};
// Over the held-out figures (role "" or "held_out", the top-level files and data/published/record
// alike) that the model predicts, those whose data file leaves them out of the bounds apart (they
// are counted); nothing when there is none.
std::optional<HeldOutError> held_out_error(const std::vector<FigureVsModel>& compared);

struct TechniqueGains {
  double best_share = 0;                        // of exp2 emulated on the FMA pipe
  double emulation_gain_percent = 0;            // software exp2 at that share over none
  double rescale_gain_percent = 0;              // conditional rescaling over rescaling every tile
  std::optional<double> measured_fa4_over_fa3;  // our fa4 / fa3 measured on this GPU, same shape
  std::string shape;                            // describe() of the workload
  model::Prediction plain;                      // every exp2 on MUFU: its per-tile cycles
};
// On `gpu` at head dim `headdim` (the scaling section's workload); the error says why not.
Result<TechniqueGains> technique_gains(const std::vector<hw::Spec>& gpus, const hw::Spec& gpu,
                                       const std::vector<store::MeasurementRow>& rows, int headdim);

struct PeerStanding {
  std::string device;
  Pass pass = Pass::fwd;
  std::string ours;                        // our kernel with the best median ratio
  std::string best_peer;                   // the peer that is most often the fastest
  double median = 0, worst = 0, best = 0;  // ours / the fastest peer at each shape
  int shapes = 0;
  std::string runs;  // "run 2, 2026-11-23, rev 684356b-dirty; ..."
};
// Per device and pass (forward first) with both our ladder's kernels of that pass (naive, fa2, fa3,
// fa4; fa2_bwd, fa3_bwd) and peers measured ok.
std::vector<PeerStanding> peer_standings(const std::vector<store::MeasurementRow>& rows);

}  // namespace fa4::report
