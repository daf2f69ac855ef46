#include "analysis/csv_table.hpp"

#include <cmath>
#include <cstdlib>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::analysis {

std::optional<std::size_t> CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

CsvTable parse_csv(const std::string& text, const std::string& origin) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;        // inside a quoted cell
  bool cell_started = false;  // the current record has at least one character or separator
  std::size_t line = 1;
  std::size_t quote_line = 0;
  auto end_record = [&] {
    record.push_back(cell);
    cell.clear();
    records.push_back(std::move(record));
    record.clear();
    cell_started = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && cell.empty()) {
      quoted = true;
      quote_line = line;
      cell_started = true;
    } else if (c == ',') {
      record.push_back(cell);
      cell.clear();
      cell_started = true;
    } else if (c == '\n') {
      // Tolerate CRLF line ends.
      if (!cell.empty() && cell.back() == '\r') cell.pop_back();
      end_record();
      ++line;
    } else {
      cell += c;
      cell_started = true;
    }
  }
  if (quoted)
    throw InputError(origin + ": line " + std::to_string(quote_line) + ": unterminated quoted cell");
  if (cell_started) end_record();

  CsvTable table;
  if (records.empty()) throw InputError(origin + ": empty CSV file (no header)");
  table.header = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    auto& row = records[r];
    if (row.size() == 1 && row[0].empty()) continue;  // blank line
    if (row.size() != table.header.size()) {
      throw InputError(origin + ": row " + std::to_string(r + 1) + " has " + std::to_string(row.size()) +
                       " cells, the header has " + std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

CsvTable read_csv(const std::string& file) {
  // A run folder may come from anyone: a FIFO there would block, /dev/zero never end
  // (common/regular_file.hpp).
  return parse_csv(read_regular_file(file, max_text_file_bytes), file);
}

std::string csv_cell(const std::string& text) {
  const bool needs_quotes = text.find_first_of(",\"\n\r") != std::string::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_cell(cells[i]);
  }
  return out + "\n";
}

std::optional<double> csv_number(const std::string& cell) {
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || std::isnan(value)) return std::nullopt;
  return value;
}

}  // namespace sgdsim::analysis
