// Writing: runs, predictions with their factors, published figures. One transaction per batch.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "store/problem_columns.hpp"
#include "store/store.hpp"

namespace fa4::store {
namespace {

// Columns after run_id and the problem columns, in bind order.
constexpr std::string_view kPredictionColumns =
    "gpu, algorithm, tile_m, tile_n, exp_emulation, conditional_rescale, two_cta, cycles_mma, "
    "cycles_exp_mufu, cycles_exp_fma, cycles_fma, cycles_smem, cycles_tmem, cycles_hbm, "
    "tile_tmem_bytes, tile_bottleneck, tile_time_cycles, tensor_stream_cycles, "
    "softmax_stream_cycles, ctas, tiles, waves, time_s, flops, tflops, fraction_of_peak, "
    "bottleneck, model_version";
constexpr int kPredictionColumnCount = 28;
static_assert(std::ranges::count(kPredictionColumns, ',') + 1 == kPredictionColumnCount);

// "?, ?, ?" for `count` parameters.
std::string placeholders(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += i ? ", ?" : "?";
  return text;
}

void bind_prediction(Statement& insert, std::int64_t run_id, const model::Prediction& p) {
  insert.bind(1, run_id);
  bind_problem(insert, 2, p.shape, p.pass);
  int i = 2 + kProblemColumnCount;
  const auto next = [&](auto value) { insert.bind(i++, value); };
  const model::TileCycles& c = p.tile_cycles;
  next(std::string_view(p.gpu));
  next(model::to_string(p.algorithm));
  next(std::int64_t{p.tile.m});
  next(std::int64_t{p.tile.n});
  next(p.exp_emulation);
  next(p.conditional_rescale);
  next(p.two_cta);
  next(c.mma);
  next(c.exp_mufu);
  next(c.exp_fma);
  next(c.fma);
  next(c.smem);
  next(c.tmem);
  next(c.hbm);
  next(c.tmem_bytes);
  next(model::to_string(c.bottleneck));
  next(p.tile_time_cycles);
  next(p.tensor_stream_cycles);
  next(p.softmax_stream_cycles);
  next(p.ctas);
  next(p.tiles);
  next(p.waves);
  next(p.time_s);
  next(p.flops);
  next(p.tflops);
  next(p.fraction_of_peak);
  next(model::to_string(p.bottleneck));
  next(std::string_view(p.model_version));
}

Status insert_factors(Statement& insert, std::int64_t prediction_id, const model::Prediction& p) {
  for (std::size_t position = 0; position < p.factors.size(); ++position) {
    const model::Factor& f = p.factors[position];
    insert.reset();
    insert.bind(1, prediction_id)
        .bind(2, static_cast<std::int64_t>(position))
        .bind(3, std::string_view(f.name))
        .bind(4, f.value)
        .bind(5, std::string_view(f.meaning))
        .bind_or_null(6, std::string_view(f.fitted_to));
    if (auto done = insert.run(); !done)
      return Error{fmt::format("factor '{}': {}", f.name, done.error().message)};
  }
  return Ok{};
}

}  // namespace

// The two prepared INSERTs of a prediction and its factors, reused for every prediction.
class PredictionInserter {
 public:
  static Result<PredictionInserter> prepare(sqlite3* db) {
    auto insert = Statement::prepare(
        db, fmt::format("INSERT INTO predictions (run_id, {}, {}) VALUES ({})", kProblemColumns,
                        kPredictionColumns,
                        placeholders(1 + kProblemColumnCount + kPredictionColumnCount)));
    if (!insert) return insert.error();
    auto insert_factor = Statement::prepare(
        db,
        "INSERT INTO prediction_factors (prediction_id, position, name, value, meaning, "
        "fitted_to) VALUES (?, ?, ?, ?, ?, ?)");
    if (!insert_factor) return insert_factor.error();
    return PredictionInserter(db, std::move(insert).value(), std::move(insert_factor).value());
  }

  // Inserts one prediction with its factors; its id. An error names the prediction by its
  // position among `total`.
  Result<std::int64_t> insert(std::int64_t run_id, const model::Prediction& p, std::size_t position,
                              std::size_t total, const std::string& path) {
    // A time or rate that is no finite positive number (hardware figures at the ends of their
    // ranges, a model fault) is refused: SQLite would keep Inf, or NULL for NaN, and every report
    // after would print it. Every prediction the tool stores (predict's, bench's) passes here.
    if (!(std::isfinite(p.time_s) && p.time_s > 0 && std::isfinite(p.tflops) && p.tflops > 0))
      return Error{fmt::format(
          "{}: recorded none of the {} predictions: prediction {} ({} {} {} on {}): the model "
          "predicts {} s ({} TFLOP/s), not a finite positive time (NaN or Inf); check that GPU's "
          "figures (fa4-analyze gpus show {}) and the shape",
          path, total, position + 1, model::to_string(p.algorithm), to_string(p.pass),
          describe(p.shape), p.gpu, p.time_s, p.tflops, p.gpu)};
    insert_.reset();
    bind_prediction(insert_, run_id, p);
    Status done = insert_.run();
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    if (done) done = insert_factors(insert_factor_, id, p);
    if (done) return id;
    const bool null = done.error().message.find("NOT NULL") != std::string::npos;
    return Error{
        fmt::format("{}: recorded none of the {} predictions: prediction {} ({} {} {} on {}): {}{}",
                    path, total, position + 1, model::to_string(p.algorithm), to_string(p.pass),
                    describe(p.shape), p.gpu, done.error().message,
                    null ? " (SQLite stores NaN as NULL: the model produced a NaN)" : "")};
  }

 private:
  PredictionInserter(sqlite3* db, Statement insert, Statement insert_factor)
      : db_(db), insert_(std::move(insert)), insert_factor_(std::move(insert_factor)) {}
  sqlite3* db_;
  Statement insert_;
  Statement insert_factor_;
};

PredictionRunWriter::PredictionRunWriter(std::string path, Transaction tx, std::int64_t run_id,
                                         std::unique_ptr<PredictionInserter> inserter)
    : path_(std::move(path)), tx_(std::move(tx)), run_id_(run_id), inserter_(std::move(inserter)) {}
PredictionRunWriter::PredictionRunWriter(PredictionRunWriter&&) noexcept = default;
PredictionRunWriter::~PredictionRunWriter() = default;

Status PredictionRunWriter::add(std::span<const model::Prediction> batch) {
  const std::size_t total = recorded_ + batch.size();
  for (const model::Prediction& p : batch) {
    auto id = inserter_->insert(run_id_, p, recorded_, total, path_);
    if (!id) return id.error();
    ++recorded_;
  }
  return Ok{};
}

Result<std::int64_t> PredictionRunWriter::commit() {
  if (auto committed = tx_.commit(); !committed) return committed.error();
  return run_id_;
}

Result<PredictionRunWriter> Store::begin_prediction_run(const RunInfo& info) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  auto run_id = begin_run(info);
  if (!run_id) return run_id.error();
  auto inserter = PredictionInserter::prepare(db_.get());
  if (!inserter) return inserter.error();
  return PredictionRunWriter(path_, std::move(tx).value(), *run_id,
                             std::make_unique<PredictionInserter>(std::move(inserter).value()));
}

std::string_view to_string(RunKind kind) {
  switch (kind) {
    case RunKind::predict:
      return "predict";
    case RunKind::bench:
      return "bench";
    case RunKind::import:
      return "import";
    case RunKind::ceilings:
      return "ceilings";
  }
  return "?";
}

Result<std::int64_t> Store::begin_run(const RunInfo& info) {
  auto insert = Statement::prepare(
      db_.get(),
      "INSERT INTO runs (kind, revision, host, command_line, device, driver, cuda_version, notes) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert) return insert.error();
  insert->bind(1, to_string(info.kind))
      .bind(2, std::string_view(info.revision))
      .bind(3, std::string_view(info.host))
      .bind(4, std::string_view(info.command_line))
      .bind_or_null(5, std::string_view(info.device))
      .bind_or_null(6, std::string_view(info.driver))
      .bind_or_null(7, std::string_view(info.cuda_version))
      .bind_or_null(8, std::string_view(info.notes));
  if (auto done = insert->run(); !done)
    return Error{fmt::format("{}: cannot start a run: {}", path_, done.error().message)};
  return sqlite3_last_insert_rowid(db_.get());
}

Status Store::check_run_exists(std::int64_t run_id) const {
  auto select = Statement::prepare(db_.get(), "SELECT 1 FROM runs WHERE id = ?");
  if (!select) return select.error();
  auto row = select->bind(1, run_id).step();
  if (!row) return row.error();
  if (!*row)
    return Error{fmt::format("{} has no run {}: start one with begin_run first", path_, run_id)};
  return Ok{};
}

Result<std::vector<std::int64_t>> Store::record_predictions(
    std::int64_t run_id, const std::vector<model::Prediction>& predictions) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  if (auto exists = check_run_exists(run_id); !exists) return exists.error();
  auto ids = insert_predictions(run_id, predictions);
  if (!ids) return ids;
  if (auto committed = tx->commit(); !committed) return committed.error();
  return ids;
}

Result<std::int64_t> Store::record_prediction_run(
    const RunInfo& info, const std::vector<model::Prediction>& predictions) {
  auto writer = begin_prediction_run(info);
  if (!writer) return writer.error();
  if (auto done = writer->add(predictions); !done) return done.error();
  return writer->commit();
}

Result<std::vector<std::int64_t>> Store::insert_predictions(
    std::int64_t run_id, const std::vector<model::Prediction>& predictions) {
  auto inserter = PredictionInserter::prepare(db_.get());
  if (!inserter) return inserter.error();
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    auto id = inserter->insert(run_id, predictions[i], i, predictions.size(), path_);
    if (!id) return id.error();
    ids.push_back(*id);
  }
  return ids;
}

Status Store::record_published(const std::vector<PublishedFigure>& figures) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  auto upsert = Statement::prepare(
      db_.get(),
      fmt::format("INSERT INTO published (source, citation, gpu, kernel, {0}, tflops, notes) "
                  "VALUES ({1}) ON CONFLICT (source, gpu, kernel, {0}) DO UPDATE SET "
                  "citation = excluded.citation, tflops = excluded.tflops, notes = excluded.notes",
                  kProblemColumns, placeholders(4 + kProblemColumnCount + 2)));
  if (!upsert) return upsert.error();
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const PublishedFigure& f = figures[i];
    upsert->reset();
    upsert->bind(1, std::string_view(f.source))
        .bind(2, std::string_view(f.citation))
        .bind(3, std::string_view(f.gpu))
        .bind(4, std::string_view(f.kernel));
    bind_problem(*upsert, 5, f.shape, f.pass);
    upsert->bind(5 + kProblemColumnCount, f.tflops)
        .bind_or_null(6 + kProblemColumnCount, std::string_view(f.notes));
    if (auto done = upsert->run(); !done) {
      return Error{
          fmt::format("{}: recorded none of the {} published figures: figure {} ({} {} "
                      "{} on {}): {}",
                      path_, figures.size(), i + 1, f.source, f.kernel, describe(f.shape), f.gpu,
                      done.error().message)};
    }
  }
  return tx->commit();
}

}  // namespace fa4::store
