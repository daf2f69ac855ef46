#include "algorithms/protocols/protocol.hpp"

#include "algorithms/protocols/choco.hpp"
#include "algorithms/protocols/data_parallel.hpp"
#include "algorithms/protocols/dpsgd.hpp"
#include "algorithms/protocols/sparq.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

std::unique_ptr<Protocol> make_protocol(Spec& spec, const Environment& environment) {
  const std::string kind = spec.choice("kind", {"dpsgd", "choco", "sparq", "data_parallel"});
  std::unique_ptr<Protocol> protocol;
  if (kind == "dpsgd")
    protocol = std::make_unique<Dpsgd>(spec, environment);
  else if (kind == "choco")
    protocol = std::make_unique<Choco>(spec, environment);
  else if (kind == "sparq")
    protocol = std::make_unique<Sparq>(spec, environment);
  else
    protocol = std::make_unique<DataParallel>(spec, environment);
  spec.finish();
  return protocol;
}

}  // namespace sgdsim::protocols
