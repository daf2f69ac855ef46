#pragma once
// A small RFC 4180 CSV reader and writer for the analysis outputs (trace.csv, index.csv). Cells are kept as
// text: an empty cell means "does not apply", and numbers are copied, not reformatted, so tables stay
// byte-stable.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sgdsim::analysis {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // every row has header.size() cells

  // Position of a column, or nullopt when the table has no such column.
  std::optional<std::size_t> column(const std::string& name) const;
};

// Parses CSV text; `origin` names the file in errors (InputError with the line number).
CsvTable parse_csv(const std::string& text, const std::string& origin);
CsvTable read_csv(const std::string& file);

// Quotes a cell only when it needs it (comma, quote, newline, or leading/trailing space).
std::string csv_cell(const std::string& text);
// One CSV line, newline included.
std::string csv_line(const std::vector<std::string>& cells);

// A cell as a number; nullopt for an empty or non-numeric cell.
std::optional<double> csv_number(const std::string& cell);

}  // namespace sgdsim::analysis
