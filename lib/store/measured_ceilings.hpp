// The measured unit ceilings of one GPU model from the database's latest ceiling rows, as the
// hardware layer takes them (hw::with_measured_ceilings): the roofline's measured roofs and
// `--ceilings measured` read them from here.
#pragma once

#include <vector>

#include "hw/measured_ceilings.hpp"
#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::store {

// The measured unit ceilings of the devices that `gpu` models, from Store::latest_ceilings().
std::vector<hw::MeasuredCeiling> measured_ceilings_of(const std::vector<hw::Spec>& specs,
                                                      const hw::Spec& gpu,
                                                      const std::vector<CeilingRow>& rows);

}  // namespace fa4::store
