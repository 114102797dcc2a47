#include "report/measured_runs.hpp"

#include <algorithm>
#include <tuple>

namespace fa4::report {
namespace {

bool same_problem(const store::MeasurementRow& a, const store::MeasurementRow& b) {
  return a.device == b.device && a.kernel == b.kernel && a.source == b.source &&
         a.shape == b.shape && a.pass == b.pass;
}

bool same_unit(const store::CeilingRow& a, const store::CeilingRow& b) {
  return a.ceiling.device == b.ceiling.device && a.ceiling.unit == b.ceiling.unit;
}

template <class Row, class Same>
void merge(std::vector<Row>& into, const std::vector<Row>& rows, Same same) {
  for (const Row& row : rows) {
    auto held = std::find_if(into.begin(), into.end(), [&](const Row& r) { return same(r, row); });
    if (held == into.end())
      into.push_back(row);
    else if (row.started_at > held->started_at)
      *held = row;
  }
}

// Store::measurements_for_report()'s order (pass and dtype as the database's text sorts them).
auto order_key(const store::MeasurementRow& m) {
  const AttnShape& s = m.shape;
  return std::make_tuple(std::string_view(m.device), to_string(m.pass), to_string(s.dtype),
                         s.causal, s.headdim, s.headdim_v, s.batch, s.heads_q, s.heads_kv,
                         s.seqlen_q, s.seqlen_k, serving_fields(s), std::string_view(m.kernel),
                         std::string_view(m.source));
}

}  // namespace

void merge_latest(std::vector<store::MeasurementRow>& into,
                  const std::vector<store::MeasurementRow>& rows) {
  merge(into, rows, same_problem);
  std::stable_sort(into.begin(), into.end(),
                   [](const auto& a, const auto& b) { return order_key(a) < order_key(b); });
}

void merge_latest(std::vector<store::CeilingRow>& into,
                  const std::vector<store::CeilingRow>& rows) {
  merge(into, rows, same_unit);
}

}  // namespace fa4::report
