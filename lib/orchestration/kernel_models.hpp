// Which configuration of the model each registered kernel is: one table, keyed by the kernel's
// registry name (lib/kernels/registry.cpp), from which bench predicts every kernel it measures.
// Plain data, in a library above lib/model and lib/kernels (neither includes the other): an entry
// names the model's algorithm, the tiles the kernel forces where they differ from the model's own
// choice, FA4's softmax techniques as the kernel applies them, and, where the model cannot express
// the kernel, the closest configuration it is predicted as.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "model/model.hpp"
#include "model/profiles.hpp"

namespace fa4::orchestration {

// A tile the kernel uses at one head dim instead of the one the model would choose.
struct ForcedTile {
  std::int64_t headdim = 0;
  model::Tile tile;
};

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct KernelModel {
  std::string_view kernel;  // the registry name
  model::Algorithm algorithm = model::Algorithm::fa3;
  Pass pass = Pass::fwd;
  std::span<const ForcedTile> tiles;  // head dims not listed: the model's tile for the algorithm
  // FA4's softmax (fa4 entries only): the share of each row's exp2 computed in software, and the
  // seqlen_k from which the kernel rescales conditionally (kNever: it always rescales).
  double exp_emulation = 0;
  std::int64_t conditional_rescale_from_seqlen_k = kNever;
  // Empty when the model expresses the kernel. Otherwise the kernel is predicted as the closest
  // configuration the model has, and this says which and what the model leaves out.
  std::string_view approximation;
};

std::span<const KernelModel> kernel_models();

// The entry of a registered kernel; an Error naming the table when the kernel has none.
Result<const KernelModel*> find_kernel_model(std::string_view kernel);

// The model's options for the kernel on this shape: its algorithm and pass, its tile where it
// forces one, and, for fa4 entries, its emulated share (none above kSoftwareExp2MaxHeaddim) and
// conditional rescaling from its seqlen_k threshold.
model::Options model_options(const KernelModel& kernel, const AttnShape& shape);

// What `fa4-analyze model --profile NAME` predicts with: "our KERNEL", a registered kernel's
// configuration (its own algorithm and pass; `pass` is not used), or a published implementation
// looked up in the model's profile table, exactly as the report models its figures.
model::Configured profile_options(const model::Implementation& implementation,
                                  const hw::Spec& gpu, const AttnShape& shape, Pass pass);

// The fa4 kernels keep every exp2 on MUFU above this head dim, whatever their share
// (lib/kernels/fa4/fa4.cu: the software path spills beside hd256's O registers).
inline constexpr std::int64_t kSoftwareExp2MaxHeaddim = 128;

}  // namespace fa4::orchestration
