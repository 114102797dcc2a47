// CPU references for the attention backward pass, one query row (dQ) or one key row (dK, dV) at a
// time, so that GPU tests can check sampled rows of a large problem.
//
// Layout and semantics as reference/attention.hpp (forward); dO is laid out as O, dQ as Q, dK as
// K, dV as V. Given Q, K, V, O, LSE and dO, with scale = 1 / sqrt(headdim) and only the keys a
// query row sees (causal bottom-right aligned, as the forward):
//   D_i = sum_c dO_ic O_ic                 P_ij = exp(scale q_i.k_j - LSE_i)
//   dP_ij = dO_i.v_j                       dS_ij = P_ij (dP_ij - D_i)
//   dV_j = sum_i P_ij dO_i                 dK_j = scale sum_i dS_ij q_i
//   dQ_i = scale sum_j dS_ij k_j
// GQA/MQA: dK and dV of a kv head are summed over the query heads of its group. Fully masked rows
// (no visible key) contribute nothing and get dQ = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/attention.hpp"

namespace fa4::reference {

// The backward pass's inputs: Q, K, V (in attn), the forward's O and LSE, and dO. O and dO are
// laid out as O ([batch][heads_q][seqlen_q][headdim_v]); LSE is float32, natural log,
// [batch][heads_q][seqlen_q], -inf for fully masked rows.
struct BwdInputs {
  AttnInputs attn;
  std::vector<float> o, lse, dout;
};

// Q, K, V as random_inputs(shape, seed, stddev) gives them, dO Normal(0, stddev) rounded to the
// dtype, O and LSE from the float64 forward oracle (O rounded to the dtype, LSE to float), as a
// kernel's forward would give them. Costs a full forward on the CPU: O(batch * heads_q * seqlen_q
// * seqlen_k * (headdim + headdim_v)), spread over the machine's cores.
BwdInputs random_bwd_inputs(const AttnShape& shape, std::uint64_t seed, float stddev = 1.0f);

// One key row of a kv head: which dK and dV rows to compute.
struct KeyRowId {
  std::int64_t batch = 0, head_kv = 0, key = 0;
};

struct KeyGrads {
  std::vector<double> dk;  // headdim entries
  std::vector<double> dv;  // headdim_v entries
};

// The oracle: the formulas above in float64, from the inputs as given (O and LSE included).
// A query row costs O(seqlen_k * (headdim + headdim_v)); a key row O(heads_q / heads_kv * seqlen_q
// * (headdim + headdim_v)).
std::vector<double> oracle_dq_row(const BwdInputs& in, RowId id);  // headdim entries
KeyGrads oracle_dkv_row(const BwdInputs& in, KeyRowId id);

// A plain low-precision computation, as a framework does it in the input dtype: S = QK^T and
// dP = dO V^T accumulated exactly then rounded to the dtype; P = exp(scale S - LSE) from the saved
// LSE (as the kernels recompute it; a key row then needs no full softmax of every query row) and
// rounded to the dtype; D_i = dO_i.O_i exactly; dS = P (dP - D) rounded to the dtype; dV = P^T dO,
// dK = scale dS^T Q, dQ = scale dS K accumulated exactly then rounded to the dtype. Its distance
// from the oracle calibrates the tolerances of the kernels (FlashAttention-3's test style).
std::vector<double> low_precision_dq_row(const BwdInputs& in, RowId id);
KeyGrads low_precision_dkv_row(const BwdInputs& in, KeyRowId id);

// FlashAttention-3's backward test rule: a kernel's worst error on a gradient may be twice the
// plain low-precision computation's worst error on the same rows, plus a floor. FA3's floor is
// twice the dtype's rounding error of (reference + 0.3), its reference being itself stored in the
// dtype; ours, against a float64 oracle, is one rounding to the dtype of the largest oracle entry
// (unit roundoff 2^-8 for bf16, 2^-11 for fp16): the kernel's own final rounding, should the plain
// computation happen to be exact.
inline constexpr double kGradErrorFactor = 2.0;
double gradient_tolerance(double plain_error, double largest_oracle_entry, Dtype dtype);

// Accumulates, for one gradient tensor (dQ, dK or dV) over the rows added, the kernel's and the
// plain computation's worst |x - oracle| and the largest |oracle| entry. A NaN in the kernel's row
// counts as an infinite error; a NaN or overflow in the plain row makes the tolerance infinite,
// which fails too (the check cannot be calibrated then): neither ever passes.
struct GradCheck {
  double kernel_error = 0.0;
  double plain_error = 0.0;
  double largest_oracle = 0.0;
  std::size_t rows = 0;
  void add(std::span<const float> kernel, const std::vector<double>& plain,
           const std::vector<double>& oracle);
  double tolerance(Dtype dtype) const;
  bool passed(Dtype dtype) const;
  // "dQ ok: 64 rows, error 0.0031 (tolerance 0.0094, plain 0.0043)" style one line.
  std::string summary(std::string_view name, Dtype dtype) const;
};

}  // namespace fa4::reference
