// Writing measurements with every sample (one transaction per measurement), imported runs (one
// transaction per import) and measured ceilings.
#include <fmt/format.h>

#include "store/problem_columns.hpp"
#include "store/store.hpp"

namespace fa4::store {

std::string_view to_string(MeasurementStatus status) {
  switch (status) {
    case MeasurementStatus::ok:
      return "ok";
    case MeasurementStatus::failed:
      return "failed";
    case MeasurementStatus::skipped:
      return "skipped";
  }
  return "?";
}

std::optional<MeasurementStatus> parse_measurement_status(std::string_view text) {
  for (MeasurementStatus status :
       {MeasurementStatus::ok, MeasurementStatus::failed, MeasurementStatus::skipped})
    if (to_string(status) == text) return status;
  return std::nullopt;
}

Result<std::int64_t> Store::insert_measurement(std::int64_t run_id, const Measurement& m) {
  const bool ok = m.status == MeasurementStatus::ok;
  if (!ok && m.reason.empty())
    return Error{fmt::format("{}: a {} measurement of {} needs a reason", path_,
                             to_string(m.status), m.kernel)};
  if (!m.sample_rounds.empty() && m.sample_rounds.size() != m.samples_s.size())
    return Error{
        fmt::format("{}: the measurement of {} has {} samples and {} rounds; each sample "
                    "taken in rounds needs its round",
                    path_, m.kernel, m.samples_s.size(), m.sample_rounds.size())};
  std::string problem_placeholders = "?";
  for (int c = 1; c < kProblemColumnCount; ++c) problem_placeholders += ", ?";
  auto insert = Statement::prepare(
      db_.get(),
      fmt::format("INSERT INTO measurements (run_id, {}, kernel, source, device, status, reason, "
                  "time_median_s, time_p25_s, time_p75_s, time_min_s, time_max_s, tflops, "
                  "sm_clock_mhz, prediction_id, import_key) VALUES (?, {}, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?, ?, ?, ?, ?, ?)",
                  kProblemColumns, problem_placeholders));
  if (!insert) return insert.error();
  insert->bind(1, run_id);
  bind_problem(*insert, 2, m.shape, m.pass);
  int i = 2 + kProblemColumnCount;
  insert->bind(i, std::string_view(m.kernel))
      .bind(i + 1, std::string_view(m.source))
      .bind(i + 2, std::string_view(m.device))
      .bind(i + 3, to_string(m.status))
      .bind_or_null(i + 4, std::string_view(m.reason));
  i += 5;
  for (double value : {m.median_s, m.p25_s, m.p75_s, m.min_s, m.max_s, m.tflops}) {
    if (ok)
      insert->bind(i++, value);
    else
      insert->bind_null(i++);
  }
  if (m.sm_clock_mhz > 0)
    insert->bind(i++, m.sm_clock_mhz);
  else
    insert->bind_null(i++);
  if (m.prediction_id)
    insert->bind(i++, *m.prediction_id);
  else
    insert->bind_null(i++);
  insert->bind_or_null(i++, std::string_view(m.import_key));
  if (auto done = insert->run(); !done)
    return Error{fmt::format("{}: cannot record {} on {}: {}", path_, m.kernel, describe(m.shape),
                             done.error().message)};
  const std::int64_t id = sqlite3_last_insert_rowid(db_.get());
  auto sample = Statement::prepare(db_.get(),
                                   "INSERT INTO samples (measurement_id, sample_index, time_s, "
                                   "round_index) VALUES (?, ?, ?, ?)");
  if (!sample) return sample.error();
  for (std::size_t s = 0; s < m.samples_s.size(); ++s) {
    sample->reset();
    sample->bind(1, id).bind(2, static_cast<std::int64_t>(s)).bind(3, m.samples_s[s]);
    if (m.sample_rounds.empty())
      sample->bind_null(4);
    else
      sample->bind(4, static_cast<std::int64_t>(m.sample_rounds[s]));
    if (auto done = sample->run(); !done)
      return Error{fmt::format("{}: sample {} of {}: {}", path_, s, m.kernel,
                               done.error().message)};
  }
  return id;
}

Result<std::int64_t> Store::record_measurement(std::int64_t run_id, const Measurement& m) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  if (auto exists = check_run_exists(run_id); !exists) return exists.error();
  auto id = insert_measurement(run_id, m);
  if (!id) return id;
  if (auto committed = tx->commit(); !committed) return committed.error();
  return id;
}

Result<std::vector<std::int64_t>> Store::record_measurements(std::int64_t run_id,
                                                             std::span<const Measurement> ms) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  if (auto exists = check_run_exists(run_id); !exists) return exists.error();
  std::vector<std::int64_t> ids;
  for (const Measurement& m : ms) {
    auto id = insert_measurement(run_id, m);
    if (!id) return id.error();
    ids.push_back(*id);
  }
  if (auto committed = tx->commit(); !committed) return committed.error();
  return ids;
}

Result<ImportCounts> Store::import_runs(const std::vector<ImportedRun>& runs) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  auto present = Statement::prepare(db_.get(), "SELECT 1 FROM measurements WHERE import_key = ?");
  if (!present) return present.error();
  ImportCounts counts;
  for (const ImportedRun& run : runs) {
    std::vector<const Measurement*> fresh;
    for (const Measurement& m : run.measurements) {
      if (!m.import_key.empty()) {
        present->reset();
        auto row = present->bind(1, std::string_view(m.import_key)).step();
        if (!row) return row.error();
        if (*row) {
          ++counts.already_present;
          continue;
        }
      }
      fresh.push_back(&m);
    }
    if (fresh.empty()) continue;
    auto run_id = begin_run(run.info);
    if (!run_id) return run_id.error();
    ++counts.runs;
    for (const Measurement* m : fresh) {
      if (auto id = insert_measurement(*run_id, *m); !id)
        return Error{fmt::format("imported nothing: {}", id.error().message)};
      ++counts.added;
    }
  }
  if (auto committed = tx->commit(); !committed) return committed.error();
  return counts;
}

Status Store::record_ceilings(std::int64_t run_id, const std::vector<Ceiling>& ceilings) {
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  if (auto exists = check_run_exists(run_id); !exists) return exists;
  auto insert = Statement::prepare(
      db_.get(),
      "INSERT INTO ceilings (run_id, device, unit, value, value_unit, per_sm_per_clk, "
      "sm_clock_mhz, time_median_s, method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert) return insert.error();
  auto sample = Statement::prepare(
      db_.get(), "INSERT INTO ceiling_samples (ceiling_id, sample_index, time_s) VALUES (?, ?, ?)");
  if (!sample) return sample.error();
  for (const Ceiling& c : ceilings) {
    insert->reset();
    insert->bind(1, run_id)
        .bind(2, std::string_view(c.device))
        .bind(3, std::string_view(c.unit))
        .bind(4, c.value)
        .bind(5, std::string_view(c.value_unit));
    if (c.per_sm_per_clk > 0)
      insert->bind(6, c.per_sm_per_clk);
    else
      insert->bind_null(6);
    if (c.sm_clock_mhz > 0)
      insert->bind(7, c.sm_clock_mhz);
    else
      insert->bind_null(7);
    insert->bind(8, c.median_s).bind(9, std::string_view(c.method));
    if (auto done = insert->run(); !done)
      return Error{fmt::format("{}: recorded none of the {} ceilings: {} on {}: {}", path_,
                               ceilings.size(), c.unit, c.device, done.error().message)};
    const std::int64_t id = sqlite3_last_insert_rowid(db_.get());
    for (std::size_t s = 0; s < c.samples_s.size(); ++s) {
      sample->reset();
      sample->bind(1, id).bind(2, static_cast<std::int64_t>(s)).bind(3, c.samples_s[s]);
      if (auto done = sample->run(); !done)
        return Error{fmt::format("{}: sample {} of ceiling {}: {}", path_, s, c.unit,
                                 done.error().message)};
    }
  }
  return tx->commit();
}

}  // namespace fa4::store
