#pragma once
// eventually(): the one way tests wait for something another thread, process or server makes true. It polls the
// condition at short intervals until it holds or the deadline passes, and on failure says what was awaited, for
// how long, and what was seen at the last poll. A deadline is a bound on a hang, not a timing assertion: pick one
// that a loaded machine under sanitizers meets with room to spare.
//
// A negative check ("X did not happen") cannot be made with eventually() alone: wait for a later positive signal
// that would arrive after X (a watch fired by a later change, a reply ordered after X), then check X.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace zkwire::test {

// What eventually() does between two polls, for `interval`: by default it sleeps. A test whose io_context runs on
// the test thread passes a step that runs the context instead, so the awaited completion can happen at all.
using wait_step = std::function<void(std::chrono::milliseconds interval)>;

// Polls `condition` (first at once, then every few milliseconds, backing off to 50 ms) until it returns true or
// `deadline` has passed since the call. `what` names the condition in the failure message; `last_seen`, if given,
// describes the state at the last poll (e.g. the states a client went through). Not thread-safe itself; the
// condition must synchronise with whatever it reads.
::testing::AssertionResult eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline,
                                      std::string_view what = "the condition",
                                      const std::function<std::string()>& last_seen = {}, const wait_step& step = {});

}  // namespace zkwire::test
