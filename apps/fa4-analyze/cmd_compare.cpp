// fa4-analyze compare BASELINE [CONTENDER]: two runs (or databases, or two kernels of one run)
// matched configuration by configuration, each with both medians, the ratio and its bootstrap
// interval, the U test's p, the ratio in SM cycles and a verdict (lib/compare/verdict.hpp); the
// unmatched configurations listed; a summary line; --fail-on for CI. With several databases (--db
// twice or more, or a folder), two kernels compared within each, the rows labelled.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"
#include "compare/output.hpp"
#include "context.hpp"
#include "databases.hpp"
#include "open_store.hpp"
#include "report/chart_render.hpp"
#include "report/table_format.hpp"
#include "threshold_option.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

struct CompareOptions {
  std::vector<std::string> sides;
  std::vector<std::string> kernels;
  std::string against;
  std::string threshold = "5%";
  double alpha = 0.05;
  std::vector<std::string> fail_on;
  bool runs_as_rounds = false;
  bool json = false, csv = false, markdown = false;
  std::string chart;
};

compare::Side read(const Context& ctx, const std::string& text, std::string_view role,
                   bool runs_as_rounds) {
  const compare::SideSpec spec = take(compare::parse_side(text, ctx.db_path, role));
  Context side_ctx = ctx;
  side_ctx.db_path = spec.db_path;
  const store::Store db = open_store_for_reading(side_ctx);
  auto side = runs_as_rounds ? compare::read_side_by_runs(db, spec) : compare::read_side(db, spec);
  if (!side) throw UserError(fmt::format("{} {}", role, side.error().message));
  return std::move(*side);
}

// Every database of --db (several, or a folder) as one side, each read whole (its latest
// measurement of each configuration); those with nothing to compare, or of the other kind, left
// out with a note.
compare::Side read_databases(const Context& ctx) {
  std::vector<compare::Side> sides;
  std::vector<std::string> left_out;
  for (const LabelledStore& db : open_databases_for_reading(ctx)) {
    auto side = compare::read_side(db.store, {db.label, std::nullopt, db.label});
    if (side)
      sides.push_back(std::move(*side));
    else
      fmt::print(stderr, "compare: left out {}: {}\n", db.label, side.error().message);
  }
  if (sides.empty())
    throw UserError(
        "no database of --db holds measurements or predictions to compare; name databases that "
        "bench, import or predict wrote");
  compare::Side merged = compare::merge_sides(std::move(sides), left_out);
  for (const std::string& label : left_out)
    fmt::print(stderr, "compare: left out {}: it holds {} where the others hold {}\n", label,
               merged.predicted ? "measurements" : "predictions",
               merged.predicted ? "predictions" : "measurements");
  return merged;
}

void write_chart(const compare::Comparison& c, const std::string& file) {
  const fs::path out(file);
  if (out.extension() != ".svg" || !report::is_figure_name(out.stem().string()))
    throw UserError(fmt::format(
        "--chart {}: name an .svg file whose name holds only letters, digits, '.', '_' and '-' "
        "(its .gp script and .dat data are written beside it)",
        file));
  const fs::path folder = out.has_parent_path() ? out.parent_path() : fs::path(".");
  const auto gnuplot = report::find_gnuplot();
  const auto figure = compare::ratio_chart(c, out.stem().string());
  if (auto s = report::write_figure(folder, figure, gnuplot ? &*gnuplot : nullptr); !s)
    throw UserError(s.error().message);
  const std::string stem = (folder / out.stem()).string();
  if (!gnuplot)
    throw UserError(fmt::format("wrote {}.gp and {}.dat but not the SVG: {}", stem, stem,
                                gnuplot.error().message));
  fmt::print(stderr, "wrote {} with its script {}.gp and data {}.dat\n", file, stem, stem);
}

std::string json_of(const compare::Comparison& c) {
  const compare::Summary s = compare::summarize(c);
  nlohmann::ordered_json j;
  j["baseline"] = c.baseline_name();
  j["contender"] = c.contender_name();
  j["predicted"] = c.predicted;
  j["threshold"] = c.rules.threshold;
  j["alpha"] = c.rules.alpha;
  j["rows"] = nlohmann::ordered_json::parse(report::format_json(compare::comparison_table(c)));
  j["only_baseline"] = c.only_baseline;
  j["only_contender"] = c.only_contender;
  for (std::size_t v = 0; v < s.counts.size(); ++v)
    j["summary"][report::json_key(compare::to_string(static_cast<compare::Verdict>(v)))] =
        s.counts[v];
  j["summary"]["geometric_mean_ratio"] = s.geometric_mean;
  j["summary"]["unmatched"] = s.unmatched;
  return j.dump(2) + "\n";
}

void run_compare(const Context& ctx, const CompareOptions& o) {
  if (o.json + o.csv + o.markdown > 1)
    throw UserError("choose one of --json, --csv and --markdown");
  const bool several = several_databases(ctx);
  if (several && (!o.sides.empty() || o.against.empty()))
    throw UserError(
        "with several databases (--db given more than once, or a folder) compare pairs two "
        "kernels within each database: --kernel A --against B, without BASELINE or CONTENDER "
        "(two databases as sides: compare A.db B.db)");
  if (o.sides.empty() && !several)
    throw UserError(
        "name a BASELINE (and a CONTENDER, or --kernel A --against B): FILE.db:RUN, FILE.db or a "
        "RUN of --db");
  if (o.sides.size() == 1 && o.against.empty())
    throw UserError(fmt::format(
        "compare {}: name a CONTENDER to compare it with, or compare two kernels of it with "
        "--kernel A --against B",
        o.sides[0]));
  compare::Pairing pairing;
  if (!o.against.empty()) {
    if (o.kernels.size() != 1)
      throw UserError(fmt::format(
          "--against {}: name the one baseline kernel with --kernel (--kernel fa3 --against {})",
          o.against, o.against));
    pairing.kernel = o.kernels[0];
    pairing.against = o.against;
  } else {
    pairing.kernels = o.kernels;
  }
  if (o.runs_as_rounds && (several || o.sides.size() != 2))
    throw UserError(
        "--runs-as-rounds takes each run of a database as one round: name two databases, "
        "BASELINE.db CONTENDER.db (as scripts/gpu-ab.sh --trees writes them)");
  compare::Rules rules;
  rules.threshold = parse_threshold(o.threshold);
  rules.alpha = o.alpha;
  compare::Side baseline =
      several ? read_databases(ctx) : read(ctx, o.sides[0], "BASELINE", o.runs_as_rounds);
  compare::Side contender =
      o.sides.size() == 2 ? read(ctx, o.sides[1], "CONTENDER", o.runs_as_rounds) : baseline;
  auto compared = compare::compare_sides(std::move(baseline), std::move(contender), pairing, rules);
  if (!compared) throw UserError(compared.error().message);
  const compare::Comparison& c = *compared;
  const std::string unmatched = compare::unmatched_lines(c);
  if (o.json) {
    fmt::print("{}", json_of(c));
  } else if (o.csv) {
    fmt::print("{}", report::format_csv(compare::comparison_table(c)));
    fmt::print(stderr, "{}{}\n", unmatched, compare::summary_line(c));
  } else if (o.markdown) {
    fmt::print("{}", compare::markdown(c));
  } else {
    fmt::print("baseline {} against contender {}\n", c.baseline_name(), c.contender_name());
    fmt::print("{}", report::format_text(compare::comparison_table(c), {.row_count = false}));
    fmt::print("{}{}\n", unmatched, compare::summary_line(c));
  }
  if (!o.chart.empty()) write_chart(c, o.chart);
  const compare::Summary s = compare::summarize(c);
  for (const std::string& verdict : o.fail_on) {
    const auto v = verdict == "slower"   ? compare::Verdict::slower
                   : verdict == "faster" ? compare::Verdict::faster
                                         : compare::Verdict::unsure;
    if (const std::size_t n = s.counts[static_cast<std::size_t>(v)]; n > 0) {
      std::fflush(stdout);
      fmt::print(stderr, "compare: {} configuration{} {} (--fail-on {})\n", n, n == 1 ? "" : "s",
                 compare::to_string(v), verdict);
      std::exit(1);
    }
  }
}

void setup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* c = app.add_subcommand(
      "compare",
      "Compare two runs configuration by configuration: both medians, the ratio with its "
      "bootstrap 95% interval, the Mann-Whitney U p-value, the ratio in SM cycles and a verdict "
      "(FASTER, SLOWER, SAME, UNSURE); two prediction runs shape by shape");
  c->add_option("sides", o->sides,
                "BASELINE [CONTENDER]: FILE.db:RUN (one run), FILE.db (its latest measurement of "
                "each configuration) or RUN (a run of --db); one side with --kernel A --against B; "
                "none with several --db (or a folder): --kernel A --against B within each "
                "database, each row labelled with it")
      ->expected(0, 2);
  c->add_option("--kernel", o->kernels,
                "Only these kernels (algorithms, for predictions); with --against: the baseline "
                "kernel")
      ->delimiter(',');
  c->add_option("--against", o->against,
                "The contender kernel or peer (sdpa_cudnn), compared on the same problems");
  c->add_option("--threshold", o->threshold,
                "Smallest change worth a verdict (default 5%; 2% for alternating rounds: bench "
                "--ab, --runs-as-rounds)");
  c->add_option("--alpha", o->alpha, "Significance level of the U test (default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  c->add_option("--fail-on", o->fail_on,
                "Exit 1 when any configuration has one of these verdicts: slower, faster, unsure")
      ->delimiter(',')
      ->check(CLI::IsMember({"slower", "faster", "unsure"}));
  c->add_flag("--runs-as-rounds", o->runs_as_rounds,
              "Two databases, each run one round: a configuration's samples are its medians, "
              "one a run (processes alternated round by round, as scripts/gpu-ab.sh --trees "
              "records two builds)");
  c->add_flag("--json", o->json, "Print the comparison as JSON");
  c->add_flag("--csv", o->csv, "Print the rows as CSV (the summary goes to standard error)");
  c->add_flag("--markdown", o->markdown, "Print markdown for a pull request");
  c->add_option("--chart", o->chart,
                "Draw the ratios with their intervals into FILE.svg (gnuplot; NAME.gp and NAME.dat "
                "beside it)");
  c->footer(std::string(compare::kVerdictRules));
  c->callback([&ctx, o] { run_compare(ctx, *o); });
}

const SubcommandRegistration registration{52, setup};

}  // namespace
}  // namespace fa4::app
