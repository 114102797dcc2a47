// fa4-analyze roofline: the roofline of attention on one GPU model (HBM bandwidth, the dense
// tensor-core peak, the model's attention ceilings per head dim, the measured ceilings dashed) with
// the kernels' predicted and (--measured) measured points, as an SVG drawn by gnuplot from a
// script and data written beside it, and the points as JSON or CSV.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>

#include "context.hpp"
#include "core/sweep.hpp"
#include "hw/loader.hpp"
#include "measured_sources.hpp"
#include "model/algorithm_traits.hpp"
#include "report/chart_render.hpp"
#include "report/roofline.hpp"
#include "shape_options.hpp"
#include "store/store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

struct RooflineOptions {
  std::string gpu;
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> sweeps;
  std::string pass = "fwd";
  bool measured = false;
  ReferenceRunsOptions reference_runs;
  std::string out;
  bool json = false, csv = false;
  ShapeOptions shape;
};

std::vector<model::Algorithm> pick_kernels(const hw::Spec& gpu, const RooflineOptions& o) {
  std::vector<model::Algorithm> out;
  if (o.kernels.size() == 1 && o.kernels[0] == "all") {
    for (model::Algorithm a : model::kAllAlgorithms)
      if (!model::unsupported_reason(gpu, a)) out.push_back(a);
    return out;
  }
  for (const std::string& name : o.kernels) {
    const model::Algorithm a = take(model::parse_algorithm(name));
    if (auto why = model::unsupported_reason(gpu, a))
      throw UserError("--kernel " + name + ": " + *why);
    out.push_back(a);
  }
  return out;
}

std::vector<AttnShape> pick_shapes(const RooflineOptions& o) {
  if (!o.sweeps.empty() && o.shape.any_given())
    throw UserError("give either --sweep or shape flags, not both");
  if (o.shape.any_given()) return {o.shape.shape()};
  if (o.sweeps.empty()) return report::reference_shapes();
  std::vector<AttnShape> shapes;
  for (const std::string& file : o.sweeps) {
    const Sweep sweep = take(load_sweep(file));
    // On stderr: standard output may be the points' JSON or CSV.
    if (sweep.rounding_note) fmt::print(stderr, "note: {}\n", *sweep.rounding_note);
    shapes.insert(shapes.end(), sweep.shapes.begin(), sweep.shapes.end());
  }
  return shapes;
}

void run_roofline(const Context& ctx, const RooflineOptions& o) {
  if (o.out.empty() && !o.json && !o.csv)
    throw UserError("say what to write: --out FILE.svg (the chart), --json or --csv (the points)");
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const hw::Spec& gpu = *take(hw::find_spec(specs, o.gpu));
  const Pass pass = take(parse_pass(o.pass));
  const auto kernels = pick_kernels(gpu, o);
  const auto shapes = pick_shapes(o);

  std::vector<report::RooflinePoint> points;
  std::size_t refused = 0;
  std::string first_refusal;
  std::set<std::int64_t> headdims;
  for (const AttnShape& shape : shapes) {
    headdims.insert(shape.headdim);
    for (model::Algorithm a : kernels) {
      model::Options options;
      options.algorithm = a;
      options.pass = pass;
      auto p = model::predict(gpu, shape, options);
      if (!p) {
        if (!refused++) first_refusal = p.error().message;
        continue;
      }
      points.push_back(report::predicted_point(*p));
    }
  }
  if (refused)
    fmt::print(stderr, "roofline: the model refused {} (kernel, shape) pairs, e.g.: {}\n", refused,
               first_refusal);

  std::vector<hw::MeasuredCeiling> ceilings;
  std::string caption =
      fmt::format("Model version {}, {} datasheet ({}).", model::kModelVersion, gpu.id, gpu.name);
  if (o.measured) {
    const bool user_db = fs::exists(ctx.db_path);
    const auto sources = load_measured_sources(ctx, user_db, o.reference_runs.folder(ctx), specs);
    std::set<std::string> names;
    for (model::Algorithm a : kernels) names.insert(std::string(model::to_string(a)));
    for (const store::MeasurementRow& m : sources.measurements) {
      const hw::Spec* model = hw::match_device_name(specs, m.device);
      const bool wanted = !m.ours() || names.contains(m.kernel);
      if (model && model->id == gpu.id && m.ok() && m.pass == pass && wanted &&
          headdims.contains(m.shape.headdim))
        points.push_back(report::measured_point(m));
    }
    ceilings = report::measured_ceilings_of(specs, gpu, sources.ceilings);
    std::string from;
    for (const std::string& origin : sources.origins) from += (from.empty() ? "" : "; ") + origin;
    caption += " Measured: " + (from.empty() ? std::string("no database") : from) + ".";
  }
  if (points.empty())
    throw UserError(
        fmt::format("no point to draw: the model refused every (kernel, shape) pair "
                    "({}); choose other --kernel or shapes",
                    first_refusal));
  const auto bounds = take(report::roofline_bounds(
      gpu, pass, std::vector<std::int64_t>(headdims.begin(), headdims.end()), ceilings));

  if (o.json) fmt::print("{}", report::roofline_json(bounds, points));
  if (o.csv) fmt::print("{}", report::roofline_csv(points));
  if (o.out.empty()) return;
  const fs::path out(o.out);
  if (out.extension() != ".svg")
    throw UserError(
        fmt::format("--out {}: name an .svg file (its .gp script and .dat data are "
                    "written beside it)",
                    o.out));
  if (!report::is_figure_name(out.stem().string()))
    throw UserError(fmt::format(
        "--out {}: the file's name may hold only letters, digits, '.', '_' and '-' (its .gp "
        "script and .dat data beside it take the same name)",
        o.out));
  const fs::path folder = out.has_parent_path() ? out.parent_path() : fs::path(".");
  const auto figure = report::roofline_figure(out.stem().string(), gpu, bounds, points, caption);
  const auto gnuplot = report::find_gnuplot();
  if (auto s = report::write_figure(folder, figure, gnuplot ? &*gnuplot : nullptr); !s)
    throw UserError(s.error().message);
  const std::string stem = (folder / out.stem()).string();
  if (!gnuplot)
    throw UserError(fmt::format("wrote {}.gp and {}.dat but not the SVG: {}", stem, stem,
                                gnuplot.error().message));
  fmt::print("wrote {} ({} points, {} roofs) with its script {}.gp and data {}.dat\n", o.out,
             points.size(), bounds.roofs.size() + 1 + (bounds.measured_hbm_tb_s > 0), stem, stem);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* c = app.add_subcommand(
      "roofline",
      "Draw the roofline of attention on a GPU model: HBM bandwidth, the tensor-core peak and the "
      "model's attention ceilings per head dim, with the kernels' predicted (and --measured) "
      "points; the points as --json or --csv");
  c->add_option("--gpu", o->gpu, "Hardware model (h200, b200, ...)")->required();
  c->add_option("--kernel", o->kernels, "Algorithms (naive, fa2, fa3, fa4), or all it runs")
      ->delimiter(',');
  c->add_option("--sweep", o->sweeps,
                "Sweep file(s) of shapes (default: one prefill, causal prefill, chunked prefill "
                "and decode shape at hd128)");
  c->add_option("--pass", o->pass, "fwd or bwd")->check(CLI::IsMember({"fwd", "bwd"}));
  c->add_flag("--measured", o->measured,
              "Add the measured points and ceilings of this GPU from --db (when it exists) and the "
              "reference runs");
  o->reference_runs.add_to(*c);
  c->add_option("--out", o->out, "SVG file to write; NAME.gp and NAME.dat go beside it");
  c->add_flag("--json", o->json, "Print the roofs and points as JSON");
  c->add_flag("--csv", o->csv, "Print the points as CSV");
  o->shape.add_to(*c);
  c->callback([&ctx, o] { run_roofline(ctx, *o); });
}

const SubcommandRegistration registration{62, setup};

}  // namespace
}  // namespace fa4::app
