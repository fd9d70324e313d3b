#pragma once
// CPU time of the whole process (every thread: the C client's I/O and completion threads count too), and the
// wall clock, for "client CPU time per operation".

#include <chrono>
#include <cstdint>

namespace zkwire::bench {

// User plus system CPU time consumed by this process so far, in nanoseconds.
std::uint64_t process_cpu_ns() noexcept;

inline std::uint64_t wall_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// CPU and wall time between construction and stop().
class cpu_meter {
 public:
  cpu_meter() noexcept : cpu_start_(process_cpu_ns()), wall_start_(wall_ns()) {}
  void stop() noexcept {
    cpu_ns_ = process_cpu_ns() - cpu_start_;
    wall_ns_ = wall_ns() - wall_start_;
  }
  [[nodiscard]] std::uint64_t cpu_ns() const noexcept { return cpu_ns_; }
  [[nodiscard]] std::uint64_t elapsed_ns() const noexcept { return wall_ns_; }

 private:
  std::uint64_t cpu_start_;
  std::uint64_t wall_start_;
  std::uint64_t cpu_ns_ = 0;
  std::uint64_t wall_ns_ = 0;
};

}  // namespace zkwire::bench
