// The problem columns every table has: the AttnShape (its sliding window and serving fields
// included), then the pass. seqlens_k is the text of core/ragged.hpp ("8192,100,0"; '': uniform).
#pragma once

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "store/sqlite.hpp"

namespace fa4::store {

inline constexpr std::string_view kProblemColumns =
    "batch, heads_q, heads_kv, seqlen_q, seqlen_k, headdim, headdim_v, causal, sliding_window, "
    "page_size, seqlens_k, splits, dtype, pass";
inline constexpr int kProblemColumnCount = 14;
static_assert(std::ranges::count(kProblemColumns, ',') + 1 == kProblemColumnCount);

// Binds the shape and pass to parameters first .. first + kProblemColumnCount - 1.
void bind_problem(Statement& statement, int first, const AttnShape& shape, Pass pass);

// Reads the shape and pass from columns first .. first + kProblemColumnCount - 1.
Result<std::pair<AttnShape, Pass>> read_problem(const Statement& statement, int first);

}  // namespace fa4::store
