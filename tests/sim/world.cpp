#include "world.hpp"

#include <stdexcept>

namespace zkwire::sim {

namespace {
ensemble_config server_settings(const world_options& options) {
  ensemble_config config;
  config.members = options.members;
  config.max_lag = options.max_lag;
  config.server.seed = options.seed;
  config.server.tick_time = sim_time{200};
  config.server.max_session_timeout = sim_time{60000};
  config.server.container_check_interval = sim_time{500};
  return config;
}

// One address per member; the network tells members apart by port.
std::string connect_string(std::size_t members) {
  std::string out;
  for (std::size_t m = 0; m < members; ++m) out += cat(m == 0 ? "" : ",", "10.0.0.1:", network::base_port + m);
  return out;
}
}  // namespace

world::world(const world_options& options) : clock_(virtual_clock::make()), server_(server_settings(options)) {
  network_ = std::make_unique<network>(clock_, server_, server_io_.get_executor(), options.seed, trace_);
  network_->trace_frames(options.trace_frames);
  for (std::size_t p = 0; p < options.processes; ++p) {
    auto proc = std::make_unique<process>();
    client_options o;
    o.connect_string = connect_string(options.members);
    o.session_timeout = options.session_timeout;
    o.seed = options.seed * 31 + p;
    o.clock = clock_;
    o.transport = network_->factory(p);
    proc->client = std::make_unique<zkwire::client>(proc->io.get_executor(), std::move(o));
    proc->client->add_state_observer([this, p](const state_event& e) {
      trace_.add(now(), cat("process ", p, ": session ", proto::session_state_name(e.from), " -> ",
                            proto::session_state_name(e.to), e.reason ? cat(" (", e.reason.message(), ")") : ""));
    });
    processes_.push_back(std::move(proc));
  }
}

world::~world() {
  // Clients first (their shutdown posts to their io_contexts), then the network's pending deliveries.
  for (auto& p : processes_) p->client.reset();
  for (auto& p : processes_) virtual_clock::settle(p->io);
  network_.reset();
}

void world::pause(std::size_t p, sim_time until) {
  processes_.at(p)->paused_until = until;
  trace_.add(now(), cat("process ", p, " paused until ", until.count(), " ms"));
}

bool world::poll_all() {
  bool ran = false;
  server_io_.restart();
  ran |= server_io_.poll() > 0;
  for (auto& p : processes_) {
    if (now() < p->paused_until) continue;
    p->io.restart();
    ran |= p->io.poll() > 0;
  }
  return ran;
}

bool world::run_until(sim_time until, const std::function<bool()>& done, const std::function<void()>& after_step) {
  const proto::time_point limit = clock_->now() + (until - now());
  while (true) {
    for (std::size_t rounds = 0; poll_all(); ++rounds) {
      if (after_step) after_step();
      if (rounds > 1'000'000) throw std::runtime_error("the simulated processes never go idle (livelock)");
    }
    if (done && done()) return true;
    // Everything that can run has run: move time to the next thing that happens, a wakeup or a pause's end.
    proto::time_point next = clock_->next_expiry();
    for (const auto& p : processes_) {
      if (p->paused_until > now()) next = std::min(next, clock_->now() + (p->paused_until - now()));
    }
    if (next > limit) {
      clock_->advance_to(limit);
      poll_all();
      if (after_step) after_step();
      return done && done();
    }
    if (!clock_->fire_next(next)) clock_->advance_to(next);  // a pause ends: nothing to fire
  }
}

}  // namespace zkwire::sim
