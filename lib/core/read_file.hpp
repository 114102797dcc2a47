// Input files read whole, safely. A named pipe (FIFO) would block a reader forever, a device such
// as /dev/zero never ends and a huge file fills the memory: only a regular file (or a link to
// one) of a bounded size is read. Errors name the file, what is wrong with it and how to fix it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fa4 {

// A kind of input file: how errors call it, the most it may hold, and where good ones are.
struct InputFileKind {
  std::string_view name;      // "sweep file"
  std::uintmax_t max_bytes;   // larger files are refused before they are read
  std::string_view examples;  // "sweeps ship in data/sweeps/"
};

// The file's bytes, or an Error: missing, permission denied, a folder, not a regular file (a
// FIFO, a device, a socket), a loop of symbolic links, or larger than `kind.max_bytes`.
Result<std::string> read_regular_file(const std::filesystem::path& file, const InputFileKind& kind);

// The same checks without reading: for a command that refuses a bad file before it starts work.
Status check_regular_file(const std::filesystem::path& file, const InputFileKind& kind);

}  // namespace fa4
