#include "examples.hpp"

#include <string>

namespace fa4::app {
namespace {

using enum ExampleNeeds;

constexpr Example kExamples[] = {
    {"gpus", "gpus", nothing},
    {"gpus", "gpus show b200", nothing},
    {"model", "model --gpu b200 --kernel fa4 --seqlen 8192 --headdim 128", nothing},
    {"model", "model --gpu all --kernel fa3 --pass bwd --seqlen 4096 --causal", nothing},
    {"model", "model --gpu b200 --profile cudnn --seqlen 8192 --factors", nothing},
    {"whatif", "whatif --gpu b200 --scale mufu=2 --seqlen 8192", nothing},
    {"whatif", "whatif --gpu h100-sxm --sensitivity --seqlen 8192 --causal", nothing},
    {"predict", "predict --sweep data/sweeps/llama3.json --gpu all --kernel all", nothing},
    {"roofline", "roofline --gpu h200 --out h200-roofline.svg", nothing},
    {"roofline", "roofline --gpu b200 --kernel fa4 --seqlen 16384 --json", nothing},
    {"published", "published --gpu b200", nothing},
    {"import", "import data/published/papers.json", nothing},
    {"query", "query \"SELECT gpu, COUNT(*) AS predictions FROM v_predictions GROUP BY gpu\"",
     nothing},
    {"runs", "runs", nothing},
    {"report", "report --out report.md", nothing},
    {"curate", "curate --device \"NVIDIA H200\" --out h200-record.db data/runs/h200.db", nothing},
    {"compare", "compare before.db after.db --fail-on slower", measurements},
    {"compare", "compare --db h200.db --kernel fa3 --against sdpa_cudnn --markdown", measurements},
    {"compare", "compare A.db B.db --runs-as-rounds --threshold 2%", measurements},
    {"kernels", "kernels", nothing},
    {"bench", "bench --kernel fa3,fa4 --sweep data/sweeps/ladder-h128.json --peers", cuda_gpu},
    {"bench", "bench --kernel fa3_decode --sweep data/sweeps/decode.json", cuda_gpu},
    {"bench", "bench --kernel fa3,fa4 --ab --sweep data/sweeps/ladder-h128.json", cuda_gpu},
    {"bench", "bench --kernel fa3,sdpa_cudnn --ab --rounds 20 --seqlen 8192 --causal", cuda_gpu},
    {"ceilings", "ceilings --unit hbm_copy,hbm_read", cuda_gpu},
    {"help", "help model", nothing},
};

constexpr std::string_view kGlobalOptions =
    "Global options (before or after the subcommand): --db FILE (results database, env FA4_DB), "
    "--models DIR (hardware models, env FA4_MODELS), --busy-timeout MS; fa4-analyze --help "
    "lists the subcommands.";

std::string footer_of(const CLI::App& sub) {
  std::string lines;
  for (const Example& e : kExamples)
    if (e.subcommand == sub.get_name()) {
      lines += "\n  fa4-analyze ";
      lines += e.command;
    }
  std::string out = sub.get_footer();
  if (!out.empty()) out += "\n\n";
  if (!lines.empty()) out += "Examples:" + lines + "\n\n";
  out += kGlobalOptions;
  return out;
}

}  // namespace

std::span<const Example> examples() { return kExamples; }

void add_help_footers(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) sub->footer(footer_of(*sub));
}

}  // namespace fa4::app
