#pragma once
// Records the session states a zkwire::client goes through, with the reason and the time of each change, so a
// test thread can wait for a state and check the sequence. The client's listener runs on the client's executor
// (often a loop thread of its own); every member function may be called from any thread.
//
// Lifetime: listener() keeps the recorder alive for as long as the client holds the listener, so a client that
// reports a last state while it is destroyed never writes into a destroyed recorder.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/types.hpp"

namespace zkwire::test {

class state_recorder : public std::enable_shared_from_this<state_recorder> {
 public:
  using clock = std::chrono::steady_clock;
  struct entry {
    session_state to;
    std::error_code reason;
    clock::time_point at;  // when the listener saw the change (on the client's executor)
  };

  static std::shared_ptr<state_recorder> make() { return std::make_shared<state_recorder>(); }

  // A listener for client::set_state_listener() (to be installed on the client's executor).
  std::function<void(const state_event&)> listener() {
    return [self = shared_from_this()](const state_event& e) { self->add(e); };
  }
  void add(const state_event& e);

  // The first time `s` was entered at or after `since`, if it was.
  [[nodiscard]] std::optional<clock::time_point> entered(session_state s, clock::time_point since = {}) const;
  [[nodiscard]] bool contains(session_state s) const { return entered(s).has_value(); }
  // Waits (test::eventually) until `s` has been entered at or after `since`; the failure lists every state seen.
  [[nodiscard]] ::testing::AssertionResult reaches(session_state s, std::chrono::milliseconds deadline,
                                                   clock::time_point since = {}) const;

  [[nodiscard]] std::vector<entry> entries() const;
  [[nodiscard]] std::vector<session_state> states() const;
  // The last state entered, if any.
  [[nodiscard]] std::optional<session_state> last() const;
  // "connecting connected suspended(reason) ...", for failure messages.
  [[nodiscard]] std::string text() const;

 private:
  mutable std::mutex mutex_;
  std::vector<entry> entries_;
};

}  // namespace zkwire::test
