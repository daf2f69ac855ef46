#pragma once
// Drawing a Figure with gnuplot. The script (FILE.gp) and its data (FILE.dat, one block per series) are kept
// beside the figure, with paths relative to that folder, so the user can edit the script and re-render it
// with `gnuplot FILE.gp` there. PNG uses the cairo terminal when gnuplot has it (else the plain png one); SVG
// uses svg.
#include <filesystem>
#include <string>

#include "analysis/plot_figure.hpp"

namespace sgdsim::analysis {

struct PlotFiles {
  std::filesystem::path image;
  std::filesystem::path script;
  std::filesystem::path data;
};

// Writes FILE.gp and FILE.dat for `image` (.png or .svg, else InputError) and returns the three paths.
PlotFiles write_gnuplot(const Figure& figure, const std::filesystem::path& image);

// Runs gnuplot on the script in its folder. The program is "gnuplot" on PATH, or SGDSIM_GNUPLOT when set.
// Throws std::runtime_error with a clear message when gnuplot is missing or fails (its stderr included).
void render_gnuplot(const PlotFiles& files);

// The gnuplot script text (exposed for tests).
std::string gnuplot_script(const Figure& figure, const std::string& image_name, const std::string& data_name);
// The data text: per series a comment line with the legend, then rows "x mean min max runs", blocks separated
// by two blank lines (gnuplot's `index`).
std::string gnuplot_data(const Figure& figure);

}  // namespace sgdsim::analysis
