#include "report/chart_render.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/atomic_file.hpp"

namespace fa4::report {
namespace {

namespace fs = std::filesystem;

// A word for `sh -c`: single-quoted, with ' written as '\''.
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Output {
  int exit_status = -1;
  std::string text;  // stdout and stderr together
};

Output run_shell(const std::string& command) {
  Output out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    out.text.append(buffer.data(), n);
  const int status = pclose(pipe);
  out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

Status write_text(const fs::path& path, const std::string& text) {
  if (auto written = write_file_atomically(path, text); !written) return written.error();
  return Ok{};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A new folder in `folder` that only this run writes (".NAME.drawing-XXXXXX", mode 0700): a link
// planted beside the chart cannot be drawn through, and concurrent runs do not share it.
Result<fs::path> private_folder(const fs::path& folder, const std::string& name) {
  std::string pattern = (folder / ("." + name + ".drawing-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    return Error{fmt::format("cannot create a folder for gnuplot's drawing in {}: {}",
                             folder.string(), std::strerror(errno))};
  return fs::path(pattern);
}

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "(no output)" : line;
}

}  // namespace

Result<Gnuplot> find_gnuplot() {
  const char* configured = std::getenv("FA4_GNUPLOT");
  Gnuplot gnuplot{configured && *configured ? configured : "gnuplot", ""};
  const Output out = run_shell(shell_word(gnuplot.program) + " --version");
  if (out.exit_status != 0 || out.text.rfind("gnuplot", 0) != 0)
    return Error{
        fmt::format("gnuplot ('{}') could not be run ({}); install it (Debian: "
                    "gnuplot-nox, as scripts/setup.sh does) or point FA4_GNUPLOT at it",
                    gnuplot.program, first_line(out.text))};
  gnuplot.version = first_line(out.text);
  return gnuplot;
}

Status write_figure(const fs::path& folder, const Figure& figure, const Gnuplot* gnuplot) {
  if (Status finite = check_finite(figure); !finite) return finite;
  // A link or folder at any of the figure's files refuses them all, before one is written.
  for (const char* ext : {".gp", ".dat", ".svg"})
    if (Status replaceable = check_replaceable(folder / (figure.name + ext)); !replaceable)
      return replaceable;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    return Error{
        fmt::format("cannot create the chart folder {}: {}", folder.string(), ec.message())};
  const FigureFiles files = gnuplot_files(figure);
  if (auto s = write_text(folder / (figure.name + ".gp"), files.script); !s) return s;
  if (auto s = write_text(folder / (figure.name + ".dat"), files.data); !s) return s;
  if (!gnuplot) return Ok{};
  // gnuplot draws into a folder of this run's own, and the drawing then replaces NAME.svg whole.
  auto drawing_folder = private_folder(folder, figure.name);
  if (!drawing_folder) return drawing_folder.error();
  const fs::path drawing = drawing_folder->filename() / (figure.name + ".svg");
  // The folder absolute and the script as ./NAME.gp: neither is read as an option.
  const Output out = run_shell(fmt::format(
      "cd {} && {} -e {} {}", shell_word(fs::absolute(folder).string()),
      shell_word(gnuplot->program), shell_word("svg_file = " + gnuplot_string(drawing.string())),
      shell_word("./" + figure.name + ".gp")));
  std::string drawn = read_text(folder / drawing);
  fs::remove_all(*drawing_folder, ec);
  if (out.exit_status != 0 || drawn.empty())
    return Error{fmt::format("gnuplot failed on {}: {}", (folder / (figure.name + ".gp")).string(),
                             out.text.empty() ? "(no output)" : out.text)};
  return write_text(folder / (figure.name + ".svg"), drawn);
}

}  // namespace fa4::report
