// The summary: the report's findings on one page, each with its number and a link to the section
// that shows it: what bounds each GPU (forward and backward at hd128), our best kernel against the
// fastest peer per measured device, the model's error on held-out figures, and the predicted gain
// of each FA4 technique on B200 beside the gain measured on Hopper.
#include <fmt/format.h>

#include "hw/loader.hpp"
#include "report/findings.hpp"
#include "report/markdown.hpp"
#include "report/numbers.hpp"
#include "report/roofline.hpp"
#include "report/sections.hpp"
#include "report/unit_breakdown.hpp"

namespace fa4::report {
namespace {

constexpr int kHeaddim = 128;

std::string link(Section section, std::string_view text) {
  return fmt::format("[{}](#{})", text, anchor(section));
}

// A row per GPU: its best tiled kernel's bound units forward (with every exp2 on MUFU, where the
// kernel has software exp2, and as modeled) and backward.
std::string bound_table(const std::vector<hw::Spec>& gpus) {
  Table table{{"GPU",
               "kernel",
               "fwd, exp2 on MUFU only",
               "fwd",
               {"fwd TFLOP/s", Align::right},
               "bwd",
               {"bwd TFLOP/s", Align::right},
               {"peak", Align::right}},
              {}};
  for (const hw::Spec& gpu : gpus) {
    const auto rows = unit_breakdowns(gpu);
    if (rows.empty()) continue;
    const model::Algorithm best = rows.back().prediction.algorithm;
    std::vector<Cell> line = {
        gpu.id, std::string(model::to_string(best)),        "—", "—", "—", "—",
        "—",    integer(gpu.peak_flops(Dtype::bf16) / 1e12)};
    for (const UnitBreakdown& r : rows) {
      const model::Prediction& p = r.prediction;
      if (p.algorithm != best) continue;
      const std::size_t at = r.mufu_only ? 2 : p.pass == Pass::fwd ? 3 : 5;
      line[at] = bound_units(p.tile_cycles);
      if (!r.mufu_only) line[at + 1] = integer(p.tflops);
    }
    table.rows.push_back(std::move(line));
  }
  return md::render(table);
}

std::string peer_lines(const std::vector<store::MeasurementRow>& rows) {
  const auto standings = peer_standings(rows);
  if (standings.empty())
    return "- No device has both our kernels and a peer measured: run `fa4-analyze bench --peers` "
           "on a CUDA GPU.\n";
  std::string out;
  for (const PeerStanding& s : standings)
    out += fmt::format(
        "- {}, {}: our best, `{}`, against the fastest peer ({} {}; most often `{}`): median {}, "
        "from {} to {} ({}).\n",
        s.device, s.pass == Pass::fwd ? "forward" : "backward", s.ours, s.shapes,
        s.shapes == 1 ? "shape" : "shapes", s.best_peer, ratio(s.median), ratio(s.worst),
        ratio(s.best), s.runs);
  return out;
}

std::string trust_line(const std::vector<FigureVsModel>& compared) {
  const auto e = held_out_error(compared);
  if (!e) return "- No held-out figure names the algorithm that models it.\n";
  const std::string left_out =
      e->outside_bounds ? fmt::format(
                              " ({} more are left out of the bounds, each with its reason in "
                              "its data file)",
                              e->outside_bounds)
                        : "";
  return fmt::format(
      "- On the {} held-out published and measured figures it models{}: median absolute error {}, "
      "worst {} ({}).\n",
      e->n, left_out, percent(e->median_abs_percent), signed_percent(e->worst_percent),
      e->worst_figure);
}

// B200's predicted gains, then the gain measured on each Hopper GPU where fa3 and fa4 ran.
std::string technique_lines(const std::vector<hw::Spec>& gpus,
                            const std::vector<store::MeasurementRow>& rows) {
  std::string out;
  for (const hw::Spec& gpu : gpus) {
    const auto g = technique_gains(gpus, gpu, rows, kHeaddim);
    if (!g) continue;
    const bool predicted_line = gpu.id == "b200" || gpu.id == "b300";
    if (predicted_line)
      out += fmt::format(
          "- {} (predicted, {}): software exp2 on {} of each row {}; conditional rescaling {}.\n",
          gpu.id, g->shape, percent(100 * g->best_share), signed_percent(g->emulation_gain_percent),
          signed_percent(g->rescale_gain_percent));
    if (g->measured_fa4_over_fa3)
      out += fmt::format(
          "- {} (measured: our fa4, software exp2 off and conditional rescaling from seqlen 4096, "
          "over our fa3, same run, {}): {}; predicted there: software exp2 best at {} ({}), "
          "conditional rescaling {}.\n",
          gpu.id, g->shape, signed_percent(100 * (*g->measured_fa4_over_fa3 - 1)),
          percent(100 * g->best_share), signed_percent(g->emulation_gain_percent),
          signed_percent(g->rescale_gain_percent));
  }
  return out;
}

}  // namespace

std::string summary_section(const ReportInputs& in, const ModelDigest& model) {
  std::string out = heading(Section::summary);
  out += fmt::format(
      "**What bounds each GPU** (the model, bf16, {}; {} and {}): the unit that sets the tile's "
      "time (\"a = b\": a tie) for the FlashAttention-style kernel each GPU runs best; fa4's "
      "forward also with its software exp2 off, FA4's problem on Blackwell.\n\n",
      describe(reference_shapes().front()), link(Section::roofline, "rooflines and unit charts"),
      link(Section::tiles, "per-tile cycles"));
  out += bound_table(in.gpus) + "\n";
  out += fmt::format(
      "**Our kernels against the peers** (the latest measurement of each kernel and shape, the "
      "runs named; {}):\n\n",
      link(Section::measured, "measured"));
  out += peer_lines(in.measurements) + "\n";
  out += fmt::format("**How far to trust the model** ({}):\n\n",
                     link(Section::published, "the model against published figures"));
  out += trust_line(model.published) + "\n";
  out += fmt::format("**FA4's techniques** (forward, hd{}; {}):\n\n", kHeaddim,
                     link(Section::scaling, "asymmetric scaling"));
  out += technique_lines(in.gpus, in.measurements) + "\n";
  return out;
}

}  // namespace fa4::report
