// Peer results as the peer runner (scripts/peers/torch_peers.py) writes them: JSON Lines, one
// record per (peer, problem, pass), schema "fa4-peer/1" (scripts/peers/README.md). Parsed whole
// before anything is recorded, so a malformed line loads nothing.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hw/spec.hpp"
#include "store/store.hpp"

namespace fa4::store {

// One ImportedRun per peer run ("run" field), in the order first seen. A shape may carry the
// serving fields (core/shape.hpp), each optional: "page_size" and "splits" (integers, 0 or more;
// 0: contiguous, the kernel's choice) and "seqlens_k" (a ragged batch's key counts). Each
// measurement's import_key is "<run>/<kernel>/<pass>/<problem>" (a ragged batch's with " keys "
// and its counts after it); its TFLOP/s is recomputed from the median
// time with this project's FLOP convention. Errors name `origin`, the line number and the field.
// `command_line` is stored on each run; its notes say the peer's versions and `origin`.
// A record whose statistics contradict themselves (a median outside [min, max]...) or whose
// TFLOP/s exceed the dense peak of its device's model in `specs` by more than 10% is refused with
// its line, as is a key the schema does not have, a key given twice in one object or a string
// holding a control character (a newline, a NUL...: each with its JSON pointer). The device is
// matched to a model's device names in any case and spacing ("nvidia  h200 ") and stored in the
// model's spelling; one no model knows is stored single-spaced, unchecked, and listed in its
// run's unknown_devices.
Result<std::vector<ImportedRun>> parse_peer_records(std::istream& in, const std::string& origin,
                                                    const std::string& command_line,
                                                    const std::vector<hw::Spec>& specs);

}  // namespace fa4::store
