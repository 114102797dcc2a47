// Measured decode runs for the report tests, read from the H200 figures that
// lib/kernels/decode/NOTES.md cites (data/measurements/decode/*.csv), as a results database would
// hand them to the report: the latest measurement of each kernel and problem, and the latest HBM
// ceilings.
#pragma once

#include <vector>

#include "report/report.hpp"

namespace fa4::report::testing {

inline constexpr const char* kDecodeDevice = "NVIDIA H200";

// Llama-3-8B-like decode, 32 query heads over 8, hd128, bf16: `heads_q` over 8 otherwise.
AttnShape decode_shape(std::int64_t batch, std::int64_t seqlen_q, std::int64_t seqlen_k,
                       std::int64_t heads_q = 32);

// The rows, merged latest first as the report command merges its databases (measured_runs.hpp):
// run 2's dense sweep with cuDNN and flash (its in-sequence kernel, which the notes say fa3_decode
// became, under that name; the overlapped variant not kept is left out), run 4's speculative rows
// with cuDNN, run 5's contiguous and paged caches with cuDNN on the contiguous ones, and run 10's
// kernel as it chooses its partition now, with cuDNN and flash, a paged shape and the ragged batch
// of data/sweeps/decode.json.
std::vector<store::MeasurementRow> decode_measurements();

// The latest HBM ceilings the notes give: the read probe of run 10 (4.46 TB/s), the copy of run 4
// (3.83 TB/s).
std::vector<store::CeilingRow> decode_ceilings();

// The real hardware models with the measurements and ceilings above.
ReportInputs decode_inputs();

}  // namespace fa4::report::testing
