#include "zkwire_bench/cpu_time.hpp"

#include <ctime>

namespace zkwire::bench {

std::uint64_t process_cpu_ns() noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace zkwire::bench
