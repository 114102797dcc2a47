// Writing measurements with every sample: one transaction per measurement.
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

Result<std::int64_t> Store::record_measurement(std::int64_t run_id, const Measurement& m) {
  const bool ok = m.status == MeasurementStatus::ok;
  if (!ok && m.reason.empty())
    return Error{fmt::format("{}: a {} measurement of {} needs a reason", path_,
                             to_string(m.status), m.kernel)};
  std::string problem_placeholders = "?";
  for (int c = 1; c < kProblemColumnCount; ++c) problem_placeholders += ", ?";
  auto tx = Transaction::begin(db_.get());
  if (!tx) return Error{fmt::format("{}: {}", path_, tx.error().message)};
  if (auto exists = check_run_exists(run_id); !exists) return exists.error();
  auto insert = Statement::prepare(
      db_.get(),
      fmt::format("INSERT INTO measurements (run_id, {}, kernel, source, device, status, reason, "
                  "time_median_s, time_p25_s, time_p75_s, time_min_s, time_max_s, tflops, "
                  "sm_clock_mhz, prediction_id) VALUES (?, {}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                  "?, ?)",
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
  if (auto done = insert->run(); !done)
    return Error{fmt::format("{}: cannot record {} on {}: {}", path_, m.kernel, describe(m.shape),
                             done.error().message)};
  const std::int64_t id = sqlite3_last_insert_rowid(db_.get());
  auto sample = Statement::prepare(
      db_.get(), "INSERT INTO samples (measurement_id, sample_index, time_s) VALUES (?, ?, ?)");
  if (!sample) return sample.error();
  for (std::size_t s = 0; s < m.samples_s.size(); ++s) {
    sample->reset();
    sample->bind(1, id).bind(2, static_cast<std::int64_t>(s)).bind(3, m.samples_s[s]);
    if (auto done = sample->run(); !done)
      return Error{fmt::format("{}: sample {} of {}: {}", path_, s, m.kernel,
                               done.error().message)};
  }
  if (auto committed = tx->commit(); !committed) return committed.error();
  return id;
}

}  // namespace fa4::store
