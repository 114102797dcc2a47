// Store::measured_configurations: what `bench --resume` finds already recorded.
#include <fmt/format.h>

#include "store/problem_columns.hpp"
#include "store/store.hpp"

namespace fa4::store {

Result<std::vector<MeasuredConfig>> Store::measured_configurations(std::string_view device,
                                                                   std::string_view source) const {
  auto select = Statement::prepare(
      db_.get(), fmt::format("SELECT DISTINCT kernel, {} FROM measurements WHERE device = ? AND "
                             "source = ? AND status IN ('ok', 'skipped')",
                             kProblemColumns));
  if (!select) return select.error();
  select->bind(1, device).bind(2, source);
  std::vector<MeasuredConfig> out;
  for (;;) {
    auto row = select->step();
    if (!row) return Error{fmt::format("{}: {}", path_, row.error().message)};
    if (!*row) return out;
    auto problem = read_problem(*select, 1);
    if (!problem) return problem.error();
    out.push_back({select->column_text(0), problem->first, problem->second});
  }
}

}  // namespace fa4::store
