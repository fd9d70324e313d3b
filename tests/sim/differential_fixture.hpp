#pragma once
// The differential test's fixture: one real ZooKeeper 3.8 server (tests/support, scripts/zk's settings) per suite,
// and compare(), which runs a script against it and against the model and compares what their clients observed.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "differential_target.hpp"
#include "server.hpp"
#include "support/zk_test.hpp"
#include "text.hpp"

namespace zkwire::sim::differential {

// The model configured as tests/support configures the real server (tickTime=200, minSessionTimeout=400,
// maxSessionTimeout=60000, znode.container.checkIntervalMs=500).
inline server_config real_server_settings() {
  server_config config;
  config.tick_time = std::chrono::milliseconds{200};
  config.min_session_timeout = std::chrono::milliseconds{400};
  config.max_session_timeout = std::chrono::milliseconds{60000};
  config.container_check_interval = std::chrono::milliseconds{500};
  return config;
}

class differential_test : public zkwire::test::standalone_test {
 protected:
  using script_fn = std::function<void(target&, const std::string& base)>;
  using check_fn = std::function<void(const target& real, const target& model)>;

  // Runs `script` against the real server, then against the model (its clock following the real side's
  // timeline), compares the transcripts line by line, and hands both sides to `check` for their times.
  // ZKWIRE_DIFF_TRACE=1 prints the real side's transcript.
  void compare(const script_fn& script, const check_fn& check = {}) {
    const std::uint16_t port = cluster().client_port(0);
    std::vector<micros> timeline;
    real_pace real_clock(timeline);
    target real([port](std::size_t) { return std::make_unique<socket_link>(port); }, real_clock);
    server model(real_server_settings());
    sim_time now{0};
    model_pace model_clock(
        timeline, now, [&](sim_time t) { model.tick(t); },
        [&](std::int64_t session) { return model.session_expiry(session); });
    target sim([&](std::size_t) { return std::make_unique<testing::sim_link>(model, now); }, model_clock);
    // The real server has other tests' nodes at "/": the script works under a fresh directory of its own, which
    // the model gets too. Creating it is the first call, so both sides count zxids from it.
    const std::string base = cat(root(), "-", ++runs_);
    for (target* t : {&real, &sim}) {
      t->connect(0);
      t->call(0, proto::op_code::create, create(base));
      script(*t, base);
      t->close_all();
    }
    const auto& a = real.transcript();
    const auto& b = sim.transcript();
    if (std::getenv("ZKWIRE_DIFF_TRACE") != nullptr) {
      for (const auto& line : a) std::printf("  %s\n", line.c_str());
    }
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string left = i < a.size() ? a[i] : "<end>";
      const std::string right = i < b.size() ? b[i] : "<end>";
      ASSERT_EQ(left, right) << "first difference at step " << i << " (real server on the left, model on the right)";
    }
    if (check) check(real, sim);
  }

 private:
  int runs_ = 0;
};

}  // namespace zkwire::sim::differential
