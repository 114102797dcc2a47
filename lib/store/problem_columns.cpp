#include "store/problem_columns.hpp"

#include "core/ragged.hpp"

namespace fa4::store {

void bind_problem(Statement& statement, int first, const AttnShape& shape, Pass pass) {
  statement.bind(first, shape.batch)
      .bind(first + 1, shape.heads_q)
      .bind(first + 2, shape.heads_kv)
      .bind(first + 3, shape.seqlen_q)
      .bind(first + 4, shape.seqlen_k)
      .bind(first + 5, shape.headdim)
      .bind(first + 6, shape.headdim_v)
      .bind(first + 7, shape.causal)
      .bind(first + 8, shape.window)
      .bind(first + 9, shape.page_size)
      .bind(first + 10, std::string_view(format_key_counts(shape.seqlens_k)))
      .bind(first + 11, shape.splits)
      .bind(first + 12, to_string(shape.dtype))
      .bind(first + 13, to_string(pass));
}

Result<std::pair<AttnShape, Pass>> read_problem(const Statement& statement, int first) {
  AttnShape shape;
  shape.batch = statement.column_int(first);
  shape.heads_q = statement.column_int(first + 1);
  shape.heads_kv = statement.column_int(first + 2);
  shape.seqlen_q = statement.column_int(first + 3);
  shape.seqlen_k = statement.column_int(first + 4);
  shape.headdim = statement.column_int(first + 5);
  shape.headdim_v = statement.column_int(first + 6);
  shape.causal = statement.column_int(first + 7) != 0;
  shape.window = statement.column_int(first + 8);
  shape.page_size = statement.column_int(first + 9);
  auto counts = parse_key_counts(statement.column_text(first + 10), "column seqlens_k");
  if (!counts) return counts.error();
  shape.seqlens_k = std::move(counts).value();
  shape.splits = statement.column_int(first + 11);
  auto dtype = parse_dtype(statement.column_text(first + 12));
  if (!dtype) return dtype.error();
  shape.dtype = *dtype;
  auto pass = parse_pass(statement.column_text(first + 13));
  if (!pass) return pass.error();
  return std::pair{shape, *pass};
}

}  // namespace fa4::store
