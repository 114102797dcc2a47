// What each algorithm is on a given GPU: whether it runs there, its default tile, how much shared
// and tensor memory a tile needs, how many CTAs share an SM, and its overlap rule.
#pragma once

#include <optional>
#include <string>

#include "hw/spec.hpp"
#include "model/model.hpp"

namespace fa4::model {

bool is_blackwell(const hw::Spec& gpu);  // tcgen05 + tensor memory
bool is_hopper(const hw::Spec& gpu);     // wgmma, no tensor memory

// Why the algorithm cannot run on this GPU, or nothing.
std::optional<std::string> unsupported_reason(const hw::Spec& gpu, Algorithm algorithm);

// FA2-style kernels keep the warps' whole tile of K and V in their own reads (ldmatrix).
int fa2_warps(const AttnShape& shape);

// Bytes of shared memory (and tensor memory) one CTA of this tile needs.
double smem_footprint_bytes(const hw::Spec& gpu, const AttnShape& shape, Algorithm algorithm,
                            Pass pass, Tile tile);
double tmem_footprint_bytes(const hw::Spec& gpu, const AttnShape& shape, Algorithm algorithm,
                            Pass pass, Tile tile);

// Resident CTAs per SM: FA2 fits two of its 4-warp CTAs up to hd128; the Hopper and Blackwell
// kernels are persistent with one CTA per SM.
int ctas_per_sm(const AttnShape& shape, Algorithm algorithm);
bool is_persistent(Algorithm algorithm);

// Share of the smaller stream hidden behind the larger one (factors.hpp).
double overlap(const hw::Spec& gpu, Algorithm algorithm, Pass pass);

// Defaults for FA4's softmax techniques on this GPU.
double default_exp_emulation(const hw::Spec& gpu, Algorithm algorithm);

}  // namespace fa4::model
