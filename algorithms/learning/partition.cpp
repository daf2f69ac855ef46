#include "algorithms/learning/partition.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

// Redraws allowed when a Dirichlet draw leaves a node without samples, before giving up with an InputError.
constexpr int dirichlet_attempts = 100;

void shuffle(std::vector<std::size_t>& values, Rng& rng) {
  for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[rng.below(i)]);
}

// Node j gets the j-th of `nodes` contiguous, nearly equal slices of `order`.
std::vector<Shard> split_evenly(const std::vector<std::size_t>& order, std::size_t nodes) {
  std::vector<Shard> shards(nodes);
  const std::size_t n = order.size();
  for (std::size_t j = 0; j < nodes; ++j) {
    shards[j].assign(order.begin() + static_cast<std::ptrdiff_t>(j * n / nodes),
                     order.begin() + static_cast<std::ptrdiff_t>((j + 1) * n / nodes));
  }
  return shards;
}

// log of a Gamma(alpha, 1) variate: Marsaglia and Tsang's method (2000), with the boost
// Gamma(alpha) = Gamma(alpha + 1) U^(1/alpha) for alpha < 1. Logarithms, because for small alpha the variates
// underflow double precision.
double log_gamma_variate(double alpha, Rng& rng) {
  if (alpha < 1) {
    const double u = 1.0 - rng.uniform();  // in (0, 1]
    return log_gamma_variate(alpha + 1.0, rng) + std::log(u) / alpha;
  }
  const double d = alpha - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return std::log(d * v);
  }
}

// Proportions p ~ Dirichlet(alpha, ..., alpha) over `nodes`.
std::vector<double> dirichlet(double alpha, std::size_t nodes, Rng& rng) {
  std::vector<double> logs(nodes);
  for (double& g : logs) g = log_gamma_variate(alpha, rng);
  const double top = *std::max_element(logs.begin(), logs.end());
  double sum = 0;
  for (double& g : logs) sum += (g = std::exp(g - top));
  for (double& g : logs) g /= sum;
  return logs;
}

// Per class, a Dirichlet(alpha) draw says which fraction of that class each node receives (Hsu, Qi and Brown
// 2019): small alpha gives each node few classes, large alpha approaches the iid split.
std::vector<Shard> split_dirichlet(Spec& spec, const Dataset& train, std::size_t nodes, Rng& rng) {
  const double alpha = spec.number("alpha");
  if (train.classes < 1 || train.labels.size() != train.samples()) {
    spec.fail("kind", "a Dirichlet split needs class labels; this data set is a regression problem");
  }
  std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(train.classes));
  for (std::size_t i = 0; i < train.samples(); ++i)
    by_class[static_cast<std::size_t>(train.labels[i])].push_back(i);
  for (int attempt = 0; attempt < dirichlet_attempts; ++attempt) {
    std::vector<Shard> shards(nodes);
    for (auto& members : by_class) {
      if (members.empty()) continue;
      shuffle(members, rng);
      const std::vector<double> share = dirichlet(alpha, nodes, rng);
      const double m = static_cast<double>(members.size());
      double cumulative = 0;
      std::size_t start = 0;
      for (std::size_t j = 0; j < nodes; ++j) {
        cumulative += share[j];
        const std::size_t end =
            j + 1 == nodes ? members.size()
                           : std::min(members.size(), static_cast<std::size_t>(std::llround(cumulative * m)));
        if (end > start) {
          shards[j].insert(shards[j].end(), members.begin() + static_cast<std::ptrdiff_t>(start),
                           members.begin() + static_cast<std::ptrdiff_t>(end));
          start = end;
        }
      }
    }
    if (std::none_of(shards.begin(), shards.end(), [](const Shard& s) { return s.empty(); })) return shards;
  }
  spec.fail("alpha", "a Dirichlet split with alpha = " + json(alpha).dump() + " left some of the " +
                         std::to_string(nodes) + " nodes without samples in " +
                         std::to_string(dirichlet_attempts) +
                         " draws; raise alpha, use fewer nodes or more samples");
}

std::vector<std::size_t> all_samples(const Dataset& train) {
  std::vector<std::size_t> order(train.samples());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<Shard> split_iid(Spec&, const Dataset& train, std::size_t nodes, Rng& rng) {
  std::vector<std::size_t> order = all_samples(train);
  shuffle(order, rng);
  return split_evenly(order, nodes);
}

// The classic pathological non-iid split: consecutive nodes see consecutive classes. Regression data is
// sorted by target instead.
std::vector<Shard> split_label_sorted(Spec&, const Dataset& train, std::size_t nodes, Rng&) {
  std::vector<std::size_t> order = all_samples(train);
  const std::size_t n = order.size();
  if (train.labels.size() == n) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return train.labels[a] < train.labels[b]; });
  } else if (train.targets.size() == n) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return train.targets[a] < train.targets[b]; });
  }
  return split_evenly(order, nodes);
}

const bool registered_partition =
    partitions().add({"iid", "A uniformly random split into nearly equal shards.", {}, {}}, split_iid) &&
    partitions().add({"label_sorted",
                      "Samples sorted by label (or target), then cut into consecutive nearly equal shards.",
                      {},
                      {}},
                     split_label_sorted) &&
    partitions().add(
        {"dirichlet",
         "Per class, a Dirichlet(alpha) draw gives each node's share (Hsu, Qi and Brown 2019): small "
         "alpha gives each node few classes.",
         {keys::number("alpha", "The concentration α.").above(0)},
         {}},
        split_dirichlet);

}  // namespace

keys::Registry<PartitionFactory>& partitions() {
  static keys::Registry<PartitionFactory> family("partition", "kind",
                                                 "How training samples are assigned to nodes.", {},
                                                 keys::Shorthand{keys::Type::string, "", ""});
  return family;
}

std::vector<Shard> partition(Spec& spec, const Dataset& train, std::size_t nodes, std::uint64_t seed) {
  if (nodes == 0) throw InputError(spec.where() + ": there are no nodes to partition the data across");
  if (train.samples() < nodes) {
    spec.fail("kind", "the training set has " + std::to_string(train.samples()) +
                          " samples, fewer than the " + std::to_string(nodes) +
                          " nodes; every node needs at least one");
  }
  Rng rng = Rng::stream(seed, 0, Purpose::partition);
  std::vector<Shard> shards = partitions().factory(spec.kind_name())(spec, train, nodes, rng);
  spec.finish();
  // Ascending indices: reproducible regardless of how a shard was built, and friendlier to the cache.
  for (Shard& shard : shards) std::sort(shard.begin(), shard.end());
  return shards;
}

}  // namespace sgdsim::learning
