#include "analysis/plot_gnuplot.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/child_process.hpp"
#include "common/error.hpp"

namespace sgdsim::analysis {
namespace fs = std::filesystem;
namespace {

// Text from run folders, summaries and the command line is someone else's: control characters (a newline
// would end a comment or add a data row) become spaces.
std::string plain(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') c = ' ';
  }
  return out;
}

// A gnuplot single-quoted string: gnuplot substitutes nothing inside it (no backquoted commands, no @macros,
// no escapes); a quote is written twice.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : plain(text)) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// A value gnuplot reads: a non-finite one (a trace cell of 1e400) is missing data ("set datafile missing").
std::string number(double value) {
  return std::isfinite(value) ? fmt::format("{:.10g}", value) : "NaN";
}

// The gnuplot program: SGDSIM_GNUPLOT, else "gnuplot" found on PATH; empty when there is none.
std::string find_gnuplot() {
  if (const char* custom = std::getenv("SGDSIM_GNUPLOT"); custom && *custom) {
    return access(custom, X_OK) == 0 ? custom : "";
  }
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "/usr/bin:/bin");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    const fs::path candidate = fs::path(folder.empty() ? "." : folder) / "gnuplot";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Series stay distinguishable beyond one palette: colours cycle fastest, then dash patterns, then (for
// points) point shapes, so any two of the first 10 × 5 series differ in colour or dash.
const char* const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
constexpr std::size_t palette_size = sizeof(palette) / sizeof(palette[0]);

std::string series_style(std::size_t s) {
  return fmt::format("lc rgb \"{}\" dt {}", palette[s % palette_size], 1 + (s / palette_size) % 5);
}

}  // namespace

std::string gnuplot_data(const Figure& figure) {
  std::string out;
  for (std::size_t s = 0; s < figure.series.size(); ++s) {
    if (s) out += "\n\n";
    out += "# " + plain(figure.series[s].legend) + "\n# x mean min max runs\n";
    // An empty block would shift gnuplot's index numbering; keep a placeholder row that draws nothing.
    if (figure.series[s].rows.empty()) out += "NaN NaN NaN NaN 0\n";
    for (const auto& row : figure.series[s].rows) {
      out += number(row.x) + " " + number(row.mean) + " " + number(row.min) + " " + number(row.max) + " " +
             std::to_string(row.runs) + "\n";
    }
  }
  return out;
}

std::string gnuplot_script(const Figure& figure, const std::string& image_name,
                           const std::string& data_name) {
  const bool svg = fs::path(image_name).extension() == ".svg";
  std::string gp;
  gp += "# Written by `sgdsim plot`. Edit freely and re-render in this folder with:  gnuplot " +
        plain(fs::path(image_name).replace_extension(".gp").string()) + "\n";
  gp += "# Data: " + plain(data_name) + " (per series: x, mean over seeds, min, max, number of seeds).\n";
  if (svg) {
    gp += "set terminal svg size 1000,650 dynamic noenhanced font \"sans,12\" background rgb \"white\"\n";
  } else {
    gp +=
        "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
        "  set terminal pngcairo size 1000,650 noenhanced font \"sans,11\"\n"
        "} else {\n"
        "  set terminal png size 1000,650 noenhanced\n"
        "}\n";
  }
  gp += "set output " + quoted(image_name) + "\n";
  gp += "data = " + quoted(data_name) + "\n";
  gp += "set title " + quoted(figure.title) + "\n";
  gp += "set xlabel " + quoted(figure.x_label) + "\n";
  gp += "set ylabel " + quoted(figure.y_label) + "\n";
  if (figure.log_x) gp += "set logscale x\n";
  if (figure.log_y) gp += "set logscale y\n";
  // SI prefixes (1G, 100M) rather than exponents; a log axis has its ticks at powers of ten.
  if (figure.engineering_x)
    gp += std::string("set format x \"") + (figure.log_x ? "%.0s%c" : "%.1s%c") + "\"\n";
  if (figure.engineering_y)
    gp += std::string("set format y \"") + (figure.log_y ? "%.0s%c" : "%.1s%c") + "\"\n";
  gp += "set grid\nset key outside right top box opaque\nset style fill transparent solid 0.20 noborder\n";
  gp += "set datafile missing \"NaN\"\n";
  for (std::size_t m = 0; m < figure.markers.size(); ++m) {
    const std::string x = number(figure.markers[m].x);
    gp += "set arrow from " + x + ", graph 0 to " + x + ", graph 1 nohead dashtype 2 lc rgb \"gray30\"\n";
    gp += "set label " + quoted(figure.markers[m].label) + " at " + x + ", graph " +
          fmt::format("{:.2f}", 0.97 - 0.05 * static_cast<double>(m % 15)) +
          " right font \",8\" tc rgb \"gray30\" offset -0.4,0\n";
  }
  std::string plot = "plot ";
  for (std::size_t s = 0; s < figure.series.size(); ++s) {
    const std::string index = "data index " + std::to_string(s);
    const std::string colour = series_style(s);
    const std::string title = "title " + quoted(figure.series[s].legend);
    if (s) plot += ", \\\n     ";
    if (figure.series[s].points) {
      plot += index + " using 1:2 with points " + colour + " pt " + std::to_string(1 + s % 13) + " " + title;
    } else if (figure.error_bars) {
      plot += index + " using 1:2:3:4 with yerrorlines " + colour + " lw 2 pt " + std::to_string(1 + s % 13) +
              " " + title;
    } else {
      // The band shows the spread over seeds (min to max); the line is the mean.
      plot += index + " using 1:3:4 with filledcurves lc rgb \"" + palette[s % palette_size] +
              "\" notitle, \\\n     " + index + " using 1:2 with lines " + colour + " lw 2 " + title;
    }
  }
  gp += plot + "\n";
  return gp;
}

PlotFiles write_gnuplot(const Figure& figure, const fs::path& image) {
  const std::string extension = image.extension().string();
  if (extension != ".png" && extension != ".svg") {
    throw InputError(image.string() + ": the figure must be a .png or .svg file");
  }
  if (plain(image.string()) != image.string()) {
    throw InputError(plain(image.string()) + ": the figure's file name holds control characters");
  }
  PlotFiles files{image, fs::path(image).replace_extension(".gp"), fs::path(image).replace_extension(".dat")};
  const fs::path folder = image.parent_path().empty() ? fs::path(".") : image.parent_path();
  fs::create_directories(folder);
  write_file_atomically(files.data, gnuplot_data(figure));
  write_file_atomically(files.script,
                        gnuplot_script(figure, image.filename().string(), files.data.filename().string()));
  return files;
}

void render_gnuplot(const PlotFiles& files) {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    throw std::runtime_error(
        "gnuplot not found (install it, e.g. `sudo apt install gnuplot-nox`); the script " +
        files.script.string() + " and its data are written: render them with `gnuplot " +
        files.script.filename().string() + "` in their folder");
  }
  const fs::path folder = files.script.parent_path().empty() ? fs::path(".") : files.script.parent_path();
  process::Options options;
  options.output = process::Output::capture;
  options.directory = folder;
  process::Child child = process::spawn({gnuplot, files.script.filename().string()}, options);
  const process::Exit exit = process::wait(child);
  const std::string& messages = exit.output;
  const bool ok = exit.ok();
  std::error_code error;
  if (!ok || !fs::is_regular_file(files.image, error) || fs::file_size(files.image, error) == 0) {
    throw std::runtime_error("gnuplot failed on " + files.script.string() +
                             (messages.empty() ? "" : ":\n" + messages));
  }
  if (!messages.empty()) std::fprintf(stderr, "%s", messages.c_str());
}

}  // namespace sgdsim::analysis
