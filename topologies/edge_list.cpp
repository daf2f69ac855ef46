#include "topologies/edge_list.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>

#include "common/error.hpp"

namespace sgdsim::topology {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

}  // namespace

EdgeFile read_edge_list(const std::string& path, std::size_t max_node) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the edge-list file");
  EdgeFile file;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
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
        throw InputError(where + "expected a non-negative integer node id, found \"" + std::string(p, stop) +
                         "\"");
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
