#pragma once
// Errors the user can fix (bad scenario, bad file, corrupt bytes) are InputError: the CLI prints them and
// exits 2. Anything else is a bug and exits 1.
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

inline constexpr int exit_input_error = 2;

}  // namespace sgdsim
