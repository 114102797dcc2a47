// The numeric figures of a hardware model, in file order: where each lives in the JSON (its JSON
// pointer), which values it may take, how to label it and which Spec field it fills. The loader,
// the JSON writer and `fa4-analyze gpus` all iterate this one table.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "hw/spec.hpp"

namespace fa4::hw {

enum class Allowed {
  positive,          // > 0
  non_negative,      // >= 0: "this GPU has none" (A100 fp8 MMA, tensor memory before Blackwell)
  positive_integer,  // a whole number > 0
  fraction,          // in (0, 1]: a measured share of a datasheet figure
};

// How `fa4-analyze gpus` prints a value.
enum class Unit { number, compute_capability, mhz, bytes, bytes_per_s, fraction };

// The values a real GPU's figure can have, far wider than the shipped models span (a figure
// beyond them is a typo or a trap: 1e-300 B/s of HBM predicts an infinite time). A non_negative
// figure's 0 ("none") lies outside the range and is allowed too.
struct Range {
  double min, max;
};

struct Figure {
  std::string_view pointer;  // "/per_sm/mufu_ex2_per_clk"
  std::string_view label;    // "MUFU ex2/clk/SM"
  Allowed allowed;
  Range range;
  Unit unit;
  // Optional figures may be left out of a model file; the Spec keeps its default value and
  // this source. Empty for required figures.
  std::string_view source_when_absent;
  double (*get)(const Spec&);
  void (*set)(Spec&, double);
};

std::span<const Figure> figures();

// "a positive number", "a number in (0, 1]"...: what the loader says it expected.
std::string_view describe(Allowed allowed);
bool is_allowed(Allowed allowed, double value);

// Whether a value of the allowed kind also lies in the figure's range (0 of a non_negative one
// does).
bool in_range(const Figure& figure, double value);
// "a whole number from 1 to 4096", "0 (none) or a number from 1 to 1e+06": what the loader
// says it expected of a value outside the range.
std::string describe_range(const Figure& figure);

}  // namespace fa4::hw
