// fa4-analyze roofline: the roofline of attention on one GPU model (HBM bandwidth, the dense
// tensor-core peak, the model's attention ceilings per head dim, the measured ceilings dashed) with
// the kernels' predicted and (--measured) measured points, as an SVG drawn by gnuplot from a
// script and data written beside it, and the points as JSON or CSV.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "context.hpp"
#include "core/sweep.hpp"
#include "databases.hpp"
#include "gpu_list.hpp"
#include "hw/loader.hpp"
#include "measured_sources.hpp"
#include "model/algorithm_traits.hpp"
#include "report/chart_render.hpp"
#include "report/decode_model.hpp"
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

// The kernels to draw on `gpu`: a kernel the GPU cannot run is refused on one GPU, and left out of
// that GPU's panel (with a note on standard error) when there are several.
std::vector<model::Algorithm> pick_kernels(const hw::Spec& gpu, const RooflineOptions& o,
                                           bool several) {
  std::vector<model::Algorithm> out;
  if (o.kernels.size() == 1 && o.kernels[0] == "all") {
    for (model::Algorithm a : model::kAllAlgorithms)
      if (!model::unsupported_reason(gpu, a)) out.push_back(a);
    return out;
  }
  for (const std::string& name : o.kernels) {
    const model::Algorithm a = take(model::parse_algorithm(name));
    if (auto why = model::unsupported_reason(gpu, a)) {
      if (!several) throw UserError("--kernel " + name + ": " + *why);
      fmt::print(stderr, "roofline: {} left out of {}: {}\n", name, gpu.id, *why);
      continue;
    }
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

// One GPU's roofs, points and caption.
struct GpuRoofline {
  const hw::Spec* gpu = nullptr;
  report::RooflineBounds bounds;
  std::vector<report::RooflinePoint> points;
  std::string caption;
};

// The roofline of `gpu`; nullopt when it has no point to draw and others may (`several`).
std::optional<GpuRoofline> roofline_of(const hw::Spec& gpu, const RooflineOptions& o,
                                       const std::vector<AttnShape>& shapes,
                                       const std::vector<hw::Spec>& specs,
                                       const MeasuredSources* sources, bool several) {
  const Pass pass = take(parse_pass(o.pass));
  const auto kernels = pick_kernels(gpu, o, several);
  if (kernels.empty()) return std::nullopt;  // each left out with a note (several GPUs)
  GpuRoofline out;
  out.gpu = &gpu;
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
      out.points.push_back(report::predicted_point(*p));
    }
    // With every kernel, a decode shape is also drawn as our decode kernel where the model
    // prices it (as the report's roofline does).
    const bool all = o.kernels.size() == 1 && o.kernels[0] == "all";
    if (all && pass == Pass::fwd && report::is_decode(shape))
      if (auto p = report::predicted_decode_point(gpu, shape)) out.points.push_back(std::move(*p));
  }
  const std::string on = several ? " on " + gpu.id : "";
  if (refused)
    fmt::print(stderr, "roofline: the model refused {} (kernel, shape) pairs{}, e.g.: {}\n",
               refused, on, first_refusal);

  std::vector<hw::MeasuredCeiling> ceilings;
  out.caption =
      fmt::format("Model version {}, {} datasheet ({}).", model::kModelVersion, gpu.id, gpu.name);
  if (sources) {
    std::set<std::string> names;
    for (model::Algorithm a : kernels) names.insert(std::string(model::to_string(a)));
    for (const store::MeasurementRow& m : sources->measurements) {
      const hw::Spec* model = hw::match_device_name(specs, m.device);
      const bool wanted = !m.ours() || names.contains(m.kernel);
      if (model && model->id == gpu.id && m.ok() && m.pass == pass && wanted &&
          headdims.contains(m.shape.headdim))
        out.points.push_back(report::measured_point(m, model));
    }
    ceilings = report::measured_ceilings_of(specs, gpu, sources->ceilings);
    std::string from;
    for (const std::string& origin : sources->origins) from += (from.empty() ? "" : "; ") + origin;
    out.caption += " Measured: " + (from.empty() ? std::string("no database") : from) + ".";
  }
  if (out.points.empty()) {
    const std::string why = fmt::format(
        "no point to draw{}: the model refused every (kernel, shape) pair ({}); choose other "
        "--kernel or shapes",
        on, first_refusal);
    if (!several) throw UserError(why);
    fmt::print(stderr, "roofline: {}\n", why);
    return std::nullopt;
  }
  out.bounds = take(report::roofline_bounds(
      gpu, pass, std::vector<std::int64_t>(headdims.begin(), headdims.end()), ceilings));
  return out;
}

// The points of every GPU as one CSV, a gpu column first when there are several (each point's
// line made alone: a quoted field may hold a line break).
std::string csv_of(const std::vector<GpuRoofline>& all, bool several) {
  if (!several) return report::roofline_csv(all.front().points);
  const std::string header = report::roofline_csv({});
  std::string out = "gpu," + header;
  for (const GpuRoofline& r : all)
    for (const report::RooflinePoint& p : r.points)
      out += r.gpu->id + "," + report::roofline_csv({p}).substr(header.size());
  return out;
}

// One figure: a panel per GPU, two to a row.
report::Figure figure_of(const std::vector<GpuRoofline>& all, const std::string& name) {
  report::Figure figure;
  std::string ids, caption;
  for (const GpuRoofline& r : all) {
    report::Figure one = report::roofline_figure(name, *r.gpu, r.bounds, r.points, r.caption);
    if (all.size() == 1) return one;
    for (report::Panel& panel : one.panels) figure.panels.push_back(std::move(panel));
    figure.panel_width = one.panel_width;
    figure.panel_height = one.panel_height;
    ids += (ids.empty() ? "" : ", ") + r.gpu->id;
    caption += (caption.empty() ? "" : " ") + r.caption;
  }
  figure.name = name;
  figure.title = fmt::format("Roofline of attention on {} (bf16)", ids);
  figure.columns = 2;
  figure.caption = caption;
  return figure;
}

void run_roofline(const Context& ctx, const RooflineOptions& o) {
  if (o.out.empty() && !o.json && !o.csv)
    throw UserError("say what to write: --out FILE.svg (the chart), --json or --csv (the points)");
  const auto specs = take(hw::load_all_specs(ctx.models_dir));
  const auto gpus = find_gpus(specs, o.gpu);
  const bool several = gpus.size() > 1 || o.gpu == "all";
  const auto shapes = pick_shapes(o);
  std::optional<MeasuredSources> sources;
  if (o.measured)
    sources = load_measured_sources(ctx, several_databases(ctx) || fs::exists(ctx.db_path),
                                    o.reference_runs.folder(ctx), specs);
  std::vector<GpuRoofline> all;
  for (const hw::Spec* gpu : gpus)
    if (auto r = roofline_of(*gpu, o, shapes, specs, sources ? &*sources : nullptr, several))
      all.push_back(std::move(*r));
  if (all.empty())
    throw UserError(fmt::format("no point to draw on any GPU of --gpu {}: choose other --kernel "
                                "or shapes",
                                o.gpu));

  if (o.json) {
    if (!several) {
      fmt::print("{}", report::roofline_json(all.front().bounds, all.front().points));
    } else {
      nlohmann::json array = nlohmann::json::array();
      for (const GpuRoofline& r : all)
        array.push_back(nlohmann::json::parse(report::roofline_json(r.bounds, r.points)));
      fmt::print("{}\n", array.dump(2));
    }
  }
  if (o.csv) fmt::print("{}", csv_of(all, several));
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
  const auto figure = figure_of(all, out.stem().string());
  const auto gnuplot = report::find_gnuplot();
  if (auto s = report::write_figure(folder, figure, gnuplot ? &*gnuplot : nullptr); !s)
    throw UserError(s.error().message);
  const std::string stem = (folder / out.stem()).string();
  if (!gnuplot)
    throw UserError(fmt::format("wrote {}.gp and {}.dat but not the SVG: {}", stem, stem,
                                gnuplot.error().message));
  std::size_t points = 0, roofs = 0;
  for (const GpuRoofline& r : all) {
    points += r.points.size();
    roofs += r.bounds.roofs.size() + 1 + (r.bounds.measured_hbm_tb_s > 0) +
             (r.bounds.measured_hbm_read_tb_s > 0);
  }
  fmt::print("wrote {} ({} points, {} roofs{}) with its script {}.gp and data {}.dat\n", o.out,
             points, roofs, several ? fmt::format(", {} GPUs", all.size()) : "", stem, stem);
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* c = app.add_subcommand(
      "roofline",
      "Draw the roofline of attention on a GPU model: HBM bandwidth, the tensor-core peak and the "
      "model's attention ceilings per head dim, with the kernels' predicted (and --measured) "
      "points; the points as --json or --csv");
  c->add_option("--gpu", o->gpu,
                fmt::format("Hardware model (h200, b200, ...), or {} (a panel, JSON object and "
                            "CSV rows each)",
                            kGpuListHelp))
      ->required();
  c->add_option("--kernel", o->kernels,
                "Algorithms (naive, fa2, fa3, fa4), or all it runs (forward decode shapes then "
                "also as our fa3_decode on Hopper)")
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
