// The model kinds lenet5, resnet and torchscript: their keys, declared here whether or not this build has
// libtorch (so the schema and the reference are the same for every build), and factories that hand the
// request to the libtorch plugin (torch_plugin.hpp).
#include "algorithms/learning/problem.hpp"
#include "algorithms/learning/torch_plugin.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

keys::Key threads_key() {
  return keys::integer(
             "threads",
             "libtorch's intra-op threads within one forward and backward pass (not `sgdsim run "
             "--threads`, which computes several nodes' gradients at once). Same seed and same threads: "
             "byte-identical traces; another thread count may change the last bits of sums, hence the "
             "trace.")
      .fallback_to(1)
      .between(1, 256);
}

keys::Key batch_norm_key() {
  return keys::choice(
             "batch_norm", {"local", "averaged"},
             "BatchNorm running statistics: \"local\", each node keeps its own and never sends them; "
             "\"averaged\", nodes average them with their neighbours whenever they gossip (fp32, "
             "counted in the bits). The trace evaluates the average model with the nodes' mean "
             "statistics either way.")
      .fallback_to("local");
}

TorchRequest request(Spec& spec, const Dataset& train, const std::string& kind) {
  TorchRequest r;
  r.kind = kind;
  r.threads = static_cast<int>(spec.integer("threads"));
  r.l2 = spec.number("l2");
  r.input = train.image;
  r.classes = train.classes;
  if (train.image.empty()) {
    spec.fail("kind", "\"" + kind + "\" needs image data (channels x height x width); the data set has " +
                          std::to_string(train.dimension()) +
                          " plain features (use fashion-mnist, mnist or cifar10)");
  }
  return r;
}

std::unique_ptr<Model> build(Spec& spec, const TorchRequest& r, const std::string& key) {
  try {
    return make_torch_model(r);
  } catch (const InputError& e) {
    spec.fail(key, e.what());
  }
}

const char* const engine_note = " Runs in libtorch (a build with -DSGDSIM_TORCH=ON; docs/learning.md).";

const bool registered_torch_kinds =
    models().add(
        {"lenet5",
         std::string("LeNet-5 (LeCun et al. 1998): conv 6@5x5 - pool - conv 16@5x5 - pool - fc 120 - "
                     "fc 84 - fc classes, ReLU, on image data.") +
             engine_note,
         {threads_key()},
         {"needs_class_labels", "libtorch"}},
        [](Spec& spec, const Dataset& train, const std::string&) {
          TorchRequest r = request(spec, train, "lenet5");
          return build(spec, r, "kind");
        }) &&
    models().add({"resnet",
                  std::string("ResNet (He et al. 2016) with BatchNorm: the CIFAR form (section 4.2, "
                              "parameter-free shortcuts, depth 6n + 2: 20, 32, 56, ...) or the ImageNet form "
                              "(section 3.4: a 7x7 stem and four stages; depth 18, 34, or 50, 101, 152 with "
                              "bottleneck blocks).") +
                      engine_note,
                  {keys::choice("variant", {"cifar", "imagenet"},
                                "\"cifar\": three stages of 16, 32, 64 channels for small images; "
                                "\"imagenet\": a 7x7 stem and four stages of 64 to 512 channels "
                                "(docs/learning.md).")
                       .computed_default("\"imagenet\" for images of at least 64x64 pixels, else \"cifar\""),
                   keys::integer("depth",
                                 "Layers: 6n + 2 for the cifar variant (20, 32, 56, 110); 18, 34, 50, 101 or "
                                 "152 for the imagenet variant.")
                       .computed_default("20 (cifar), 50 (imagenet)")
                       .between(8, 1202),
                   batch_norm_key(), threads_key()},
                  {"needs_class_labels", "libtorch"}},
                 [](Spec& spec, const Dataset& train, const std::string&) {
                   TorchRequest r = request(spec, train, "resnet");
                   const bool large = train.image.height >= 64 && train.image.width >= 64;
                   r.imagenet = spec.string("variant", large ? "imagenet" : "cifar") == "imagenet";
                   r.depth = static_cast<int>(spec.integer("depth", r.imagenet ? 50 : 20));
                   r.average_batch_norm = spec.string("batch_norm") == "averaged";
                   return build(spec, r, "depth");
                 }) &&
    models().add(
        {"torchscript",
         std::string("Bring your own model: a TorchScript module saved from Python with "
                     "torch.jit.script(model).save(path), whose forward maps a float batch N x C x H x W to "
                     "logits N x classes. Its parameters form the flat vector; it starts from the saved "
                     "values.") +
             engine_note,
         {keys::path("path", "The TorchScript file (relative to the scenario file)."),
          keys::number("flops_per_sample",
                       "Forward + backward flops of one sample, overriding the count sgdsim makes from the "
                       "operations forward runs on one image (convolutions, linear layers, matmuls, "
                       "normalization, pooling; docs/learning.md); the simulated compute time of a step is "
                       "this × batch_size / host speed.")
              .above(0)
              .in_unit("flop")
              .may_be_absent(),
          batch_norm_key(), threads_key()},
         {"needs_class_labels", "libtorch"}},
        [](Spec& spec, const Dataset& train, const std::string& base_dir) {
          TorchRequest r = request(spec, train, "torchscript");
          r.path = resolve_path(spec.string("path"), base_dir);
          r.flops_per_sample = spec.has("flops_per_sample") ? spec.number("flops_per_sample") : 0;
          r.average_batch_norm = spec.string("batch_norm") == "averaged";
          return build(spec, r, "path");
        });

}  // namespace

}  // namespace sgdsim::learning
