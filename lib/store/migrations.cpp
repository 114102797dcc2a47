// The schema lives here, as C++ raw strings, rather than in a data/*.sql file: the migrations are
// an ordered list of frozen steps that must travel inside the binary (a results database can be
// opened from any folder, with no source tree beside it), and keeping the list, its order and the
// version numbers in one compiled file needs no embedding step in the build. SCHEMA.md beside
// this file documents the result for users; `sqlite3 fa4-results.db .schema` prints it.
//
// Rules: never edit a migration that has been committed; add a new one at the end. Every table
// that describes an attention problem has the same shape columns, in the same order, followed by
// `pass`: batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, causal, dtype, pass,
// then (from version 4, added at each table's end) sliding_window and (from version 5) page_size,
// seqlens_k, splits. Version 6 adds the samples' round_index.
#include "store/migrations.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "store/sqlite.hpp"

namespace fa4::store {
namespace {

// Version 1: runs and the model's predictions.
constexpr std::string_view kRunsAndPredictions = R"sql(
CREATE TABLE schema_version (
  version INTEGER PRIMARY KEY,
  applied_at TEXT NOT NULL  -- UTC, ISO-8601
);

-- One invocation that recorded results. Ids are never reused: the highest id is the latest run.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),  -- UTC, ISO-8601
  revision TEXT NOT NULL,      -- git describe / sha of the build
  host TEXT NOT NULL,
  command_line TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind <> ''),  -- 'predict', 'bench', 'import'
  device TEXT,                 -- CUDA device name (bench) or hardware model id (predict)
  driver TEXT,
  cuda_version TEXT,
  notes TEXT
);

CREATE TABLE predictions (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  batch INTEGER NOT NULL CHECK (batch > 0),
  heads_q INTEGER NOT NULL CHECK (heads_q > 0),
  heads_kv INTEGER NOT NULL CHECK (heads_kv > 0),
  seqlen_q INTEGER NOT NULL CHECK (seqlen_q > 0),
  seqlen_k INTEGER NOT NULL CHECK (seqlen_k > 0),
  headdim INTEGER NOT NULL CHECK (headdim > 0),
  headdim_v INTEGER NOT NULL CHECK (headdim_v > 0),
  causal INTEGER NOT NULL CHECK (causal IN (0, 1)),
  dtype TEXT NOT NULL,
  pass TEXT NOT NULL CHECK (pass IN ('fwd', 'bwd')),
  gpu TEXT NOT NULL,           -- hardware model id: models/<gpu>.json
  algorithm TEXT NOT NULL,     -- naive, fa2, fa3, fa4
  tile_m INTEGER NOT NULL CHECK (tile_m > 0),
  tile_n INTEGER NOT NULL CHECK (tile_n > 0),
  exp_emulation REAL NOT NULL CHECK (exp_emulation BETWEEN 0 AND 1),
  conditional_rescale INTEGER NOT NULL CHECK (conditional_rescale IN (0, 1)),
  two_cta INTEGER NOT NULL CHECK (two_cta IN (0, 1)),
  -- cycles one SM spends on each unit for one tile_m x tile_n tile
  cycles_mma REAL NOT NULL CHECK (cycles_mma >= 0),
  cycles_exp_mufu REAL NOT NULL CHECK (cycles_exp_mufu >= 0),
  cycles_exp_fma REAL NOT NULL CHECK (cycles_exp_fma >= 0),
  cycles_fma REAL NOT NULL CHECK (cycles_fma >= 0),
  cycles_smem REAL NOT NULL CHECK (cycles_smem >= 0),
  cycles_tmem REAL NOT NULL CHECK (cycles_tmem >= 0),
  cycles_hbm REAL NOT NULL CHECK (cycles_hbm >= 0),
  tile_tmem_bytes REAL NOT NULL CHECK (tile_tmem_bytes >= 0),
  tile_bottleneck TEXT NOT NULL,  -- the unit with the most cycles
  tile_time_cycles REAL NOT NULL CHECK (tile_time_cycles >= 0),  -- after overlap
  tensor_stream_cycles REAL NOT NULL CHECK (tensor_stream_cycles >= 0),
  softmax_stream_cycles REAL NOT NULL CHECK (softmax_stream_cycles >= 0),
  ctas REAL NOT NULL CHECK (ctas >= 0),
  tiles REAL NOT NULL CHECK (tiles >= 0),
  waves REAL NOT NULL CHECK (waves >= 0),
  time_s REAL NOT NULL CHECK (time_s > 0),
  flops REAL NOT NULL CHECK (flops > 0),
  tflops REAL NOT NULL CHECK (tflops >= 0),
  fraction_of_peak REAL NOT NULL CHECK (fraction_of_peak >= 0),
  bottleneck TEXT NOT NULL,    -- of the whole kernel
  model_version TEXT NOT NULL
);
CREATE INDEX predictions_by_run ON predictions (run_id);
CREATE INDEX predictions_by_problem ON predictions (
  gpu, algorithm, pass, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, causal,
  dtype, run_id);

-- The model's named factors behind each prediction, in the order the model lists them.
CREATE TABLE prediction_factors (
  prediction_id INTEGER NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  meaning TEXT NOT NULL,
  fitted_to TEXT,              -- NULL when derived, not fitted
  PRIMARY KEY (prediction_id, position)
) WITHOUT ROWID;

CREATE VIEW v_predictions AS
SELECT r.started_at, r.revision, r.host, r.kind AS run_kind, p.*
FROM predictions p JOIN runs r ON r.id = p.run_id;

-- For each (gpu, algorithm, pass, shape): the predictions of the latest run that predicted it.
CREATE VIEW v_latest_predictions AS
SELECT * FROM v_predictions p
WHERE p.run_id = (
  SELECT MAX(q.run_id) FROM predictions q
  WHERE q.gpu = p.gpu AND q.algorithm = p.algorithm AND q.pass = p.pass AND q.batch = p.batch
    AND q.heads_q = p.heads_q AND q.heads_kv = p.heads_kv AND q.seqlen_q = p.seqlen_q
    AND q.seqlen_k = p.seqlen_k AND q.headdim = p.headdim AND q.headdim_v = p.headdim_v
    AND q.causal = p.causal AND q.dtype = p.dtype);

CREATE VIEW v_runs AS
SELECT r.*, (SELECT COUNT(*) FROM predictions p WHERE p.run_id = r.id) AS predictions
FROM runs r;
)sql";

// Version 2: measurements with every sample, and published figures.
constexpr std::string_view kMeasurementsAndPublished = R"sql(
-- One kernel timed (or tried) on one problem; peers and imports are measurements too.
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  batch INTEGER NOT NULL CHECK (batch > 0),
  heads_q INTEGER NOT NULL CHECK (heads_q > 0),
  heads_kv INTEGER NOT NULL CHECK (heads_kv > 0),
  seqlen_q INTEGER NOT NULL CHECK (seqlen_q > 0),
  seqlen_k INTEGER NOT NULL CHECK (seqlen_k > 0),
  headdim INTEGER NOT NULL CHECK (headdim > 0),
  headdim_v INTEGER NOT NULL CHECK (headdim_v > 0),
  causal INTEGER NOT NULL CHECK (causal IN (0, 1)),
  dtype TEXT NOT NULL,
  pass TEXT NOT NULL CHECK (pass IN ('fwd', 'bwd')),
  kernel TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source <> ''),  -- 'ours', 'peer:torch-cudnn', 'published:fa4-paper'
  device TEXT NOT NULL,        -- CUDA device name
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped')),
  reason TEXT,                 -- why it failed or was skipped
  time_median_s REAL CHECK (time_median_s > 0),
  time_p25_s REAL CHECK (time_p25_s > 0),
  time_p75_s REAL CHECK (time_p75_s > 0),
  time_min_s REAL CHECK (time_min_s > 0),
  time_max_s REAL CHECK (time_max_s > 0),
  tflops REAL CHECK (tflops >= 0),
  sm_clock_mhz REAL,
  memory_clock_mhz REAL,
  prediction_id INTEGER REFERENCES predictions (id) ON DELETE SET NULL,
  CHECK ((status = 'ok') = (time_median_s IS NOT NULL AND tflops IS NOT NULL)),
  CHECK (status = 'ok' OR reason IS NOT NULL)
);
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_by_problem ON measurements (
  kernel, pass, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, causal, dtype,
  run_id);
CREATE INDEX measurements_by_prediction ON measurements (prediction_id);

-- Every timed sample of a measurement, in the order taken.
CREATE TABLE samples (
  measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
  sample_index INTEGER NOT NULL CHECK (sample_index >= 0),
  time_s REAL NOT NULL CHECK (time_s > 0),
  PRIMARY KEY (measurement_id, sample_index)
) WITHOUT ROWID;

-- Figures from papers and vendors, one per (source, gpu, kernel, problem): importing again
-- updates them in place.
CREATE TABLE published (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL CHECK (source <> ''),  -- e.g. 'fa4-paper'
  citation TEXT NOT NULL,      -- paper, table or figure, page
  gpu TEXT NOT NULL,
  kernel TEXT NOT NULL,
  batch INTEGER NOT NULL CHECK (batch > 0),
  heads_q INTEGER NOT NULL CHECK (heads_q > 0),
  heads_kv INTEGER NOT NULL CHECK (heads_kv > 0),
  seqlen_q INTEGER NOT NULL CHECK (seqlen_q > 0),
  seqlen_k INTEGER NOT NULL CHECK (seqlen_k > 0),
  headdim INTEGER NOT NULL CHECK (headdim > 0),
  headdim_v INTEGER NOT NULL CHECK (headdim_v > 0),
  causal INTEGER NOT NULL CHECK (causal IN (0, 1)),
  dtype TEXT NOT NULL,
  pass TEXT NOT NULL CHECK (pass IN ('fwd', 'bwd')),
  tflops REAL NOT NULL CHECK (tflops > 0),
  notes TEXT,
  UNIQUE (source, gpu, kernel, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v,
          causal, dtype, pass)
);

-- Measurements with their run and, when linked, the model's prediction for the same problem.
CREATE VIEW v_measurements AS
SELECT r.started_at, r.revision, r.host, m.*,
       p.gpu AS predicted_gpu, p.algorithm AS predicted_algorithm,
       p.time_s AS predicted_time_s, p.tflops AS predicted_tflops,
       m.tflops / p.tflops AS measured_over_predicted
FROM measurements m
JOIN runs r ON r.id = m.run_id
LEFT JOIN predictions p ON p.id = m.prediction_id;

DROP VIEW v_runs;
CREATE VIEW v_runs AS
SELECT r.*,
       (SELECT COUNT(*) FROM predictions p WHERE p.run_id = r.id) AS predictions,
       (SELECT COUNT(*) FROM measurements m WHERE m.run_id = r.id) AS measurements
FROM runs r;
)sql";

// Version 3: measured unit ceilings, and the key that keeps imported measurements unique.
constexpr std::string_view kCeilingsAndImports = R"sql(
-- One unit ceiling measured on a device by 'fa4-analyze ceilings'.
CREATE TABLE ceilings (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  device TEXT NOT NULL,        -- CUDA device name
  unit TEXT NOT NULL CHECK (unit <> ''),  -- 'wgmma_bf16', 'mma_sync_bf16', 'gemm_bf16', ...
  value REAL NOT NULL CHECK (value > 0),
  value_unit TEXT NOT NULL,    -- 'TFLOP/s', 'Tops/s', 'TB/s'
  per_sm_per_clk REAL,         -- the value per SM per clock at sm_clock_mhz; NULL for HBM
  sm_clock_mhz REAL,
  time_median_s REAL NOT NULL CHECK (time_median_s > 0),
  method TEXT NOT NULL
);
CREATE INDEX ceilings_by_device ON ceilings (device, unit, id);

-- Every timed sample of a ceiling probe, in the order taken.
CREATE TABLE ceiling_samples (
  ceiling_id INTEGER NOT NULL REFERENCES ceilings (id) ON DELETE CASCADE,
  sample_index INTEGER NOT NULL CHECK (sample_index >= 0),
  time_s REAL NOT NULL CHECK (time_s > 0),
  PRIMARY KEY (ceiling_id, sample_index)
) WITHOUT ROWID;

-- The latest ceiling of each (device, unit): what '--ceilings measured' uses.
CREATE VIEW v_latest_ceilings AS
SELECT r.started_at, r.revision, c.*
FROM ceilings c
JOIN runs r ON r.id = c.run_id
WHERE c.id = (SELECT MAX(id) FROM ceilings l WHERE l.device = c.device AND l.unit = c.unit);

-- Imported measurements carry the key of their origin (the peer run and the record), so
-- importing the same file again adds nothing.
ALTER TABLE measurements ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX measurements_by_import_key ON measurements (import_key)
  WHERE import_key IS NOT NULL;

-- The latest measurement of each (device, kernel, source, problem): what the report compares.
CREATE VIEW v_latest_measurements AS
SELECT * FROM v_measurements m
WHERE m.id = (SELECT MAX(l.id) FROM measurements l
              WHERE l.device = m.device AND l.kernel = m.kernel AND l.source = m.source
                AND l.pass = m.pass AND l.batch = m.batch AND l.heads_q = m.heads_q
                AND l.heads_kv = m.heads_kv AND l.seqlen_q = m.seqlen_q
                AND l.seqlen_k = m.seqlen_k AND l.headdim = m.headdim
                AND l.headdim_v = m.headdim_v AND l.causal = m.causal AND l.dtype = m.dtype);

DROP VIEW v_runs;
CREATE VIEW v_runs AS
SELECT r.*,
       (SELECT COUNT(*) FROM predictions p WHERE p.run_id = r.id) AS predictions,
       (SELECT COUNT(*) FROM measurements m WHERE m.run_id = r.id) AS measurements,
       (SELECT COUNT(*) FROM ceilings c WHERE c.run_id = r.id) AS ceilings
FROM runs r;
)sql";

// Version 4: the sliding window (core/shape.hpp, AttnShape::window; 0 for none, the value every
// earlier row gets) joins the problem columns; `published` is rebuilt so that its uniqueness
// includes it, and the latest-row views compare it.
constexpr std::string_view kSlidingWindow = R"sql(
ALTER TABLE predictions ADD COLUMN sliding_window INTEGER NOT NULL DEFAULT 0
  CHECK (sliding_window >= 0 AND (sliding_window = 0 OR causal = 1));
ALTER TABLE measurements ADD COLUMN sliding_window INTEGER NOT NULL DEFAULT 0
  CHECK (sliding_window >= 0 AND (sliding_window = 0 OR causal = 1));

CREATE TABLE published_v4 (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL CHECK (source <> ''),  -- e.g. 'fa4-paper'
  citation TEXT NOT NULL,      -- paper, table or figure, page
  gpu TEXT NOT NULL,
  kernel TEXT NOT NULL,
  batch INTEGER NOT NULL CHECK (batch > 0),
  heads_q INTEGER NOT NULL CHECK (heads_q > 0),
  heads_kv INTEGER NOT NULL CHECK (heads_kv > 0),
  seqlen_q INTEGER NOT NULL CHECK (seqlen_q > 0),
  seqlen_k INTEGER NOT NULL CHECK (seqlen_k > 0),
  headdim INTEGER NOT NULL CHECK (headdim > 0),
  headdim_v INTEGER NOT NULL CHECK (headdim_v > 0),
  causal INTEGER NOT NULL CHECK (causal IN (0, 1)),
  dtype TEXT NOT NULL,
  pass TEXT NOT NULL CHECK (pass IN ('fwd', 'bwd')),
  tflops REAL NOT NULL CHECK (tflops > 0),
  notes TEXT,
  sliding_window INTEGER NOT NULL DEFAULT 0
    CHECK (sliding_window >= 0 AND (sliding_window = 0 OR causal = 1)),
  UNIQUE (source, gpu, kernel, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v,
          causal, sliding_window, dtype, pass)
);
INSERT INTO published_v4 (id, source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q,
                          seqlen_k, headdim, headdim_v, causal, dtype, pass, tflops, notes)
SELECT id, source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim,
       headdim_v, causal, dtype, pass, tflops, notes
FROM published;
DROP TABLE published;
ALTER TABLE published_v4 RENAME TO published;

DROP VIEW v_latest_predictions;
CREATE VIEW v_latest_predictions AS
SELECT * FROM v_predictions p
WHERE p.run_id = (
  SELECT MAX(q.run_id) FROM predictions q
  WHERE q.gpu = p.gpu AND q.algorithm = p.algorithm AND q.pass = p.pass AND q.batch = p.batch
    AND q.heads_q = p.heads_q AND q.heads_kv = p.heads_kv AND q.seqlen_q = p.seqlen_q
    AND q.seqlen_k = p.seqlen_k AND q.headdim = p.headdim AND q.headdim_v = p.headdim_v
    AND q.causal = p.causal AND q.sliding_window = p.sliding_window AND q.dtype = p.dtype);

DROP VIEW v_latest_measurements;
CREATE VIEW v_latest_measurements AS
SELECT * FROM v_measurements m
WHERE m.id = (SELECT MAX(l.id) FROM measurements l
              WHERE l.device = m.device AND l.kernel = m.kernel AND l.source = m.source
                AND l.pass = m.pass AND l.batch = m.batch AND l.heads_q = m.heads_q
                AND l.heads_kv = m.heads_kv AND l.seqlen_q = m.seqlen_q
                AND l.seqlen_k = m.seqlen_k AND l.headdim = m.headdim
                AND l.headdim_v = m.headdim_v AND l.causal = m.causal
                AND l.sliding_window = m.sliding_window AND l.dtype = m.dtype);
)sql";

// Version 5: the serving fields (core/shape.hpp) join the problem columns: page_size (tokens per
// KV-cache page; 0: contiguous), seqlens_k (a ragged batch's key count per sequence, written
// "8192,100,0" by core/ragged.hpp; '': uniform) and splits (split-KV parts; 0: the kernel's
// choice), each with the value every earlier row gets. `published` is rebuilt so that its
// uniqueness includes them, and the latest-row views compare them: a paged and a contiguous
// shape, or two ragged batches with other counts, are different problems.
constexpr std::string_view kServing = R"sql(
ALTER TABLE predictions ADD COLUMN page_size INTEGER NOT NULL DEFAULT 0 CHECK (page_size >= 0);
ALTER TABLE predictions ADD COLUMN seqlens_k TEXT NOT NULL DEFAULT ''
  CHECK (seqlens_k NOT GLOB '*[^0-9,]*');
ALTER TABLE predictions ADD COLUMN splits INTEGER NOT NULL DEFAULT 0 CHECK (splits >= 0);
ALTER TABLE measurements ADD COLUMN page_size INTEGER NOT NULL DEFAULT 0 CHECK (page_size >= 0);
ALTER TABLE measurements ADD COLUMN seqlens_k TEXT NOT NULL DEFAULT ''
  CHECK (seqlens_k NOT GLOB '*[^0-9,]*');
ALTER TABLE measurements ADD COLUMN splits INTEGER NOT NULL DEFAULT 0 CHECK (splits >= 0);

CREATE TABLE published_v5 (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL CHECK (source <> ''),  -- e.g. 'fa4-paper'
  citation TEXT NOT NULL,      -- paper, table or figure, page
  gpu TEXT NOT NULL,
  kernel TEXT NOT NULL,
  batch INTEGER NOT NULL CHECK (batch > 0),
  heads_q INTEGER NOT NULL CHECK (heads_q > 0),
  heads_kv INTEGER NOT NULL CHECK (heads_kv > 0),
  seqlen_q INTEGER NOT NULL CHECK (seqlen_q > 0),
  seqlen_k INTEGER NOT NULL CHECK (seqlen_k > 0),
  headdim INTEGER NOT NULL CHECK (headdim > 0),
  headdim_v INTEGER NOT NULL CHECK (headdim_v > 0),
  causal INTEGER NOT NULL CHECK (causal IN (0, 1)),
  dtype TEXT NOT NULL,
  pass TEXT NOT NULL CHECK (pass IN ('fwd', 'bwd')),
  tflops REAL NOT NULL CHECK (tflops > 0),
  notes TEXT,
  sliding_window INTEGER NOT NULL DEFAULT 0
    CHECK (sliding_window >= 0 AND (sliding_window = 0 OR causal = 1)),
  page_size INTEGER NOT NULL DEFAULT 0 CHECK (page_size >= 0),
  seqlens_k TEXT NOT NULL DEFAULT '' CHECK (seqlens_k NOT GLOB '*[^0-9,]*'),
  splits INTEGER NOT NULL DEFAULT 0 CHECK (splits >= 0),
  UNIQUE (source, gpu, kernel, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v,
          causal, sliding_window, page_size, seqlens_k, splits, dtype, pass)
);
INSERT INTO published_v5 (id, source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q,
                          seqlen_k, headdim, headdim_v, causal, dtype, pass, tflops, notes,
                          sliding_window)
SELECT id, source, citation, gpu, kernel, batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim,
       headdim_v, causal, dtype, pass, tflops, notes, sliding_window
FROM published;
DROP TABLE published;
ALTER TABLE published_v5 RENAME TO published;

DROP VIEW v_latest_predictions;
CREATE VIEW v_latest_predictions AS
SELECT * FROM v_predictions p
WHERE p.run_id = (
  SELECT MAX(q.run_id) FROM predictions q
  WHERE q.gpu = p.gpu AND q.algorithm = p.algorithm AND q.pass = p.pass AND q.batch = p.batch
    AND q.heads_q = p.heads_q AND q.heads_kv = p.heads_kv AND q.seqlen_q = p.seqlen_q
    AND q.seqlen_k = p.seqlen_k AND q.headdim = p.headdim AND q.headdim_v = p.headdim_v
    AND q.causal = p.causal AND q.sliding_window = p.sliding_window AND q.dtype = p.dtype
    AND q.page_size = p.page_size AND q.seqlens_k = p.seqlens_k AND q.splits = p.splits);

DROP VIEW v_latest_measurements;
CREATE VIEW v_latest_measurements AS
SELECT * FROM v_measurements m
WHERE m.id = (SELECT MAX(l.id) FROM measurements l
              WHERE l.device = m.device AND l.kernel = m.kernel AND l.source = m.source
                AND l.pass = m.pass AND l.batch = m.batch AND l.heads_q = m.heads_q
                AND l.heads_kv = m.heads_kv AND l.seqlen_q = m.seqlen_q
                AND l.seqlen_k = m.seqlen_k AND l.headdim = m.headdim
                AND l.headdim_v = m.headdim_v AND l.causal = m.causal
                AND l.sliding_window = m.sliding_window AND l.dtype = m.dtype
                AND l.page_size = m.page_size AND l.seqlens_k = m.seqlens_k
                AND l.splits = m.splits);
)sql";

// Version 6: the round of each sample of a measurement taken in alternating rounds (bench --ab:
// two kernels timed A B, B A, ... in one process), NULL for every sample not taken in rounds
// (every earlier row). The measurement's statistics are then of its rounds' medians.
constexpr std::string_view kSampleRounds = R"sql(
ALTER TABLE samples ADD COLUMN round_index INTEGER CHECK (round_index >= 0);
)sql";

constexpr std::array kMigrations = {
    kRunsAndPredictions, kMeasurementsAndPublished, kCeilingsAndImports, kSlidingWindow, kServing,
    kSampleRounds};

}  // namespace

int latest_schema_version() { return static_cast<int>(kMigrations.size()); }

Result<std::optional<int>> read_schema_version(sqlite3* db) {
  auto has_table = Statement::prepare(
      db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!has_table) return has_table.error();
  if (auto row = has_table->step(); !row) return row.error();
  if (has_table->column_int(0) == 0) return std::optional<int>();
  auto version = Statement::prepare(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
  if (!version) return version.error();
  if (auto row = version->step(); !row) return row.error();
  return std::optional<int>(static_cast<int>(version->column_int(0)));
}

Status apply_migration(sqlite3* db, int version) {
  if (version < 1 || version > latest_schema_version())
    return Error{fmt::format("no migration to schema version {}", version)};
  auto tx = Transaction::begin(db);
  if (!tx) return tx.error();
  auto current = read_schema_version(db);
  if (!current) return current.error();
  const int from = current->value_or(0);
  if (from >= version) return Ok{};
  if (from != version - 1)
    return Error{fmt::format("cannot migrate from schema version {} to {}: apply {} first", from,
                             version, from + 1)};
  if (auto done = exec(db, kMigrations[static_cast<std::size_t>(version - 1)]); !done)
    return Error{
        fmt::format("migration to schema version {} failed: {}", version, done.error().message)};
  auto record = Statement::prepare(db,
                                   "INSERT INTO schema_version (version, applied_at) "
                                   "VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
  if (!record) return record.error();
  if (auto done = record->bind(1, std::int64_t{version}).run(); !done) return done.error();
  return tx->commit();
}

}  // namespace fa4::store
