#pragma once
// Errors the user can fix (bad scenario, bad file, corrupt bytes) are InputError: the CLI prints them and
// exits 2. A run whose numbers became infinite or NaN is Diverged: a result, not a bug, exit 3. Anything else
// is a bug and exits 1.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace sgdsim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised by decoders on corrupt or truncated encoded bytes; the message names the byte offset.
class DecodeError : public InputError {
 public:
  using InputError::InputError;
};

// Non-finite values given to an operation that cannot encode them (a quantizer). Bad input when they come
// from a file; a running simulation reports them as divergence instead.
class NonFiniteInput : public InputError {
 public:
  using InputError::InputError;
};

// Where a run diverged: the first infinite or NaN value seen in a loss, a model or a message.
struct Divergence {
  std::string quantity;    // "model", "gradient", "minibatch loss", "message", "training loss"
  std::int64_t step = -1;  // the step being computed (its trace row would be `step`); -1: not known yet
  std::optional<std::size_t> node;  // absent for figures of the average model
  std::string detail;               // e.g. the index of the first bad coordinate
  double sim_time_s = -1;           // simulated time when the run stopped; -1: not known yet
  bool blew_up = false;             // finite, but past eval.blow_up's limit (detail says how)
};

// Thrown where a non-finite value is first seen; stops the simulation. The run keeps its trace up to the last
// complete row and records the divergence in summary.json.
class Diverged : public std::runtime_error {
 public:
  explicit Diverged(Divergence where) : std::runtime_error(describe(where)), where_(std::move(where)) {}
  const Divergence& where() const { return where_; }
  Diverged at_step(std::int64_t step) const {
    Divergence w = where_;
    w.step = step;
    return Diverged(std::move(w));
  }
  Diverged at_time(double seconds) const {
    Divergence w = where_;
    w.sim_time_s = seconds;
    return Diverged(std::move(w));
  }

 private:
  static std::string describe(const Divergence& w) {
    std::string text = "the run diverged";
    if (w.step >= 0) text += " at step " + std::to_string(w.step);
    text += ": " +
            (w.node ? "node " + std::to_string(*w.node) + "'s " : std::string("the average model's ")) +
            w.quantity + (w.blew_up ? " blew up" : " is not finite");
    if (!w.detail.empty()) text += " (" + w.detail + ")";
    return text;
  }
  Divergence where_;
};

inline constexpr int exit_input_error = 2;
inline constexpr int exit_diverged = 3;

}  // namespace sgdsim
