#include "topologies/edge_list.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::topology {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

EdgeFile read_edge_list(const std::string& path, std::size_t max_node) {
  const std::string text = read_regular_file(path, max_text_file_bytes);
  return parse_edge_list(text, path, max_node);
}

EdgeFile parse_edge_list(std::string_view text, const std::string& path, std::size_t max_node) {
  EdgeFile file;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) newline = text.size();
    std::string_view line = text.substr(start, newline - start);
    start = newline + 1;
    ++number;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::size_t ids[2];
    std::size_t count = 0;
    const char* p = line.data();
    const char* end = p + line.size();
    while (true) {
      while (p < end && is_space(*p)) ++p;
      if (p == end) break;
      if (count == 2) throw InputError(where + "expected two node ids \"a b\", found more");
      unsigned long long id = 0;
      auto [next, error] = std::from_chars(p, end, id);
      if (error != std::errc() || (next < end && !is_space(*next))) {
        const char* stop = p;
        while (stop < end && !is_space(*stop)) ++stop;
        throw InputError(where + "expected a non-negative integer node id, found \"" +
                         std::string(p, std::min<std::size_t>(stop - p, 40)) + "\"");
      }
      if (id > max_node)
        throw InputError(where + "node id " + std::to_string(id) + " is larger than " +
                         std::to_string(max_node));
      ids[count++] = static_cast<std::size_t>(id);
      p = next;
    }
    if (count == 0) continue;
    if (count == 1) throw InputError(where + "expected two node ids \"a b\", found one");
    if (ids[0] == ids[1])
      throw InputError(where + "self-loop " + std::to_string(ids[0]) + " " + std::to_string(ids[1]));
    file.edges.emplace_back(ids[0], ids[1]);
    file.nodes = std::max({file.nodes, ids[0] + 1, ids[1] + 1});
  }
  if (file.edges.empty()) throw InputError(path + ": the edge list has no edges");
  return file;
}

}  // namespace sgdsim::topology
