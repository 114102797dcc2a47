// The training step's attention on one device: per problem measured in both passes, the time of
// our best forward rung plus our best backward rung against cuDNN's forward plus backward, each
// figure from the measurements of that device (each labelled with its run) and the model's
// prediction beside each.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "report/ladder_cells.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/rungs.hpp"
#include "report/sections.hpp"

namespace fa4::report {
namespace {

using store::MeasurementRow;

// A time in milliseconds, three decimals.
std::string ms(double seconds) { return fmt::format("{:.3f}", seconds * 1e3); }

// The time a prediction of `predicted_tflops` means for measurement `m` (same FLOPs).
double predicted_time(const MeasurementRow& m, double predicted_tflops) {
  return m.median_s * m.tflops / predicted_tflops;
}

// One problem in both passes: our best rung of each pass and cuDNN's, when all four ran ok.
struct Step {
  const MeasurementRow *ours_fwd = nullptr, *ours_bwd = nullptr;
  const MeasurementRow *cudnn_fwd = nullptr, *cudnn_bwd = nullptr;
  bool complete() const { return ours_fwd && ours_bwd && cudnn_fwd && cudnn_bwd; }
};

void take_if_faster(const MeasurementRow*& held, const MeasurementRow& m) {
  if (!held || m.median_s < held->median_s) held = &m;
}

std::string runs_text(const std::set<std::string>& runs) {
  std::string out;
  for (const auto& r : runs) out += (out.empty() ? "" : "; ") + r;
  return out;
}

}  // namespace

std::string training_step_subsection(const std::vector<MeasurementRow>& rows,
                                     const CudnnModel& cudnn_model, const std::string& device) {
  // Ordered as the ladder's tables: by head dim, mask, then seqlen; every field of the shape
  // tells two apart (a paged or ragged shape comes after the plain one).
  const auto key = [](const AttnShape& s) {
    return std::tuple(s.dtype, s.headdim, s.causal, s.seqlen_k, s.seqlen_q, s.batch, s.heads_q,
                      s.heads_kv, s.headdim_v, s.window, serving_fields(s));
  };
  const auto order = [key](const AttnShape& a, const AttnShape& b) { return key(a) < key(b); };
  std::map<AttnShape, Step, decltype(order)> steps(order);
  for (const MeasurementRow& m : rows) {
    if (m.device != device || !m.ok() || m.median_s <= 0) continue;
    Step& s = steps[m.shape];
    const bool fwd = m.pass == Pass::fwd;
    if (m.ours() && rung_index(m.kernel, m.pass))
      take_if_faster(fwd ? s.ours_fwd : s.ours_bwd, m);
    else if (!m.ours() && m.kernel == kCudnn)
      (fwd ? s.cudnn_fwd : s.cudnn_bwd) = &m;
  }
  std::erase_if(steps, [](const auto& s) { return !s.second.complete(); });
  if (steps.empty()) return "";

  const auto right = Align::right;
  Table table{{{"problem"},
               {"our forward", right},
               {"ms", right},
               {"model ms", right},
               {"our backward", right},
               {"ms", right},
               {"model ms", right},
               {"ours fwd + bwd ms", right},
               {"model ms", right},
               {"cuDNN fwd + bwd ms", right},
               {"model ms", right},
               {"cuDNN / ours", right},
               {"model: cuDNN / ours", right}},
              {}};
  std::set<std::string> runs_ours_fwd, runs_ours_bwd, runs_cudnn;
  struct Ratio {
    double value;
    const AttnShape* shape;
  };
  std::vector<Ratio> measured;
  std::vector<double> modeled;
  for (const auto& [shape, s] : steps) {
    const double ours = s.ours_fwd->median_s + s.ours_bwd->median_s;
    const double cudnn = s.cudnn_fwd->median_s + s.cudnn_bwd->median_s;
    const auto model_of = [](const MeasurementRow& m, std::optional<double> tflops) {
      return tflops && *tflops > 0 ? std::optional(predicted_time(m, *tflops)) : std::nullopt;
    };
    const auto of_ours = [&](const MeasurementRow* m) {
      return model_of(*m,
                      m->predicted_tflops > 0 ? std::optional(m->predicted_tflops) : std::nullopt);
    };
    const auto model_fwd = of_ours(s.ours_fwd), model_bwd = of_ours(s.ours_bwd);
    const auto model_cudnn_fwd = model_of(*s.cudnn_fwd, cudnn_model(*s.cudnn_fwd));
    const auto model_cudnn_bwd = model_of(*s.cudnn_bwd, cudnn_model(*s.cudnn_bwd));
    const auto sum = [](std::optional<double> a, std::optional<double> b) {
      return a && b ? std::optional(*a + *b) : std::nullopt;
    };
    const auto model_ours = sum(model_fwd, model_bwd);
    const auto model_cudnn = sum(model_cudnn_fwd, model_cudnn_bwd);
    const auto text = [](std::optional<double> t) { return t ? ms(*t) : std::string("—"); };
    measured.push_back({cudnn / ours, &shape});
    if (model_ours && model_cudnn) modeled.push_back(*model_cudnn / *model_ours);
    table.rows.push_back({describe(shape), s.ours_fwd->kernel, ms(s.ours_fwd->median_s),
                          text(model_fwd), s.ours_bwd->kernel, ms(s.ours_bwd->median_s),
                          text(model_bwd), ms(ours), text(model_ours), ms(cudnn), text(model_cudnn),
                          ratio(cudnn / ours),
                          model_ours && model_cudnn ? ratio(*model_cudnn / *model_ours) : "—"});
    runs_ours_fwd.insert(run_label(*s.ours_fwd));
    runs_ours_bwd.insert(run_label(*s.ours_bwd));
    runs_cudnn.insert(run_label(*s.cudnn_fwd));
    runs_cudnn.insert(run_label(*s.cudnn_bwd));
  }
  const auto [lo, hi] =
      std::minmax_element(measured.begin(), measured.end(),
                          [](const Ratio& a, const Ratio& b) { return a.value < b.value; });
  std::string out =
      fmt::format("### Forward + backward on {}: the training step's attention\n\n", device);
  out += fmt::format(
      "Per problem measured in both passes on this device: the time of our fastest forward rung "
      "plus our fastest backward rung against cuDNN's forward plus backward (PyTorch SDPA's "
      "cuDNN backend); above 1.00x ours is faster. Measured: from {} ({}) to {} ({}) over {} "
      "{}",
      ratio(lo->value), describe(*lo->shape), ratio(hi->value), describe(*hi->shape),
      measured.size(), measured.size() == 1 ? "problem" : "problems");
  if (!modeled.empty()) {
    const auto [mlo, mhi] = std::minmax_element(modeled.begin(), modeled.end());
    out += fmt::format(
        "; the model (ours: each kernel's configuration, current model; cuDNN: the model's {} "
        "on `{}`, kernel time alone) predicts {} to {}",
        "closest algorithm", cudnn_model.gpu_id(), ratio(*mlo), ratio(*mhi));
  }
  out += ".\n\n";
  out += md::details(
      fmt::format("Forward + backward per problem on {} (ms, median times)", device),
      fmt::format("Our forward: {}. Our backward: {}. cuDNN: {}.\n\n{}\n", runs_text(runs_ours_fwd),
                  runs_text(runs_ours_bwd), runs_text(runs_cudnn), md::render(table)));
  return out;
}

}  // namespace fa4::report
