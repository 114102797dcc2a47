// Two sides matched configuration by configuration, each pair judged (verdict.hpp), the
// unmatched ones kept and listed, and the one-line summary.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "compare/side.hpp"
#include "compare/verdict.hpp"

namespace fa4::compare {

// Which entries of each side are compared with which.
struct Pairing {
  // Only these kernels (algorithms, for predictions) on both sides; empty: every one.
  std::vector<std::string> kernels;
  // Kernel against kernel: the baseline side's `kernel` against the contender side's `against`,
  // matched by problem and device alone. Empty: each kernel against itself.
  std::string kernel, against;
};

struct Row {
  std::string db;  // the database of both entries, when the sides span several (merge_sides)
  std::string device;
  std::string kernel;  // "fa3", or "fa3 vs fa4" kernel against kernel
  std::string source;  // of the baseline's entry
  AttnShape shape;
  Pass pass = Pass::fwd;
  const Entry* baseline = nullptr;  // into the Comparison's sides
  const Entry* contender = nullptr;
  Judgement judgement;
};

// Rows point into the sides it holds: it moves, it is never copied.
struct Comparison {
  Comparison() = default;
  Comparison(Comparison&&) = default;
  Comparison& operator=(Comparison&&) = default;
  Comparison(const Comparison&) = delete;
  Comparison& operator=(const Comparison&) = delete;

  Side baseline, contender;
  bool predicted = false;  // both sides a model's predictions
  Pairing pairing;
  Rules rules;
  std::vector<Row> rows;  // measured: by device, pass, problem; predicted: the largest moves first
  std::vector<std::string> only_baseline, only_contender;  // unmatched, described

  // "a.db:2", or "fa3 of a.db:2" kernel against kernel.
  std::string baseline_name() const;
  std::string contender_name() const;
};

// Matches and judges. Refuses a measured side against a predicted one, and two sides with no
// configuration in common (saying what each has).
Result<Comparison> compare_sides(Side baseline, Side contender, const Pairing& pairing,
                                 const Rules& rules);

struct Summary {
  std::array<std::size_t, 4> counts{};  // by Verdict
  double geometric_mean = 0;            // of the ratios; 0 when none
  std::size_t unmatched = 0;
};
Summary summarize(const Comparison& comparison);
// "36 compared: 2 faster, 1 slower, 30 same, 3 unsure; geometric mean of the ratios 0.987
// (contender / baseline time); 4 unmatched"
std::string summary_line(const Comparison& comparison);

// "fa3 fwd b4 h16/16 s8192x8192 d128 bf16 causal on NVIDIA H200" (and " in a.db" when the side
// spans several databases): one entry, for the lists.
std::string describe(const Entry& entry);

}  // namespace fa4::compare
