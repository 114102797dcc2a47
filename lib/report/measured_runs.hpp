// Measurements and ceilings from several results databases (the user's and the shipped reference
// runs in data/runs/) as one set: the latest of each (device, kernel, source, problem) and of each
// (device, unit), by the start time of its run.
#pragma once

#include <vector>

#include "store/store.hpp"

namespace fa4::report {

// Adds `rows` to `into`, each replacing a row of the same device, kernel, source, shape and pass
// that started earlier; a row that started at the same time or earlier than the one held is
// dropped. `into` ends in Store::measurements_for_report()'s order.
void merge_latest(std::vector<store::MeasurementRow>& into,
                  const std::vector<store::MeasurementRow>& rows);
// The same for ceilings, by device and unit, in the order of first appearance.
void merge_latest(std::vector<store::CeilingRow>& into, const std::vector<store::CeilingRow>& rows);

}  // namespace fa4::report
