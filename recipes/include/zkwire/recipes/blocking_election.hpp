#pragma once
// zkwire::recipes::blocking_election: the leader election of election.hpp for threads, on a zkwire::blocking_client.
//
//   zkwire::blocking_client c(options);
//   zkwire::recipes::blocking_election e(c, "/services/scheduler", zkwire::recipes::election_options::with_id("a"));
//   if (e.await_leadership_for(std::chrono::seconds(30))) {  // joins; leaves again if not leading in time
//     run_scheduler(e.fencing_token());                      // e.has_leadership() turns false on a loss
//     e.leave();
//   }
//
// The election object lives on the client's loop thread; every call waits for its result there. Semantics, states,
// errors and the leadership listener are election's (election.hpp); failures throw std::system_error with those
// codes. A timed wait that runs out returns false (lock_errc::timeout is never thrown).
//
// Thread safety and lifetime
//   Every member may be called from any thread except the client's loop thread (a listener or watch callback):
//   there it throws std::logic_error, since waiting would deadlock. The listener runs on that loop thread and must
//   not call blocking methods. The blocking_client must outlive the object. Destroying it leaves the election in the
//   background; do not destroy an object another thread is using.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/blocking_lock.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire::recipes {

class blocking_election {
 public:
  blocking_election(blocking_client& c, std::string path, election_options options = {});
  // Leaves in the background.
  ~blocking_election();
  blocking_election(const blocking_election&) = delete;
  blocking_election& operator=(const blocking_election&) = delete;
  blocking_election(blocking_election&&) = delete;
  blocking_election& operator=(blocking_election&&) = delete;

  // election::async_join: returns once our node is queued (or leads).
  void join();
  // election::async_await_leadership without a time limit.
  void await_leadership();
  // election::async_await_leadership with a limit: false when it ran out (a wait that joined has left again).
  // A zero or past limit asks the server once, and never waits longer than the session timeout for its answer.
  template <class Rep, class Period>
  bool await_leadership_for(const std::chrono::duration<Rep, Period>& d) {
    return await_until(std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class Clock, class Duration>
  bool await_leadership_until(const std::chrono::time_point<Clock, Duration>& t) {
    return await_until(detail::to_steady(t));
  }
  // election::async_relinquish (throws lock_errc::not_held when not leading). Returns once the old node is deleted,
  // waiting at most the session timeout (then the delete and the re-join go on in the background).
  void relinquish();
  // election::async_leave; never throws. Waits at most the session timeout for the delete (then it goes on in the
  // background); leaving when not in the election does nothing.
  void leave() noexcept;

  [[nodiscard]] election_state state() const;
  [[nodiscard]] bool has_leadership() const { return state() == election_state::leader; }
  [[nodiscard]] std::int64_t fencing_token() const;
  [[nodiscard]] std::string node_path() const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // async_participants of the path (throws std::system_error, e.g. server_error::no_node).
  [[nodiscard]] std::vector<participant> participants() const;
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const;
  // election::set_listener; it runs on the client's loop thread.
  void set_listener(leadership_listener listener);

 private:
  bool await_until(std::optional<std::chrono::steady_clock::time_point> deadline);

  std::string path_;
  std::unique_ptr<detail::loop_bridge> bridge_;
  std::unique_ptr<election> election_;  // lives on the loop thread
};

}  // namespace zkwire::recipes
