#include "algorithms/protocols/data_parallel.hpp"

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/float_format.hpp"
#include "algorithms/learning/model.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/memory_limit.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

DataParallel::DataParallel(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_(environment, schedule_.optimizer),
      encoders_(spec, environment.topology->nodes, local_.dimension(), environment.seed, environment.clock,
                *environment.prices, model_layout(*environment.model), /*restores_average=*/true),
      nodes_(environment.topology->nodes) {
  refuse_momentum_twice(spec, encoders_, schedule_.optimizer.momentum);
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  if (environment.model->averages_state()) {
    throw InputError(
        spec.where() +
        ": the model's batch_norm \"averaged\" is implemented by the gossip protocols (dpsgd, choco, "
        "sparq); data-parallel replicas keep their BatchNorm statistics local (the trace evaluates with "
        "their mean)");
  }
  Spec collective = spec.variant("collective");
  if (environment.lossy && !collective.kind()->has("survives_failures"))
    spec.fail("collective",
              "\"" + collective.kind_name() +
                  "\" adds partial sums hop by hop and cannot lose a message; with failures use "
                  "\"allgather\" or \"parameter_server\"");
  majority_vote_ = spec.string("aggregate") == "majority_vote";
  if (encoders_.restores() && (majority_vote_ || environment.lossy))
    spec.fail("memory", majority_vote_
                            ? "EF21's estimate sums the messages; a majority vote counts signs: use "
                              "aggregate \"mean\""
                            : "EF21's estimate g = mean gᵢ holds only if every message arrives; it "
                              "cannot run with network.receive_timeout > 0");
  // Overlap: buckets of the model's tensors, each averaged by its own round of the collective.
  const compression::Layout layout = model_layout(*environment.model);
  format_ = dynamic_cast<const compression::FloatFormat*>(&encoders_.compressor());
  const bool layered = layout.tensors().size() > 1;
  const bool overlap =
      spec.boolean("overlap", layered && format_ && !majority_vote_ && !encoders_.restores());
  const double cap = parse_memory_size(spec.string("bucket_cap"), spec.where("bucket_cap"));
  if (!(cap > 0)) spec.expected("bucket_cap", "a size above 0 (e.g. \"25MB\")");
  if (overlap && !format_)
    spec.fail(
        "overlap",
        "buckets are averaged as they become ready, which needs the workers' compressor to send floats (" +
            quoted_list(compression::compressors().kind_names("float_format")) + "), not \"" +
            encoders_.kind() + "\": set \"overlap\": false");
  if (overlap && encoders_.restores())
    spec.fail("overlap", "EF21's estimate is restored from the whole average; set \"overlap\": false");
  std::vector<GradientBucket> ranges;
  if (overlap) ranges = gradient_buckets(layout, d, cap);
  if (ranges.size() > 1) {
    const double coordinates = static_cast<double>(d);
    // The backward pass of each bucket's layers when the model knows them, else its share of the parameters.
    const Charge whole = local_.gradient_charge();
    const std::size_t layers = environment.model->layer_costs().size();
    const std::vector<std::size_t> tensor_layers = environment.model->tensor_layers();
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    if (layers > 0 && tensor_layers.size() == layout.tensors().size())
      pieces = backward_layers(ranges, tensor_layers, layers);
    forward_ =
        pieces.empty()
            ? Charge{whole.price, whole.amount * forward_share}
            : Charge{environment.prices->gradient_part(whole.price, learning::Pass::forward, 0, layers),
                     whole.amount};
    for (std::size_t k = 0; k < ranges.size(); ++k) {
      GradientBucket& range = ranges[k];
      Bucket bucket;
      bucket.backward = pieces.empty()
                            ? Charge{whole.price, whole.amount * range.backward_share}
                            : Charge{environment.prices->gradient_part(whole.price, learning::Pass::backward,
                                                                       pieces[k].first, pieces[k].second),
                                     whole.amount};
      const double share = static_cast<double>(range.size) / coordinates;
      Charge decode = encoders_.decode_charge();
      decode.amount *= share;
      bucket.collective = collectives().factory(collective.kind_name())(
          collective,
          {n, range.size, &encoders_.compressor(), decode, environment.prices.get(), environment.clock,
           spec.where("compressor"), compression::Layout(range.tensors), physical_network(environment)});
      for (Charge charge :
           bucket.collective->sends_message() ? encoders_.encode_charge() : encoders_.memory_charge()) {
        charge.amount *= share;
        bucket.encode.push_back(charge);
      }
      bucket.range = std::move(range);
      buckets_.push_back(std::move(bucket));
    }
    collective.finish();
  } else {
    // Without overlap, or with one bucket: the whole vector at once, after the whole gradient.
    collective_ =
        make_collective(collective, {n, d, &encoders_.compressor(), encoders_.decode_charge(),
                                     environment.prices.get(), environment.clock, spec.where("compressor"),
                                     encoders_.compressor().layout(), physical_network(environment)});
  }
  const keys::Kind* compressor_kind = compression::compressors().find(encoders_.kind());
  share_scales_ =
      spec.boolean("share_scales", compressor_kind && compressor_kind->has("shares_scales") && collective_);
  if (share_scales_ && !encoders_.shares_scales())
    spec.fail("share_scales",
              "the workers share a maximum of per-bucket max-abs scales, which needs a compressor "
              "that quantizes on them at fixed width (" +
                  quoted_list(compression::compressors().kind_names("shares_scales")) +
                  "; qsgdinf with coding \"fixed\"), not \"" + encoders_.kind() + "\"");
  if (share_scales_ && !collective_)
    spec.fail("share_scales", "overlapped buckets send floats, which have no scales; set \"overlap\": false");
  compare_ = environment.prices->floats(Work::mixing);
  vote_ = {environment.prices->floats(Work::mixing),
           2.0 * static_cast<double>(d)};  // reads and writes the mean
  const keys::Kind* kind = compression::compressors().find(encoders_.kind());
  if (majority_vote_ && !(kind && kind->has("sign_votes"))) {
    std::string allowed;
    for (const std::string& name : compression::compressors().kind_names("sign_votes"))
      allowed += (allowed.empty() ? "\"" : ", \"") + name + "\"";
    spec.fail("aggregate",
              "a majority vote counts signs: it needs a compressor whose messages decode to ±1 (" + allowed +
                  "), not \"" + encoders_.kind() + "\"");
  }
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    node.average.assign(d, 0.0f);
    node.own.assign(d, 0.0f);
  }
}

void DataParallel::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    if (!buckets_.empty()) {
      overlapped_step(i, t, batches, port);
      continue;
    }
    const std::span<const float> gradient = local_.gradient(i, node.x, batches, port);
    if (share_scales_) {
      encoders_.encode_shared(i, gradient, node.bytes, node.own, node.stats, [&](std::vector<float>& scales) {
        // Reads both vectors and writes the maximum.
        collective_->maximum(i, scales, {compare_, 3.0 * static_cast<double>(scales.size())}, port);
      });
    } else {
      encoders_.encode(i, gradient, node.bytes, node.own, node.stats);
    }
    // A collective that encodes its own chunks charges those; the whole-vector encode above only yields
    // `own`.
    port.charge(collective_->sends_message() ? encoders_.encode_charge() : encoders_.memory_charge());
    collective_->average(i, node.bytes, node.own, encoders_.stream(i), node.average, port);
    if (encoders_.restores()) {
      encoders_.restore(i, node.average);
      port.charge(encoders_.restore_charge());
    }
    if (majority_vote_) {
      // sign(sum of the votes): the mean has the sum's sign (a tie gives 0: no step on that coordinate).
      for (float& v : node.average) v = v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : 0.0f;
      port.charge(vote_);
    }
    local_.descend(i, node.x, schedule_.at(t), node.average);
    port.charge(local_.update());
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

void DataParallel::overlapped_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port) {
  Node& node = nodes_[i];
  // The math at once (encoded as a whole: float formats are coordinate-wise, so each bucket's slice is that
  // bucket's encoding); the time bucket by bucket.
  encoders_.encode(i, local_.gradient(i, node.x, batches, port, false), node.bytes, node.own, node.stats);
  port.charge(forward_);
  std::vector<Charge> backward;
  for (const Bucket& bucket : buckets_) backward.push_back(bucket.backward);
  port.start_background(backward);
  Rng unused(0);  // a float format draws nothing
  for (std::size_t k = 0; k < buckets_.size(); ++k) {
    Bucket& bucket = buckets_[k];
    const std::span<const float> own(node.own.data() + bucket.range.begin, bucket.range.size);
    const std::span<float> average(node.average.data() + bucket.range.begin, bucket.range.size);
    port.await_background(k + 1);
    Bytes message;
    if (bucket.collective->sends_message()) {
      WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
      message = format_->encode(own, unused);
    }
    port.charge(bucket.encode);
    bucket.collective->average(i, message, own, encoders_.stream(i), average, port);
  }
  local_.descend(i, node.x, schedule_.at(t), node.average);
  port.charge(local_.update());
  observe(environment_, t + 1, i, node.x, node.stats, port);
}

namespace {
std::vector<keys::Key> data_parallel_keys() {
  std::vector<keys::Key> keys =
      Encoders::keys("The compressor of the workers' gradients.", nlohmann::json{{"kind", "none"}});
  keys.push_back(keys::variant("collective", collectives(), "How the workers average.")
                     .fallback_to({{"kind", "allgather"}}));
  keys.push_back(keys::choice("aggregate", {"mean", "majority_vote"},
                              "\"mean\": step along the average of the decoded gradients; \"majority_vote\": "
                              "along its sign, the majority vote of sign messages (signsgd, signum).")
                     .fallback_to("mean"));
  keys.push_back(
      keys::boolean("share_scales",
                    "TernGrad's scaler sharing (Wen et al. 2017): before each step the workers take "
                    "the maximum of their per-bucket scales through the collective (one float32 "
                    "per bucket from each worker, charged in bits and time) and all quantize with "
                    "it, so that their levels agree (docs/compression.md).")
          .computed_default("true when the compressor's kind shares scales (terngrad) and the "
                            "gradient is averaged whole (no overlap)"));
  keys.push_back(keys::boolean("overlap",
                               "Overlap the averaging with the backward pass as PyTorch DDP does: the "
                               "gradient's buckets (bucket_cap) are averaged in backward order, each as soon "
                               "as its gradients are ready (docs/protocols.md). Needs a float-format "
                               "compressor (none, fp16, bf16).")
                     .computed_default("true when the model has several tensors (a layer layout), the "
                                       "compressor is a float format, aggregate is \"mean\" and memory is "
                                       "not \"ef21\""));
  keys.push_back(keys::string("bucket_cap",
                              "With overlap: the fp32 gradient bytes of one bucket, as DDP's bucket_cap_mb "
                              "(a size: \"25MB\", \"1MiB\"). A bucket closes once it holds that much; a "
                              "tensor is never split.")
                     .fallback_to("25MB"));
  return keys;
}

const bool registered_data_parallel = protocols().add(
    {"data_parallel",
     "Data-parallel SGD with compressed gradients (the QSGD / NUQSGD setting): every worker's decoded "
     "gradient "
     "is averaged by a collective and every replica takes the same step.",
     data_parallel_keys(),
     {"survives_failures"}},
    {.build =
         [](Spec& spec, const Environment& environment) {
           return std::make_unique<DataParallel>(spec, environment);
         },
     // x_i, the average, the own decoded gradient, the collective's scratch and a message.
     .vectors_per_node = [](const nlohmann::json&, double) { return 5.0; },
     .averaged_gradient = [](const nlohmann::json& algorithm) -> AveragedGradient {
       if (algorithm["aggregate"] != "mean" || algorithm["memory"]["kind"] != "none")
         return {
             nullptr,
             "measures the mean of the decoded gradients; it needs aggregate \"mean\" and memory \"none\""};
       return {algorithm["compressor"], ""};
     }});
}  // namespace

}  // namespace sgdsim::protocols
