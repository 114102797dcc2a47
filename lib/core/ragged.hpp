// A ragged batch's key counts (AttnShape::seqlens_k): written as text ("8192,100,0": the store's
// seqlens_k column and the --seqlens-k flag), or drawn from a named distribution with a seed (the
// sweep files' "ragged" and the --ragged flag), so that one serving batch is the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace fa4 {

// "8192,100,0"; "" for none (a uniform batch).
std::string format_key_counts(const std::vector<std::int64_t>& counts);

// The counts of "8192,100,0" (decimal digits, comma-separated, each 0 or more; "" is none).
// Errors start with `where` (the flag or column read) and say which item is wrong.
Result<std::vector<std::int64_t>> parse_key_counts(std::string_view text, const std::string& where);

// Log-uniform key counts in [min, max]: count b of a batch is floor(exp(ln min + u_b * (ln(max +
// 1) - ln min))), clamped to [min, max], where u_b = (x_b >> 11) * 2^-53 and x_b is the b-th
// output of std::mt19937_64 seeded with `seed` (the standard fixes that engine's sequence, so the
// counts are the same on every platform). Each count k has probability ln((k + 1) / k) /
// ln((max + 1) / min): short sequences are as likely per octave as long ones, as in serving.
struct RaggedDistribution {
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::int64_t seed = 0;
};

// The bounds a distribution needs: 1 <= min <= max <= 2^40, seed >= 0; errors start with `where`.
Status check_ragged(const RaggedDistribution& d, const std::string& where);

// The most sequences a distribution draws for: a batch beyond it is refused before anything is
// drawn (a typo'd batch must not allocate terabytes before validate() can refuse the shape).
inline constexpr std::int64_t kMaxRaggedBatch = std::int64_t{1} << 24;

// The `batch` counts of a checked distribution; a batch outside 1 .. kMaxRaggedBatch is an error
// that starts with `where`.
Result<std::vector<std::int64_t>> ragged_key_counts(const RaggedDistribution& d, std::int64_t batch,
                                                    const std::string& where);

// "MIN:MAX:SEED" ("128:8192:1"), checked; errors start with `where`.
Result<RaggedDistribution> parse_ragged(std::string_view text, const std::string& where);

}  // namespace fa4
