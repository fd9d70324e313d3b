// switch_host (the driver moves the session to a host it chose: a read-write server found while read-only, or a
// rebalancing after a reconfiguration) and update_hosts (the driver's host list changed).

#include <gtest/gtest.h>

#include "harness.hpp"

namespace zkwire::proto::test::switch_host {
namespace {

session_config config(std::size_t hosts) {
  session_config c;
  c.host_count = hosts;
  c.shuffle_hosts = false;
  c.seed = 42;
  c.session_timeout = 6000ms;
  return c;
}

const std::error_code moved = std::make_error_code(std::errc::operation_canceled);

TEST(SessionSwitchHost, DropsTheConnectionResumesTheSessionOnTheChosenHost) {
  harness h(config(3));
  h.establish();
  const auto in_flight = h.submit(op_code::exists, exists_request{"/a", false});
  h.take_wire();
  h.s.switch_host(h.now, 2, moved);
  h.pump();
  EXPECT_EQ(h.closes, 1);
  ASSERT_EQ(h.connects, (std::vector<std::size_t>{0, 2}));  // not the round-robin's next (1)
  const auto done = h.completions();
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].id, in_flight);
  EXPECT_EQ(done[0].error, client_error::connection_loss);
  auto changes = h.state_changes();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().to, session_state::suspended);
  EXPECT_EQ(changes.back().reason, moved);
  h.connect_ok();
  EXPECT_EQ(h.take_wire(), connect_frame(0, 6000, session_a, password_a));  // the same session
  h.feed(connect_response_frame(6000));
  EXPECT_EQ(h.s.state(), session_state::connected);
  EXPECT_EQ(h.s.current_host(), std::optional<std::size_t>{2});
}

TEST(SessionSwitchHost, StartsAPacedReconnectAtOnceAndIgnoresBadInput) {
  harness h(config(2));
  h.s.switch_host(h.now, 1, moved);  // before start: nothing
  h.pump();
  EXPECT_TRUE(h.connects.empty());
  h.start();
  h.connect_fail();
  h.connect_fail();  // every host failed: a paced pause
  ASSERT_EQ(h.connects.size(), 2U);
  h.s.switch_host(h.now, 5, moved);  // out of range: ignored
  h.pump();
  EXPECT_EQ(h.connects.size(), 2U);
  h.s.switch_host(h.now, 1, moved);
  h.pump();
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 1, 1}));
}

TEST(SessionUpdateHosts, RemapsTheCurrentHostAndPicksAmongTheNewList) {
  harness h(config(2));
  h.establish();
  EXPECT_EQ(h.s.current_host(), std::optional<std::size_t>{0});
  // The list grew to 4 and the current host is now at index 3.
  h.s.update_hosts(4, 3);
  EXPECT_EQ(h.s.current_host(), std::optional<std::size_t>{3});
  h.drop();
  h.connect_fail();
  h.connect_fail();
  h.connect_fail();
  // After the drop, the new order (unshuffled: 0,1,2,3) from its start.
  EXPECT_EQ(h.connects, (std::vector<std::size_t>{0, 0, 1, 2, 3}));
  h.s.update_hosts(0, std::nullopt);  // ignored
  EXPECT_EQ(h.s.state(), session_state::suspended);
}

}  // namespace
}  // namespace zkwire::proto::test::switch_host
