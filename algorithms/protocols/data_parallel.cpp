#include "algorithms/protocols/data_parallel.hpp"

#include <cmath>

#include "algorithms/protocols/message_compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

DataParallel::DataParallel(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      parameter_server_(spec.choice("collective", {"allgather", "parameter_server"}, "allgather") ==
                        "parameter_server"),
      server_(0),
      error_feedback_(spec.boolean("error_feedback", false)),
      local_(environment),
      nodes_(environment.topology->nodes) {
  const std::size_t n = environment.topology->nodes;
  compressor_ = make_message_compressor(spec, "compressor", local_.dimension(), false);
  if (parameter_server_) {
    server_ = static_cast<std::size_t>(spec.integer("server", 0, 0, static_cast<std::int64_t>(n) - 1));
    server_compressor_ = make_message_compressor(spec, "server_compressor", local_.dimension(), false);
  }
  const std::size_t d = local_.dimension();
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.x = initial_model(environment);
    node.sum.assign(d, 0.0f);
    node.own.assign(d, 0.0f);
    if (error_feedback_) node.error.assign(d, 0.0f);
    node.compression = Rng::stream(environment.seed, i, Purpose::compression);
  }
}

void DataParallel::decode_into(const compression::Compressor& compressor, const sim::Bytes& bytes,
                               std::vector<float>& out) {
  WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
  out = compressor.decode(bytes, out.size());
}

sim::Bytes DataParallel::compress(Node& node, std::span<const float> gradient) {
  std::span<const float> message = gradient;
  if (error_feedback_) {
    for (std::size_t c = 0; c < gradient.size(); ++c) node.error[c] += gradient[c];
    message = node.error;
  }
  sim::Bytes bytes;
  {
    WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
    bytes = compressor_->encode(message, node.compression);
  }
  decode_into(*compressor_, bytes, node.own);
  const double norm = squared_norm(message);
  if (norm > 0) {
    double error = 0;
    for (std::size_t c = 0; c < message.size(); ++c) {
      const double e = static_cast<double>(node.own[c]) - message[c];
      error += e * e;
    }
    node.stats.compression_error += error / norm;
    node.stats.compressions += 1;
  }
  if (error_feedback_) axpy(node.error, -1.0f, node.own);
  return bytes;
}

void DataParallel::average_in_node_order(std::size_t i, Node& node, sim::Port& port) {
  // Node order, not arrival order, so that every node that averages computes the same floats.
  std::fill(node.sum.begin(), node.sum.end(), 0.0f);
  std::vector<float> decoded(node.x.size());
  const std::size_t n = nodes_.size();
  for (std::size_t j = 0; j < n; ++j) {
    if (j == i) {
      axpy(node.sum, 1.0f, node.own);
      continue;
    }
    const std::optional<sim::Bytes> message = port.receive(j);
    if (!message) throw std::logic_error("data-parallel received silence");
    decode_into(*compressor_, *message, decoded);
    axpy(node.sum, 1.0f, decoded);
  }
  const float scale = 1.0f / static_cast<float>(n);
  for (float& v : node.sum) v *= scale;
}

void DataParallel::allgather(std::size_t i, Node& node, const sim::Bytes& bytes, sim::Port& port) {
  const std::size_t n = nodes_.size();
  for (std::size_t j = 0; j < n; ++j) {
    if (j != i) port.send(j, bytes);
  }
  average_in_node_order(i, node, port);
  port.wait_sends();
}

void DataParallel::parameter_server(std::size_t i, Node& node, const sim::Bytes& bytes, sim::Port& port) {
  const std::size_t n = nodes_.size();
  if (i != server_) {
    port.send(server_, bytes);
    port.wait_sends();
    const std::optional<sim::Bytes> average = port.receive(server_);
    if (!average) throw std::logic_error("data-parallel received silence");
    decode_into(*server_compressor_, *average, node.sum);
    return;
  }
  average_in_node_order(i, node, port);
  sim::Bytes average;
  {
    WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
    average = server_compressor_->encode(node.sum, node.compression);
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (j != i) port.send(j, average);
  }
  // The server applies what the workers will decode, so that all models stay identical.
  decode_into(*server_compressor_, average, node.sum);
  port.wait_sends();
}

void DataParallel::run(std::size_t i, sim::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const sim::Bytes bytes = compress(node, local_.gradient(i, node.x, batches, port));
    if (parameter_server_)
      parameter_server(i, node, bytes, port);
    else
      allgather(i, node, bytes, port);
    axpy(node.x, static_cast<float>(-schedule_.at(t)), node.sum);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

}  // namespace sgdsim::protocols
