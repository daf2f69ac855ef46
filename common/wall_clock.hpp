#pragma once
// Where the host's wall-clock time goes during a run (gradient compute, compression, evaluation; the rest is
// simulator + protocol overhead). Reported in summary.json, never in the deterministic trace.
#include <array>
#include <chrono>

namespace sgdsim {

class WallClock {
 public:
  enum class Part { gradient = 0, compression = 1, evaluation = 2 };
  static constexpr std::size_t parts = 3;

  class Scope {
   public:
    Scope(WallClock* clock, Part part)
        : clock_(clock), part_(part), start_(std::chrono::steady_clock::now()) {}
    ~Scope() {
      if (clock_) clock_->seconds_[static_cast<std::size_t>(part_)] += elapsed();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    double elapsed() const {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    WallClock* clock_;
    Part part_;
    std::chrono::steady_clock::time_point start_;
  };

  double seconds(Part part) const { return seconds_[static_cast<std::size_t>(part)]; }

 private:
  std::array<double, parts> seconds_{};
};

}  // namespace sgdsim
