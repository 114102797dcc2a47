// Two kernels (or a kernel and a peer) compared in alternating rounds in one process, bench --ab:
// the order of their timings, the rounds of one shape, and the loop over a sweep's shapes that
// records both measurements of each shape with the round of every sample. Apart from the GPU: the
// caller prepares each side and times one round of it, so it is built and tested without CUDA.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "store/store.hpp"

namespace fa4::orchestration {

enum class AbSide { a, b };

struct AbTurn {
  int round = 0;  // from 0
  AbSide side = AbSide::a;
  friend bool operator==(const AbTurn&, const AbTurn&) = default;
};

// The timings of `rounds` rounds in order: round r times A then B when r is even, B then A when
// it is odd (A B, B A, A B, ...), so that a speed the GPU drifts through falls on both alike: each
// side is first in half the rounds, and every turn but the first and last is next to one of the
// other side. Empty for rounds < 1.
std::vector<AbTurn> ab_schedule(int rounds);

// The least rounds bench --ab takes: a verdict needs 5 samples a side (compare::Rules), one a
// round.
inline constexpr int kMinAbRounds = 5;

// One round of one side: its samples in the order taken and the SM clock read after it (0: not
// read).
struct RoundTiming {
  std::vector<double> samples_s;
  double sm_clock_mhz = 0;
};
using RoundFn = std::function<Result<RoundTiming>()>;

// One side on one shape, made ready: its measurement as far as it is known before any timing
// (kernel, source; status ok for a side to time, else failed or skipped with the reason, and
// never timed) and, for an ok side, the function that times one round of it.
struct PreparedSide {
  store::Measurement measurement;
  RoundFn time_round;
};

struct AbRounds {
  std::array<store::Measurement, 2> sides;  // A, B
  int rounds_done = 0;
  bool stopped = false;  // the stop flag ended the rounds early
};

// Told before each turn, for progress output.
using TurnFn = std::function<void(const AbTurn& turn, int rounds)>;

// Times the ok sides round by round in ab_schedule's order (a side that is not ok takes no turn)
// and fills each one's measurement: every sample with its round, the median, quartiles and
// extremes of the rounds' medians (core/stats.hpp, round_medians), TFLOP/s from `flops` over that
// median, the median of the rounds' SM clocks, and a warning in `reason` when the rounds' medians
// drifted or spread (core/stats.hpp's flags). `stop`, checked between rounds (may be null), ends
// them early; the rounds done are kept. A round's error stops the rounds with it.
Result<AbRounds> time_in_rounds(std::array<PreparedSide, 2> sides, int rounds, double flops,
                                const std::atomic<bool>* stop = nullptr, const TurnFn& turn = {});

struct AbSettings {
  std::int64_t run_id = 0;
  std::string device;  // the CUDA device name every measurement is recorded under
  int rounds = 10;
  const std::atomic<bool>* stop = nullptr;  // checked before each shape and each round
};

// The two sides (A, B) of one shape, prepared; `index` counts the shapes from 0.
using PrepareFn =
    std::function<Result<std::array<PreparedSide, 2>>(const AttnShape& shape, std::size_t index)>;
// Told about each shape's pair once it is recorded (both ids), and before each turn.
using PairRecordedFn = std::function<void(const AttnShape& shape, const AbRounds& pair,
                                          std::array<std::int64_t, 2> ids)>;

struct AbSummary {
  std::size_t total = 0;     // shapes
  std::size_t recorded = 0;  // shapes whose pair was recorded
  bool stopped = false;      // the stop flag ended the sweep early (its last pair cut short)
};

// For each shape in turn: prepare, time_in_rounds, then both measurements recorded (the shape,
// `pass` and device filled in) in one transaction before the next shape. A database error stops
// it with that error; what was recorded stays.
Result<AbSummary> run_ab_sweep(store::Store& db, const std::vector<AttnShape>& shapes, Pass pass,
                               const AbSettings& settings, const PrepareFn& prepare,
                               const PairRecordedFn& recorded = {}, const TurnFn& turn = {});

}  // namespace fa4::orchestration
