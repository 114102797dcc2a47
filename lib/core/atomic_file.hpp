// Writing a file so that whoever reads it sees either the old file or the new one, whole: the text
// goes to a temporary file in the same folder, is flushed to disk (fsync), and is renamed over the
// target, and the folder is flushed so the rename survives a power cut. On any failure the
// temporary file is removed and the old file is left as it was; the error says why, in words
// ("disk full", "permission denied", "read-only file system"). A temporary file left by a process
// killed mid-write (".NAME.tmp-PID-N" beside NAME, its process gone) is removed by the next write
// of NAME. "-" names standard output where the caller allows it (write_output).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fa4 {

// The name that means standard output for write_output.
inline constexpr std::string_view kStandardOutput = "-";

enum class WriteOutcome {
  written,    // the file now holds the new text
  unchanged,  // the file already held exactly this text and was left untouched
};

struct AtomicWriteOptions {
  // Create the target's missing parent folders first.
  bool create_folders = false;
  // Leave the file alone (no rewrite, no new modification time) when it already holds the text.
  bool skip_if_unchanged = false;
};

// Ok when `path` may be written: missing, or a file. A symbolic link is refused (whoever planted
// it would have the tool overwrite what it points to), and so is a folder; the error says so.
Status check_replaceable(const std::filesystem::path& path);

// Replaces (or creates) `path` with `content` atomically, unless check_replaceable refuses it.
// The temporary file is created new (never opened through a link) and renamed over `path`, so
// even a link planted meanwhile is replaced itself, its target untouched. The new file keeps the
// old one's permissions (a new file gets the usual ones, 0666 less the umask).
Result<WriteOutcome> write_file_atomically(const std::filesystem::path& path,
                                           std::string_view content,
                                           const AtomicWriteOptions& options = {});

// Hands a file's text over in pieces, in order, to `write`; Ok, or why it could not produce it
// all (the write is then abandoned and the old file kept).
using TextProducer = std::function<Status(const std::function<void(std::string_view)>& write)>;

// write_file_atomically for a text too large to hold: the pieces `produce` hands over go to the
// temporary file as they come. With skip_if_unchanged they are compared with the file's as they
// come, and the temporary file is removed when they match.
Result<WriteOutcome> write_file_in_pieces(const std::filesystem::path& path,
                                          const TextProducer& produce,
                                          const AtomicWriteOptions& options = {});

// write_file_atomically, or standard output (flushed, its errors reported) when `target` is "-".
Result<WriteOutcome> write_output(const std::string& target, std::string_view content,
                                  const AtomicWriteOptions& options = {});

}  // namespace fa4
