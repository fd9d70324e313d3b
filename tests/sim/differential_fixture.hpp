#pragma once
// The differential test's fixture: one real ZooKeeper 3.8 server or 3-member ensemble (tests/support, scripts/zk's
// settings) per suite, and compare(), which runs a script against it and against the model (ensemble.hpp: one
// server, or a leader and two lagging followers) and compares what their clients observed.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "differential_target.hpp"
#include "ensemble.hpp"
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

// A connection to the model. A member of an ensemble answers a write only once it has applied it, after its lag:
// there a receive with nothing to read lets virtual time pass (ticking) until something arrives, up to `patience`,
// as a client waits for its reply; a standalone server answers at once (patience 0).
class model_link final : public testing::byte_link {
 public:
  model_link(ensemble& service, std::size_t member, model_pace& clock, sim_time patience)
      : service_(service), clock_(clock), patience_(patience), id_(service.open_connection(member)) {}
  model_link(const model_link&) = delete;
  model_link& operator=(const model_link&) = delete;
  model_link(model_link&&) = delete;
  model_link& operator=(model_link&&) = delete;
  ~model_link() override { service_.close_connection(id_, clock_.virtual_now()); }
  void send(std::string_view bytes) override { service_.receive(id_, bytes, clock_.virtual_now()); }
  std::string receive() override {
    std::string out = service_.take_output(id_);
    for (sim_time waited{0}; out.empty() && !closed() && waited < patience_; waited += sim_time{1}) {
      clock_.advance_to(clock_.virtual_now() + sim_time{1});
      out = service_.take_output(id_);
    }
    return out;
  }
  [[nodiscard]] bool closed() const override { return service_.is_closed(id_); }

 private:
  ensemble& service_;
  model_pace& clock_;
  sim_time patience_;
  connection_id id_;
};

// `Base` starts the real service: zkwire::test::standalone_test or zkwire::test::ensemble_test.
template <class Base>
class differential_base : public Base {
 protected:
  using script_fn = std::function<void(target&, const std::string& base)>;
  using check_fn = std::function<void(const target& real, const target& model)>;

  // Runs `script` against the real service, then against the model (its clock following the real side's
  // timeline), compares the transcripts line by line, and hands both sides to `check` for their times and their
  // observations that may differ (target::loosely). ZKWIRE_DIFF_TRACE=1 prints the real side's transcript.
  // Session i connects to member `member` of connect(): in ensemble mode 0 is the leader, 1 and 2 followers, on
  // both sides (the model's leader is its member 0; the real one's is whichever won the election).
  void compare(const script_fn& script, const check_fn& check = {}) {
    std::vector<std::uint16_t> ports;
    const auto leader = Base::cluster().leader_index();
    ASSERT_TRUE(leader) << "the real service has no leader";
    ports.push_back(Base::cluster().client_port(*leader));
    for (std::size_t m = 0; m < Base::cluster().member_count(); ++m) {
      if (m != *leader) ports.push_back(Base::cluster().client_port(m));
    }
    std::vector<micros> timeline;
    real_pace real_clock(timeline);
    target real([&](std::size_t member) { return std::make_unique<socket_link>(ports.at(member)); }, real_clock);
    ensemble_config config;
    config.members = ports.size();
    config.max_lag = ports.size() > 1 ? sim_time{200} : sim_time{0};  // as the simulation's ensembles lag
    config.server = real_server_settings();
    ensemble model(config);
    sim_time now{0};
    model_pace model_clock(
        timeline, now, [&](sim_time t) { model.tick(t); },
        [&](std::int64_t session) { return model.session_expiry(session); });
    const sim_time patience = ports.size() > 1 ? sim_time{2000} : sim_time{0};
    target sim([&](std::size_t member) { return std::make_unique<model_link>(model, member, model_clock, patience); },
               model_clock);
    // The real server has other tests' nodes at "/": the script works under a fresh directory of its own, which
    // the model gets too. Creating it is the first call, so both sides count zxids from it.
    const std::string base = cat(Base::root(), "-", ++runs_);
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

class differential_test : public differential_base<zkwire::test::standalone_test> {};

}  // namespace zkwire::sim::differential
