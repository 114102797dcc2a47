// The implementation profiles: which terms of the model each implementation pays beyond the
// algorithm it is modeled as, one named row per special case (profiles.cpp), chosen by a neutral
// descriptor of who ran the kernel. The published figures (report/published_model.cpp), the lab's
// registered kernels (orchestration/kernel_models.cpp) and `fa4-analyze model --profile` all look
// their options up here; every release number and date the model depends on is in that table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.hpp"
#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::model {

// Who ran a kernel: a published kernel name with its variant suffixes taken off, the cuDNN
// release its source records and the date of its run, or one of the lab's registered kernels.
struct Implementation {
  std::string family;          // "cudnn", "sdpa-cudnn", "fa4", "sdpa-flash", "fa3_bwd", ...
  bool deterministic = false;  // "-deterministic": dQ summed in a fixed order
  bool one_cta = false;        // "-1cta": FA4's backward on one CTA where it would take the pair
  int release = 0;             // cuDNN backend version (92600), 0: not recorded
  std::string date;            // YYYY-MM-DD of the run, "": not recorded
  std::optional<Algorithm> algorithm;  // a figure's own choice of the model's algorithm
};

// "cudnn-deterministic" -> {cudnn, deterministic}; "fa4-1cta" -> {fa4, one CTA}.
Implementation parse_implementation(std::string_view kernel);

enum class GpuFamily { any, hopper, blackwell, blackwell_ultra };
enum class DtypeIs { any, fp8, not_fp8 };

// What a row changes in the options it is applied to (model.hpp's Options, field by field).
enum class Term {
  deterministic_kernel,     // the deterministic kernel, whatever was asked
  no_deterministic_kernel,  // one kernel for both: the plain one
  split_dq_backward,
  shared_tmem_columns_backward,
  single_tile_grid,
  two_cta,
  fixed_step_cost,
  group_reduced_key_grads,
  fixed_order_tiles,
  layout_copies,
  serial_smem_mma,
  dq_adds_spill_l2,
  software_row_max,
  row_max_on_load,
  group_walking_tensor_reduce,  // Options::group_walking_backward = DqAdd::tensor_reduce
  group_walking_atomics,        // Options::group_walking_backward = DqAdd::atomics
  hidden_dq_reductions,
  decode_packed,            // Options::decode = DecodePartition::chosen
  decode_whole_row_blocks,  // Options::decode = DecodePartition::whole_row_blocks
  after_l2_flush,
};

// What a row is matched against: the implementation, the GPU (none for the lab's kernels, whose
// rows hold on every GPU), the shape and pass, and the options the rows before it made.
struct ProfileCase {
  const Implementation& implementation;
  const hw::Spec* gpu = nullptr;
  const AttnShape& shape;
  Pass pass = Pass::fwd;
  const Options& options;
};

// One named special case: where it holds (family, GPU family, pass, dtype, a release or date from
// which, a predicate on the shape) and the term it pays.
struct Profile {
  std::string_view name;
  std::string_view family;  // "cudnn" also covers "sdpa-cudnn"; "" any
  GpuFamily gpu = GpuFamily::any;
  std::optional<Pass> pass;
  DtypeIs dtype = DtypeIs::any;
  int min_release = 0;     // the cuDNN release from which it holds (0: any, recorded or not)
  std::string_view since;  // the run date from which it holds ("": any)
  bool (*holds)(const ProfileCase&) = nullptr;  // nullptr: every shape
  Term term = Term::deterministic_kernel;
  std::string_view summary;  // one line for `model --profiles`
};

// The rows, in the order they are applied.
std::span<const Profile> profiles();

// The options an implementation runs with on this GPU and shape, and the rows it paid.
struct Configured {
  std::optional<Options> options;
  std::string not_modeled;  // the reason, when options is empty
  // The kernel walks every block of the causal triangle and masks the sliding window there,
  // skipping none (cuDNN's fp8 backward on Blackwell): modeled as the shape without its window.
  bool masks_window_without_skipping = false;
  std::vector<std::string_view> paid;  // the names of the rows applied
};
Configured configure(const Implementation& implementation, const hw::Spec& gpu,
                     const AttnShape& shape, Pass pass);

// The lab's own kernels: the rows keyed by a registered kernel's name applied to `options` (its
// algorithm, pass and tile already set), on every GPU; their names added to `paid` where given.
Options with_kernel_profile(std::string_view kernel, const AttnShape& shape, Options options,
                            std::vector<std::string_view>* paid = nullptr);

}  // namespace fa4::model
