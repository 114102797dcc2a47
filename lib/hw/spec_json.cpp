#include "hw/spec_json.hpp"

#include <cmath>
#include <cstdint>

#include "hw/figures.hpp"
#include "hw/loader.hpp"

namespace fa4::hw {
namespace {

// Whole numbers print as integers (4096, not 4096.0).
nlohmann::ordered_json number(double value) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (value == std::floor(value) && std::abs(value) < kExactIntegers)
    return static_cast<std::int64_t>(value);
  return value;
}

}  // namespace

void to_json(nlohmann::ordered_json& json, const Spec& spec) {
  json = {{"id", spec.id},
          {"name", spec.name},
          {"architecture", to_string(spec.architecture)},
          {"device_names", spec.device_names}};
  for (const Figure& figure : figures()) {
    const nlohmann::ordered_json::json_pointer at{std::string(figure.pointer)};
    json[at] = {{"value", number(figure.get(spec))},
                {"source", std::string(source_of(spec, figure.pointer))}};
  }
}

}  // namespace fa4::hw
