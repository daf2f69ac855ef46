#pragma once
// links.csv: one row per direction of every physical link, declared column by column like trace.csv (name,
// unit, meaning, and the function giving its cell), so that the file, docs/outputs.md and tools agree.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/traffic.hpp"

namespace sgdsim::observation {

struct LinkColumn {
  std::string name;
  std::string unit;
  std::string meaning;
  std::function<std::string(const sim::LinkUse&)> cell;
};

// The links.csv columns, in their order.
const std::vector<LinkColumn>& link_columns();

// links.csv: the header and one row per link direction, in platform order.
void write_links(std::ostream& out, const std::vector<sim::LinkUse>& links);

// The link direction with the highest utilisation (the first of equals); nullptr when there is no link or no
// link carried anything.
const sim::LinkUse* bottleneck(const std::vector<sim::LinkUse>& links);

}  // namespace sgdsim::observation
