// A full script against a generic fake server, with a connection failure or a disconnect injected before every
// step in turn: no request may lose or duplicate its completion, and the session must come back.

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "harness.hpp"

namespace zkwire::proto::test {
namespace {

struct run_result {
  std::map<request_id, int> completions;  // how often each request completed
  std::vector<request_id> submitted;
  session_state final_state = session_state::not_started;
  bool injected = false;
};

// The script: every step is one thing a driver or a server does. `fault_at` is the step before which the fault
// is injected (connect_failed when an attempt is pending, else disconnected); -1 for none.
run_result run_script(int fault_at, std::size_t* step_count = nullptr) {
  session_config c;
  c.host_count = 3;
  c.shuffle_hosts = false;
  c.seed = 1;
  c.session_timeout = 6000ms;
  harness h(c);
  fake_server server;
  run_result out;

  const auto serve = [&] {
    if (h.connection_pending) return;
    const std::string reply = server.respond(h.take_wire());
    if (!reply.empty()) h.feed(reply, {1, 3, 4, 7});  // split, length prefixes included
  };
  const auto connect = [&] {
    if (!h.connection_pending) return;
    server.new_connection();
    h.connect_ok();
  };
  const auto submit = [&](op_code op, request_body body, watcher_id w = 0) {
    out.submitted.push_back(h.submit(op, std::move(body), w));
  };
  const std::vector<std::function<void()>> steps{
      [&] { h.start(); },
      [&] {
        submit(op_code::exists, exists_request{"/early", true}, 1);
      },
      [&] {
        out.submitted.push_back(h.s.add_auth(h.now, "digest", "a:b"));
        h.pump();
      },
      connect,
      serve,  // handshake
      serve,  // auth, queued exists
      [&] {
        submit(op_code::delete_, delete_request{"/d", -1});
      },
      [&] {
        submit(op_code::get_data, get_data_request{"/g", true}, 2);
      },
      [&] { h.advance(1000ms); },
      serve,
      [&] {
        submit(op_code::exists, exists_request{"/x", false});
      },
      [&] { h.advance(2500ms); },  // a ping goes out
      serve,
      [&] {
        submit(op_code::delete_, delete_request{"/e", -1});
      },
      [&] {
        submit(op_code::get_children, get_children_request{"/c", true}, 3);
      },
      serve,
      [&] { h.advance(500ms); },
  };
  if (step_count != nullptr) *step_count = steps.size();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (static_cast<int>(i) == fault_at) {
      if (h.connection_pending) {
        h.connect_fail();
        out.injected = true;
      } else if (h.s.current_host()) {
        h.drop();
        out.injected = true;
      }
    }
    steps[i]();
    for (auto& d : h.got) {
      if (auto* comp = std::get_if<completion>(&d)) ++out.completions[comp->id];
    }
    h.got.clear();
  }
  // Settle: keep connecting and serving until nothing is pending.
  for (int round = 0; round < 50 && (h.s.pending_requests() > 0 || h.s.state() != session_state::connected); ++round) {
    connect();
    serve();
    h.advance(200ms);
    for (auto& d : h.got) {
      if (auto* comp = std::get_if<completion>(&d)) ++out.completions[comp->id];
    }
    h.got.clear();
  }
  out.final_state = h.s.state();
  return out;
}

TEST(SessionFaults, CleanRunCompletesEverythingOnce) {
  const auto r = run_script(-1);
  EXPECT_EQ(r.final_state, session_state::connected);
  for (const auto id : r.submitted) EXPECT_EQ(r.completions.contains(id) ? r.completions.at(id) : 0, 1) << id;
  EXPECT_EQ(r.completions.size(), r.submitted.size());
}

TEST(SessionFaults, FaultBeforeEveryStepNeverLosesOrDuplicatesACompletion) {
  std::size_t steps = 0;
  run_script(-1, &steps);
  int injected = 0;
  for (std::size_t at = 0; at < steps; ++at) {
    const auto r = run_script(static_cast<int>(at));
    injected += r.injected ? 1 : 0;
    for (const auto id : r.submitted) {
      EXPECT_EQ(r.completions.contains(id) ? r.completions.at(id) : 0, 1) << "fault at step " << at << ", id " << id;
    }
    EXPECT_EQ(r.completions.size(), r.submitted.size()) << "fault at step " << at;
    EXPECT_EQ(r.final_state, session_state::connected) << "fault at step " << at;
  }
  EXPECT_GT(injected, static_cast<int>(steps) - 2) << "the faults must actually hit";
}

}  // namespace
}  // namespace zkwire::proto::test
