// Names of the model's enums and the parsing of tile sizes.
#include <charconv>

#include <fmt/format.h>

#include "model/model.hpp"

namespace fa4::model {

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::naive: return "naive";
    case Algorithm::fa2: return "fa2";
    case Algorithm::fa3: return "fa3";
    case Algorithm::fa4: return "fa4";
  }
  return "?";
}

Result<Algorithm> parse_algorithm(std::string_view text) {
  for (Algorithm a : kAllAlgorithms)
    if (to_string(a) == text) return a;
  return Error{fmt::format("unknown kernel '{}': the model knows naive, fa2, fa3 and fa4", text)};
}

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::mma: return "mma";
    case Unit::exp_mufu: return "exp_mufu";
    case Unit::fma: return "fma";
    case Unit::smem: return "smem";
    case Unit::tmem: return "tmem";
    case Unit::hbm: return "hbm";
  }
  return "?";
}

Result<Tile> parse_tile(std::string_view text) {
  const auto x = text.find('x');
  Tile tile;
  const auto parse = [](std::string_view part, int& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size() && out > 0;
  };
  if (x == std::string_view::npos || !parse(text.substr(0, x), tile.m) ||
      !parse(text.substr(x + 1), tile.n))
    return Error{fmt::format("bad tile '{}': write it as MxN with positive integers, e.g. 128x128",
                             text)};
  return tile;
}

double TileCycles::of(Unit unit) const {
  switch (unit) {
    case Unit::mma: return mma;
    case Unit::exp_mufu: return exp_mufu;
    case Unit::fma: return fma;
    case Unit::smem: return smem;
    case Unit::tmem: return tmem;
    case Unit::hbm: return hbm;
  }
  return 0;
}

double TileCycles::max() const { return of(bottleneck); }

}  // namespace fa4::model
