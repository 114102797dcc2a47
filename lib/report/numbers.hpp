// How the report writes numbers: TFLOP/s and cycles as integers, errors as signed percentages
// with one decimal, ratios with two.
#pragma once

#include <cstdint>
#include <string>

namespace fa4::report {

std::string integer(double value);         // 1613
std::string signed_percent(double value);  // +4.2%, -13.0%
std::string percent(double value);         // 4.2%
std::string ratio(double value);           // 2.00x
std::string compact(double value);         // 0.48, 4e-06, 8192: the shortest exact-enough form
// A sequence length: "8192", or "1x8192" when seqlen_q != seqlen_k.
std::string seqlen_label(std::int64_t seqlen_q, std::int64_t seqlen_k);

}  // namespace fa4::report
