#include "store/measured_ceilings.hpp"

#include <fmt/format.h>

#include "hw/loader.hpp"

namespace fa4::store {

std::vector<hw::MeasuredCeiling> measured_ceilings_of(const std::vector<hw::Spec>& specs,
                                                      const hw::Spec& gpu,
                                                      const std::vector<store::CeilingRow>& rows) {
  std::vector<hw::MeasuredCeiling> measured;
  for (const store::CeilingRow& row : rows) {
    const hw::Spec* model = hw::match_device_name(specs, row.ceiling.device);
    if (!model || model->id != gpu.id) continue;
    measured.push_back({.unit = row.ceiling.unit,
                        .value = row.ceiling.value,
                        .per_sm_per_clk = row.ceiling.per_sm_per_clk,
                        .provenance = fmt::format("{}, run {}, {}", row.ceiling.device, row.run_id,
                                                  row.started_at)});
  }
  return measured;
}

}  // namespace fa4::store
