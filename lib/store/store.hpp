// The SQLite results database: runs, the model's predictions, measurements and published
// figures (schema: SCHEMA.md beside this file). One Store is one connection; every recorded
// batch is one transaction, so a failure leaves nothing half-written.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "model/model.hpp"
#include "store/query_result.hpp"
#include "store/sqlite.hpp"

namespace fa4::store {

enum class RunKind { predict, bench, import, ceilings };
std::string_view to_string(RunKind kind);

// What begin_run records; the store stamps started_at (UTC) itself. Empty strings are stored as
// NULL (not applicable or unknown).
struct RunInfo {
  RunKind kind = RunKind::predict;
  std::string revision;  // git describe --always --dirty, or a sha
  std::string host;
  std::string command_line;
  std::string device;  // CUDA device name (bench) or hardware model id (predict)
  std::string driver;
  std::string cuda_version;
  std::string notes;
};

struct RunRow {
  std::int64_t id = 0;
  std::string started_at;  // UTC, ISO-8601: 2025-01-31T12:00:00Z
  std::string kind;
  std::string revision;
  std::string host;
  std::string command_line;
  std::string device;
  std::string driver;
  std::string cuda_version;
  std::string notes;
  std::int64_t predictions = 0;
  std::int64_t measurements = 0;
};

// One figure from a paper or a vendor. Recording the same (source, gpu, kernel, shape, pass)
// again replaces its citation, tflops and notes.
struct PublishedFigure {
  std::string source;    // short tag: "fa4-paper"
  std::string citation;  // where exactly: "FlashAttention-4 paper, Figure 5"
  std::string gpu;       // hardware model id: "b200"
  std::string kernel;    // "fa4", "cudnn", ...
  AttnShape shape;
  Pass pass = Pass::fwd;
  double tflops = 0;
  std::string notes;
};

// A prediction as a report shows it: the latest one for its (gpu, algorithm, pass, shape).
struct ReportRow {
  struct Cycles {  // per tile, per unit
    double mma = 0, exp_mufu = 0, exp_fma = 0, fma = 0, smem = 0, tmem = 0, hbm = 0;
  };
  std::int64_t run_id = 0;
  std::int64_t prediction_id = 0;
  std::string started_at;  // of the run
  std::string revision;    // of the run
  std::string gpu;
  model::Algorithm algorithm = model::Algorithm::fa4;
  Pass pass = Pass::fwd;
  AttnShape shape;
  model::Tile tile;
  double exp_emulation = 0;
  bool conditional_rescale = false;
  bool two_cta = false;
  Cycles cycles;
  std::string tile_bottleneck;  // model::to_string(Unit)
  double tile_time_cycles = 0;
  double time_s = 0;
  double flops = 0;
  double tflops = 0;
  double fraction_of_peak = 0;
  std::string bottleneck;  // model::to_string(Unit)
  std::string model_version;
};

enum class MeasurementStatus { ok, failed, skipped };
std::string_view to_string(MeasurementStatus status);
// "ok", "failed" or "skipped"; nullopt for anything else.
std::optional<MeasurementStatus> parse_measurement_status(std::string_view text);

// The source of our own measurements; a peer's is "peer:<runner>" ("peer:torch-cudnn").
inline constexpr std::string_view kOurSource = "ours";

// One kernel timed (or tried) on one problem. An ok measurement has times and tflops; a failed or
// skipped one has a reason and no times.
struct Measurement {
  AttnShape shape;
  Pass pass = Pass::fwd;
  std::string kernel;
  std::string source{kOurSource};  // kOurSource, 'peer:torch-cudnn', ...
  std::string device;           // CUDA device name
  MeasurementStatus status = MeasurementStatus::ok;
  std::string reason;  // why it failed or was skipped; empty when ok
  double median_s = 0, p25_s = 0, p75_s = 0, min_s = 0, max_s = 0;
  double tflops = 0;
  double sm_clock_mhz = 0;              // 0: not read (stored as NULL)
  std::vector<double> samples_s;        // every timed sample, in the order taken
  // The round of each sample (bench --ab: kernels timed in alternating rounds), one per sample;
  // empty when the measurement was not taken in rounds. The statistics above are then those of
  // the rounds' medians (core/stats.hpp, round_medians), and sm_clock_mhz the rounds' median.
  std::vector<int> sample_rounds;
  std::optional<std::int64_t> prediction_id;  // the model's prediction for the same problem
  // Where an imported measurement came from ("<peer run id>/<kernel>/<pass>/<problem>"): unique
  // in the database, so importing it again is a no-op. Empty for our own measurements.
  std::string import_key;
};

// One imported run: what it says about itself, and its measurements.
struct ImportedRun {
  RunInfo info;  // kind import
  std::vector<Measurement> measurements;
  // The devices of its measurements that no hardware model knows: their TFLOP/s were checked
  // against no peak (the importer warns).
  std::vector<std::string> unknown_devices;
};

struct ImportCounts {
  std::int64_t runs = 0;          // runs created (a run whose rows were all present creates none)
  std::int64_t added = 0;         // measurements recorded
  std::int64_t already_present = 0;  // skipped: their import_key was already recorded
};

// One unit ceiling measured by 'fa4-analyze ceilings'.
struct Ceiling {
  std::string device;      // CUDA device name
  std::string unit;        // "wgmma_bf16", "mma_sync_bf16", "gemm_bf16", "mufu_ex2", ...
  double value = 0;        // in value_unit
  std::string value_unit;  // "TFLOP/s", "Tops/s", "TB/s"
  double per_sm_per_clk = 0;  // 0: not applicable (stored as NULL)
  double sm_clock_mhz = 0;    // 0: not read
  double median_s = 0;
  std::vector<double> samples_s;
  std::string method;  // one line: what was timed
};

// A measurement as the report compares it: the latest of its (device, kernel, source, problem).
struct MeasurementRow {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string started_at;  // of the run
  std::string revision;    // of the run
  std::string device;
  std::string kernel;
  std::string source;  // kOurSource, 'peer:torch-cudnn', ...
  AttnShape shape;
  Pass pass = Pass::fwd;
  MeasurementStatus status = MeasurementStatus::ok;
  std::string reason;
  double median_s = 0, tflops = 0;  // 0 unless ok
  double predicted_tflops = 0;      // the linked prediction's; 0 when none
  std::string predicted_gpu;        // its hardware model id
  // Every timed sample, in the order taken; for a measurement taken in rounds (bench --ab) the
  // median of each round, in round order (core/stats.hpp, round_medians): what its statistics
  // and flags are of.
  std::vector<double> samples_s;

  bool ours() const { return source == kOurSource; }  // not a peer's
  bool ok() const { return status == MeasurementStatus::ok; }
};

struct CeilingRow {
  std::int64_t run_id = 0;
  std::string started_at;
  Ceiling ceiling;
};

// A kernel on a problem: one configuration of a bench sweep.
struct MeasuredConfig {
  std::string kernel;
  AttnShape shape;
  Pass pass = Pass::fwd;
  friend bool operator==(const MeasuredConfig&, const MeasuredConfig&) = default;
};

struct OpenOptions {
  // false: refuse a missing file ("run 'fa4-analyze predict' first") instead of creating it.
  bool create = true;
  // true: open for reading only (never creates): the file and its folder may be read-only (a
  // read-only folder or mount is read as immutable), nothing is written, and a damaged database
  // is opened, not refused: the caller asks check_integrity() and warns. A database of an older
  // schema is read through a copy migrated in memory; the file is never upgraded by a reader.
  bool read_only = false;
  // How long to wait for another process that holds the database's lock: long enough for
  // another fa4-analyze to record a large batch, so concurrent writers queue rather than fail.
  std::chrono::milliseconds busy_timeout{30000};
};

// Which of the report's predictions to read (Store::for_each_report_row).
struct ReportRowFilter {
  std::string_view gpu = {};  // only this GPU's; empty: every GPU's
  bool square_only = false;   // only shapes with seqlen_q = seqlen_k
};

// How far an integrity check got without finding damage.
enum class IntegrityCheck {
  whole,      // every page checked
  cut_short,  // stopped at its time budget; what it checked was whole
};

class PredictionInserter;

// A prediction run recorded in batches inside one transaction, so that memory stays bounded
// however many predictions the run has: nothing is visible to readers, or kept, unless commit()
// succeeds; destroyed uncommitted, it rolls back. The Store that began it must outlive it.
class PredictionRunWriter {
 public:
  PredictionRunWriter(PredictionRunWriter&&) noexcept;
  PredictionRunWriter& operator=(PredictionRunWriter&&) = delete;
  ~PredictionRunWriter();

  // Records a batch with its factors; on an error the whole run is to be abandoned.
  Status add(std::span<const model::Prediction> batch);
  std::size_t recorded() const { return recorded_; }
  // Commits the run; its id.
  Result<std::int64_t> commit();

 private:
  friend class Store;
  PredictionRunWriter(std::string path, Transaction tx, std::int64_t run_id,
                      std::unique_ptr<PredictionInserter> inserter);
  std::string path_;
  Transaction tx_;
  std::int64_t run_id_;
  std::unique_ptr<PredictionInserter> inserter_;
  std::size_t recorded_ = 0;
};

class Store {
 public:
  // Opens `path` (":memory:" for a private in-memory database): creates a new database, or opens
  // an fa4-analyze database and migrates it to the latest schema. Refuses, without modifying the
  // file, anything else: a file that is not SQLite, an SQLite database of another program, a
  // database of a newer schema, a damaged database (see check_integrity), a read-only file or
  // folder, a database locked by another process.
  static Result<Store> open(const std::string& path, const OpenOptions& options = {});

  // The integrity check (PRAGMA integrity_check up to 16 MiB, quick_check above): an error that
  // names the damage and how to recover from it, or how far it got: whole, or cut short when it
  // ran past `budget` (a reader's bound; writers check whole when they open).
  Result<IntegrityCheck> check_integrity(
      std::optional<std::chrono::milliseconds> budget = std::nullopt) const;

  const std::string& path() const { return path_; }

  // Starts a run (a rerun is a new run); returns its id. Inside a transaction, part of it.
  Result<std::int64_t> begin_run(const RunInfo& info);
  // Records the predictions of a run, with their factors: all of them or, on any error, none.
  // Returns their ids, in the order given.
  Result<std::vector<std::int64_t>> record_predictions(
      std::int64_t run_id, const std::vector<model::Prediction>& predictions);
  // Starts a run and records its predictions in one transaction: a run whose recording is
  // interrupted (killed, disk full) leaves nothing behind. Returns the run's id.
  // Starts a run whose predictions come in batches (a sweep of any size in bounded memory).
  Result<PredictionRunWriter> begin_prediction_run(const RunInfo& info);
  Result<std::int64_t> record_prediction_run(const RunInfo& info,
                                             const std::vector<model::Prediction>& predictions);
  // Records one measurement and its samples in one transaction; returns the measurement's id.
  Result<std::int64_t> record_measurement(std::int64_t run_id, const Measurement& m);
  // Records measurements with their samples in one transaction (bench --ab's pair): all or none.
  // Returns their ids, in the order given.
  Result<std::vector<std::int64_t>> record_measurements(std::int64_t run_id,
                                                        std::span<const Measurement> ms);
  // Records imported runs in one transaction: all of them or, on any error, none. Measurements
  // whose import_key is already recorded are counted, not added again.
  Result<ImportCounts> import_runs(const std::vector<ImportedRun>& runs);
  // Records a run's ceilings with their samples: all or none.
  Status record_ceilings(std::int64_t run_id, const std::vector<Ceiling>& ceilings);
  // Records published figures, replacing earlier copies of the same figure: all or none.
  Status record_published(const std::vector<PublishedFigure>& figures);

  // Every run, oldest first, with its counts of predictions and measurements.
  Result<std::vector<RunRow>> list_runs() const;
  // Runs one read-only statement that returns rows. Statements that would write (DROP, INSERT,
  // ...) or change the connection (BEGIN, ATTACH, PRAGMA x = y) are refused, as are reads of
  // anything but the tool's tables and views (and SQLite's catalogue, PRAGMA and JSON table
  // functions) and the functions no read needs (fts3_tokenizer, load_extension).
  Result<QueryResult> query(std::string_view sql) const;
  // The same statement's rows one at a time, in bounded memory: its column names first, then
  // each row until the rows end or `on_row` returns false. `interrupt`, when given, is asked now
  // and then while the statement runs (every thousand or so of its steps); true stops it with an
  // error.
  Status query_rows(std::string_view sql,
                    const std::function<void(std::vector<std::string>)>& on_columns,
                    const std::function<bool(std::vector<Value>)>& on_row,
                    const std::function<bool()>& interrupt = {}) const;
  // The latest run's predictions for each (gpu, algorithm, pass, shape), ordered by gpu,
  // algorithm, pass, dtype, causal, head dims, batch, heads and sequence lengths.
  Result<std::vector<ReportRow>> predictions_for_report() const;
  // The same rows one at a time, those `filter` keeps, so that a reader of millions need not hold
  // them: `visit` is called with each in turn.
  Status for_each_report_row(const ReportRowFilter& filter,
                             const std::function<void(const ReportRow&)>& visit) const;
  // The latest measurement of each (device, kernel, source, problem), with its samples, ordered by
  // device, pass, dtype, causal, head dims, batch, heads, seqlens, kernel.
  Result<std::vector<MeasurementRow>> measurements_for_report() const;
  // The configurations measured on `device` by `source` in any run with status ok or skipped
  // (a failed one is not counted: it is measured again): what `bench --resume` skips.
  Result<std::vector<MeasuredConfig>> measured_configurations(
      std::string_view device, std::string_view source = kOurSource) const;
  // The latest ceiling of each (device, unit), ordered by device and unit.
  Result<std::vector<CeilingRow>> latest_ceilings() const;

 private:
  Store(std::string path, Db db) : path_(std::move(path)), db_(std::move(db)) {}
  static Result<Store> open_once(const std::string& path, const OpenOptions& options, bool& busy);
  Status check_run_exists(std::int64_t run_id) const;
  // Fills each row's samples_s from the samples table.
  Status read_samples(std::vector<MeasurementRow>& rows) const;
  // Inside the caller's transaction; returns the predictions' ids.
  Result<std::vector<std::int64_t>> insert_predictions(
      std::int64_t run_id, const std::vector<model::Prediction>& predictions);
  // Inside the caller's transaction; returns the measurement's id.
  Result<std::int64_t> insert_measurement(std::int64_t run_id, const Measurement& m);

  std::string path_;
  Db db_;
};

// The runs as a query would return them, one column per RunRow field (command_line last, being
// the widest).
QueryResult to_query_result(const std::vector<RunRow>& runs);

}  // namespace fa4::store
