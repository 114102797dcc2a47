// The terms a prediction paid beyond its algorithm's core, named as the profile rows name them
// (profiles.cpp), for its trace: `model` prints them above the factors they priced.
#include "model/predict_internal.hpp"

namespace fa4::model::internal {

std::vector<std::string_view> terms_paid(const Options& o, const Prediction& p) {
  std::vector<std::string_view> out;
  const auto pay = [&](bool on, std::string_view term) {
    if (on) out.push_back(term);
  };
  pay(o.deterministic, "deterministic kernel (dQ in a fixed order)");
  pay(o.fixed_step_cost, "fixed step cost");
  pay(p.two_cta, "2-CTA pair");
  pay(o.split_dq_backward, "split dQ kernels");
  pay(o.shared_tmem_columns_backward, "shared tensor-memory columns");
  pay(o.single_tile_grid, "single-tile grid");
  pay(o.group_reduced_key_grads, "group-reduced dK dV");
  pay(o.fixed_order_tiles, "fixed tile order");
  pay(o.layout_copies, "layout copies");
  pay(o.serial_smem_mma, "shared memory after the MMA");
  pay(o.dq_adds_spill_l2, "dQ adds in HBM");
  pay(p.row_max_on_load, "row max from the load");
  pay(o.group_walking_backward == DqAdd::tensor_reduce,
      "the lab's Hopper schedule, dQ by bulk reduce-adds");
  pay(o.group_walking_backward == DqAdd::atomics, "the lab's Hopper schedule, dQ by atomics");
  pay(o.hidden_dq_reductions, "dQ reductions hidden under the port-bound loop");
  pay(o.decode == DecodePartition::chosen, "GQA-packed decode, the balanced partition");
  pay(o.decode == DecodePartition::whole_row_blocks, "GQA-packed decode, whole row blocks");
  pay(o.after_l2_flush, "after the L2 flush");
  return out;
}

}  // namespace fa4::model::internal
