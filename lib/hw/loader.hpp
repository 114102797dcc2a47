// Hardware models from models/*.json: loading, with errors that name the file, the JSON pointer
// and what was expected, and finding a model by id or by the name CUDA reports for a device.
//
// A model file holds "name", "architecture" (one of spec.hpp's Architecture names: ampere, hopper,
// blackwell, blackwell-ultra), "device_names" and one object per figure (the
// figures.hpp table), each {"value": <number>, "source": "<citation>"}; per-SM figures sit
// under "per_sm". The id is the file stem: models/b200.json is "b200".
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"

namespace fa4::hw {

Result<Spec> load_spec(const std::filesystem::path& file);
// The same from the file's text: `file` names it in errors and gives the id (its stem).
Result<Spec> parse_spec(std::string_view text, const std::filesystem::path& file);

// Every *.json in the folder, in generation order: by compute capability, then by id
// (a100-sxm, h100-sxm, h200, b200, gb200, b300). Refuses an id or a device name used twice.
Result<std::vector<Spec>> load_all_specs(const std::filesystem::path& dir);

// By id, case-insensitively ("H100-SXM"), by a unique id prefix ending at a dash ("h100" finds
// "h100-sxm"), or by a device name ("NVIDIA B200"). The error lists the known ids.
Result<const Spec*> find_spec(const std::vector<Spec>& specs, std::string_view name);

// The model whose device_names holds this cudaDeviceProp::name exactly, or nullptr.
const Spec* match_device_name(const std::vector<Spec>& specs, std::string_view device_name);

// The source of the figure at this JSON pointer ("/per_sm/mufu_ex2_per_clk"); empty if none.
std::string_view source_of(const Spec& spec, std::string_view json_pointer);

}  // namespace fa4::hw
