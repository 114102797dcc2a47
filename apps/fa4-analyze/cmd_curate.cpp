// fa4-analyze curate: one device's reference record from several results databases (the shipped
// runs of data/runs, say): the latest measurement of each kernel, source, pass and problem and
// the latest ceiling of each unit, as the report merges them, each with its samples and its run
// (revision, start time, host, command line; the notes name the database and run it came from).
// The sources are read only; the record is a new database (store/curate.hpp).
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "context.hpp"
#include "store/curate.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

struct CurateOptions {
  std::string device;
  std::string out;
  std::vector<std::string> sources;
};

void run_curate(const CurateOptions& o) {
  std::vector<store::CurateSource> sources;
  for (const std::string& path : o.sources) sources.push_back({path, path});
  const store::CurateCounts n = take(store::curate(sources, o.device, o.out));
  fmt::print(
      "{}: {} measurements ({} samples), {} linked predictions and {} ceilings of {} from "
      "{} runs of {} databases\n",
      o.out, n.measurements, n.samples, n.predictions, n.ceilings, o.device, n.runs,
      sources.size());
}

void setup(CLI::App& app, Context&) {
  auto o = std::make_shared<CurateOptions>();
  CLI::App* c = app.add_subcommand(
      "curate",
      "Write one device's reference record: the latest measurement of each kernel, source, pass "
      "and problem and the latest ceiling of each unit in the databases given (later runs win, "
      "as in the report), with their samples and runs; the sources are only read");
  c->add_option("--device", o->device,
                "CUDA device name, as measurements record it ('NVIDIA H200')")
      ->required();
  c->add_option("--out", o->out, "The record to write: a new database (refused if it exists)")
      ->required();
  c->add_option("databases", o->sources, "Databases to read, oldest first")->required();
  c->callback([o] { run_curate(*o); });
}

const SubcommandRegistration registration{57, setup};

}  // namespace
}  // namespace fa4::app
