#pragma once
// `zkwire locks --watch`: what one view of a lock directory shows (queue depth, holder and its age, oldest
// waiter's age, grants per second), computed from a contenders listing, and its two renderings. Pure: the times
// come in as arguments.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "zkwire/recipes/contenders.hpp"

namespace zkwire::cli {

struct lock_view {
  bool exists = true;                         // the lock directory exists
  std::size_t depth = 0;                      // contenders (holders and waiters); foreign siblings are not counted
  std::size_t holders = 0;                    // more than 1 only for readers sharing a read/write lock
  std::size_t waiters = 0;                    // depth - holders
  std::optional<recipes::contender> holder;   // the first holder
  std::optional<std::int64_t> holder_age_ms;  // now - the holder node's ctime
  std::optional<std::int64_t> oldest_waiter_age_ms;
  std::uint64_t grants = 0;   // holders seen since the watch started (not counting the first view's)
  double grants_per_sec = 0;  // grants seen in the last `window` (or since the start, if shorter)
};

// Turns successive listings into views: remembers which nodes held before, to count the new holders as grants.
// A contender granted and released between two listings is not seen (the watch fires again, but the listing
// after it no longer has the node).
class lock_view_tracker {
 public:
  using clock = std::chrono::steady_clock;
  explicit lock_view_tracker(clock::duration window = std::chrono::seconds(10)) : window_(window) {}

  // `sorted`: async_contenders' result (lock order, holders marked); `now_ms`: ms since the epoch, to age the nodes
  // by their ctime (the server's clock: the ages are off by the clocks' difference); `now`: for the rate.
  lock_view update(const std::vector<recipes::contender>& sorted, std::int64_t now_ms, clock::time_point now);
  // The directory does not exist.
  lock_view update_missing(clock::time_point now);

 private:
  double rate(clock::time_point now);

  clock::duration window_;
  std::optional<clock::time_point> start_;
  bool first_ = true;
  std::set<std::string> holders_seen_;  // node names that held in an earlier view
  std::deque<clock::time_point> grant_times_;
  std::uint64_t grants_ = 0;
};

// One line of `locks --watch --json`:
// {"path","exists","depth","holders","waiters","holder":{"node","session","data","age_ms"}|null,
//  "oldest_waiter_age_ms":N|null,"grants":N,"grants_per_sec":X}
std::string lock_view_json(const std::string& path, const lock_view& v);
// The human view: a few lines, each ending in '\n'.
std::string lock_view_text(const std::string& path, const lock_view& v);

}  // namespace zkwire::cli
