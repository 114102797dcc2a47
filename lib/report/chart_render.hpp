// Rendering charts: each figure's gnuplot script and data written into a folder, and gnuplot run
// there to draw the SVG beside them. gnuplot is found on PATH, or at FA4_GNUPLOT when set.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "report/chart.hpp"

namespace fa4::report {

struct Gnuplot {
  std::string program;  // what is run: "gnuplot" or $FA4_GNUPLOT
  std::string version;  // its --version line: "gnuplot 5.4 patchlevel 4"
};

// The gnuplot to render with, or an error that says why there is none and how to install it.
Result<Gnuplot> find_gnuplot();

// Writes NAME.gp and NAME.dat into `folder` (created when missing), each whole or not at all
// (core/atomic_file.hpp), and, when `gnuplot` is given, runs it there to draw NAME.svg (into a
// new folder of this run's own, whose drawing then replaces NAME.svg the same way). Nothing is
// written when a value is not finite (check_finite) or any of the three files is a link or a
// folder (check_replaceable). The error names the file or gives gnuplot's message.
Status write_figure(const std::filesystem::path& folder, const Figure& figure,
                    const Gnuplot* gnuplot);

}  // namespace fa4::report
