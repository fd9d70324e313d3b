#include "support/eventually.hpp"

#include <algorithm>
#include <thread>

namespace zkwire::test {

::testing::AssertionResult eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline,
                                      std::string_view what, const std::function<std::string()>& last_seen,
                                      const wait_step& step) {
  using clock = std::chrono::steady_clock;
  // Short first intervals keep fast conditions fast; the cap keeps a slow poll (a subprocess, a four-letter word)
  // from running back to back.
  constexpr std::chrono::milliseconds first_interval{2};
  constexpr std::chrono::milliseconds max_interval{50};
  const auto start = clock::now();
  const auto end = start + deadline;
  auto interval = first_interval;
  int polls = 0;
  for (;;) {
    ++polls;
    if (condition()) return ::testing::AssertionSuccess();
    const auto now = clock::now();
    if (now >= end) break;
    const auto pause = std::min(
        interval, std::chrono::duration_cast<std::chrono::milliseconds>(end - now) + std::chrono::milliseconds(1));
    if (step) {
      step(pause);
    } else {
      std::this_thread::sleep_for(pause);
    }
    interval = std::min(interval * 2, max_interval);
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
  auto failure = ::testing::AssertionFailure() << what << ": not reached within " << deadline.count() << " ms (waited "
                                               << waited.count() << " ms, " << polls << " polls)";
  if (last_seen) failure << "; last seen: " << last_seen();
  return failure;
}

}  // namespace zkwire::test
