#include "election_workload.hpp"

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <cstdlib>

#include "text.hpp"

namespace zkwire::sim {

struct election_workload::participant {
  std::size_t index = 0;
  std::size_t process = 0;
  recipes::election_naming naming = recipes::election_naming::latch;
  // Declared before the election: a pending join bound to its slot must end (when the election goes) before it does.
  asio::cancellation_signal cancel;
  std::unique_ptr<recipes::election> e;
  enum class phase { idle, joining, joined, stepping_down, leaving } now = phase::idle;
  std::unique_ptr<wakeup> timer;    // its next action (join, step down, leave)
  std::unique_ptr<wakeup> disturb;  // a cancellation or destruction planned for the current join
  std::unique_ptr<wakeup> fence;    // a guarded write planned for the current leadership
  std::uint64_t op = 0;             // the pending join's operation
  std::int64_t token = 0;           // the leadership its last `gained` announced; 0 after `lost`
  bool giving_up = false;           // its own relinquish, leave or close is under way: `lost` may say relinquished
  bool lost_since_join = false;     // lost by a fault since the workload last joined it

  [[nodiscard]] std::string name() const { return cat("p", index); }
  [[nodiscard]] bool leads() const { return e && e->has_leadership(); }
};

namespace {

constexpr const char* phase_names[] = {"idle", "joining", "joined", "stepping down", "leaving"};

sim_time ms(std::uint64_t n) { return sim_time{static_cast<sim_time::rep>(n)}; }

}  // namespace

election_workload::election_workload(world& w, std::uint64_t seed, election_workload_options options)
    : world_(w), ledger_(w), random_(seed ^ 0x3c6ef372fe94f82bULL), options_(std::move(options)) {
  for (std::size_t p = 0; p < w.processes(); ++p) {
    guids_.push_back(recipes::guid_source::seeded((seed << 8U) ^ (0x510e527fade682d1ULL + p)));
  }
  const auto mode = random_() % 4;
  static constexpr const char* modes[] = {"latch", "lock", "kazoo", "mixed"};
  naming_mode_ = modes[mode];
  for (std::size_t proc = 0; proc < w.processes(); ++proc) {
    for (std::size_t i = 0; i < options_.participants_per_process; ++i) {
      auto p = std::make_unique<participant>();
      p->index = participants_.size();
      p->process = proc;
      p->naming = static_cast<recipes::election_naming>(mode < 3 ? mode : random_() % 3);
      make(*p);
      participants_.push_back(std::move(p));
    }
  }
}

election_workload::~election_workload() {
  // Handlers of operations the destroyed elections give up run later (posted), after this object is gone.
  alive_.reset();
  pauser_.reset();
  deleter_.reset();
  for (auto& p : participants_) {
    p->timer.reset();
    p->disturb.reset();
    p->fence.reset();
    p->e.reset();
  }
}

// Each participant's id ("p3") is its node's data, so a trace or a leftover names it.
void election_workload::make(participant& p) {
  recipes::election_options options;
  options.id = p.name();
  options.name_format = p.naming;
  options.guids = guids_[p.process];
  p.e = std::make_unique<recipes::election>(world_.client(p.process), options_.directory, std::move(options));
  p.token = 0;
  participant* self = &p;
  p.e->set_listener([this, self, alive = std::weak_ptr(alive_)](const recipes::leadership_event& ev) {
    if (!alive.expired()) event(*self, ev);
  });
}

void election_workload::schedule(participant& p, sim_time delay, void (election_workload::*action)(participant&)) {
  participant* target = &p;
  p.timer = ledger_.after(p.process, delay, [this, target, action] { (this->*action)(*target); });
}

void election_workload::start() {
  ledger_.authenticate_all(alive_);
  for (auto& p : participants_) schedule(*p, ms(random_() % 200), &election_workload::join);
  create_fenced();
}

// The fenced resource, made with a plain create from process 0 (retried until it exists; guarded writes before that
// fail with no_node, which the oracle accepts).
void election_workload::create_fenced() {
  const std::uint64_t op = ledger_.begin_op();
  world_.client(0).async_create(options_.fenced, "0",
                                [this, op, alive = std::weak_ptr(alive_)](std::error_code ec, const create_result&) {
                                  if (alive.expired() || !ledger_.end_op(op, "create")) return;
                                  if (!ec || ec == server_error::node_exists || stopped_) return;
                                  if (ec == condition::session_ended) renew_session(0);
                                  create_fenced();
                                });
}

// A session that ended (expired, auth_failed) under a join is replaced, as an application would; a joined
// participant does it itself (election_options::rejoin).
void election_workload::renew_session(std::size_t process) {
  auto& c = world_.client(process);
  if (c.state() != proto::session_state::expired && c.state() != proto::session_state::auth_failed) return;
  world_.log().add(world_.now(), cat("process ", process, " starts a new session"));
  c.async_new_session([](std::error_code) {});
}

void election_workload::join(participant& p) {
  if (stopped_ || p.now != participant::phase::idle) return;
  if (!p.e) make(p);
  static constexpr std::int64_t timeouts[] = {0, 300, 3000, -1};
  const bool await = random_() % 2 == 0;
  const std::chrono::milliseconds timeout{await ? timeouts[random_() % 4] : -1};
  p.now = participant::phase::joining;
  p.giving_up = false;
  p.lost_since_join = false;
  const std::uint64_t op = ledger_.begin_op();
  p.op = op;
  world_.log().add(world_.now(), await ? cat(p.name(), " awaits leadership (timeout ", timeout.count(), " ms)")
                                       : cat(p.name(), " joins"));
  participant* self = &p;
  const sim_time started = world_.now();
  auto done = asio::bind_cancellation_slot(
      p.cancel.slot(), [this, self, op, timeout, started, alive = std::weak_ptr(alive_)](std::error_code ec) {
        if (alive.expired() || !ledger_.end_op(op, "join")) return;
        joined(*self, ec, timeout, started);
      });
  if (await) {
    p.e->async_await_leadership(timeout, std::move(done));
  } else {
    p.e->async_join(std::move(done));
  }
  // Some joins are disturbed before they finish: cancelled, or their election object destroyed.
  const auto roll = random_() % 20;
  if (roll < 2) {
    p.disturb = world_.clock().make_wakeup(world_.io(p.process).get_executor(), [this, self, op] {
      if (self->now != participant::phase::joining || self->op != op) return;
      world_.log().add(world_.now(), cat(self->name(), " cancels its join"));
      self->cancel.emit(asio::cancellation_type::terminal);
    });
  } else if (roll < 3) {
    p.disturb = world_.clock().make_wakeup(world_.io(p.process).get_executor(), [this, self, op] {
      if (self->now != participant::phase::joining || self->op != op) return;
      world_.log().add(world_.now(), cat(self->name(), " destroys its election mid-join"));
      make(*self);
    });
  }
  if (p.disturb) p.disturb->expires_at(world_.clock().now() + ms(random_() % 500));
}

void election_workload::joined(participant& p, std::error_code ec, std::chrono::milliseconds timeout,
                               sim_time started) {
  p.disturb.reset();
  world_.log().add(world_.now(), cat(p.name(), " join -> ", ec ? ec.message() : p.leads() ? "leads" : "queued"));
  // A timeout is an answer about the time limit: never before it has passed.
  if (ec == recipes::lock_errc::timeout && world_.now() - started < timeout) {
    ledger_.fail(cat(p.name(), "'s await timed out after ", (world_.now() - started).count(), " ms of its ",
                     timeout.count(), " ms"));
  }
  if (ec) {
    // A join that failed left the election: nothing of it may stay (its node is deleted in the background).
    if (p.e && p.e->joined()) ledger_.fail(cat(p.name(), "'s join failed (", ec.message(), ") but it is still joined"));
    p.now = participant::phase::idle;
    if (ec == condition::session_ended) renew_session(p.process);
    if (stopped_) {
      if (!leader_after_stop_) final_join(p);
      return;
    }
    schedule(p, ms(random_() % 400), &election_workload::join);
    return;
  }
  p.now = participant::phase::joined;
  if (stopped_) {
    if (leader_after_stop_) leave(p);
    return;
  }
  // A candidate leaves now and then (a leader steps down when its leadership's hold ends: event()).
  if (!p.leads() && random_() % 4 == 0) schedule(p, ms(100 + random_() % 2900), &election_workload::leave);
}

// The listener: `gained` with a token newer than every earlier one, never twice without `lost` in between; `lost`
// naming the leadership that ended.
void election_workload::event(participant& p, const recipes::leadership_event& e) {
  world_.log().add(world_.now(), cat(p.name(), " ", recipes::leadership_change_name(e.change), " token ",
                                     e.fencing_token, e.reason ? cat(" (", e.reason.message(), ")") : ""));
  if (e.change == recipes::leadership_change::gained) {
    if (p.token != 0) ledger_.fail(cat(p.name(), " gained token ", e.fencing_token, " while leading on ", p.token));
    if (e.fencing_token <= last_token_) {
      ledger_.fail(cat(p.name(), " gained token ", e.fencing_token, " after token ", last_token_));
    }
    last_token_ = std::max(last_token_, e.fencing_token);
    p.token = e.fencing_token;
    ++counts_.leaderships;
    if (p.lost_since_join) ++counts_.rejoined_leaderships;
    if (stopped_) return;
    const auto hold = 10 + random_() % 800;
    schedule(p, ms(hold), &election_workload::step_down);
    // Half the leaderships write the fenced resource once, at a random point (perhaps after the leadership ended:
    // the guarded write must then fail).
    if (random_() % 2 == 0) {
      participant* self = &p;
      p.fence = world_.clock().make_wakeup(world_.io(p.process).get_executor(), [this, self] { fenced_write(*self); });
      p.fence->expires_at(world_.clock().now() + ms(random_() % (hold + 200)));
    }
    return;
  }
  if (e.fencing_token != p.token) {
    ledger_.fail(cat(p.name(), " lost token ", e.fencing_token, " while its leadership was token ", p.token));
  }
  if (e.reason == recipes::lock_errc::relinquished) {
    if (!p.giving_up) ledger_.fail(cat(p.name(), " lost its leadership as relinquished without giving it up"));
  } else {
    ++counts_.losses;
    p.lost_since_join = true;
  }
  p.token = 0;
}

// The leadership's hold is over: relinquish (queue again), leave, close, or destroy the election object.
void election_workload::step_down(participant& p) {
  if (stopped_) return;
  if (p.now == participant::phase::joining) {  // an await that leads has not completed yet
    schedule(p, ms(50), &election_workload::step_down);
    return;
  }
  if (p.now != participant::phase::joined || !p.leads()) return;  // lost meanwhile: it is joining again by itself
  const auto roll = random_() % 10;
  participant* self = &p;
  if (roll < 5) {
    p.giving_up = true;
    p.now = participant::phase::stepping_down;
    const std::uint64_t op = ledger_.begin_op();
    world_.log().add(world_.now(), cat(p.name(), " relinquishes"));
    p.e->async_relinquish([this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
      if (alive.expired() || !ledger_.end_op(op, "relinquish")) return;
      world_.log().add(world_.now(), cat(self->name(), " relinquish -> ", ec ? ec.message() : "queued again"));
      if (!ec) ++counts_.relinquishes;
      self->giving_up = false;
      self->now = self->e && self->e->joined() ? participant::phase::joined : participant::phase::idle;
      if (stopped_) {
        if (leader_after_stop_ && self->now == participant::phase::joined) leave(*self);
        if (!leader_after_stop_ && self->now == participant::phase::idle) final_join(*self);
        return;
      }
      if (self->now == participant::phase::idle) schedule(*self, ms(random_() % 400), &election_workload::join);
    });
  } else if (roll < 8) {
    leave(p);
  } else if (roll < 9) {
    world_.log().add(world_.now(), cat(p.name(), " closes its election"));
    p.giving_up = true;
    p.e->close();
    p.now = participant::phase::idle;
    schedule(p, ms(random_() % 400), &election_workload::join);
  } else {
    world_.log().add(world_.now(), cat(p.name(), " destroys its election while leading"));
    p.e.reset();  // leaves in the background; the listener is not called again
    p.token = 0;
    p.now = participant::phase::idle;
    schedule(p, ms(random_() % 400), &election_workload::join);
  }
}

void election_workload::leave(participant& p) {
  if (p.now != participant::phase::joined) return;
  p.giving_up = true;
  p.now = participant::phase::leaving;
  const std::uint64_t op = ledger_.begin_op();
  world_.log().add(world_.now(), cat(p.name(), " leaves"));
  participant* self = &p;
  p.e->async_leave([this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
    if (alive.expired() || !ledger_.end_op(op, "leave")) return;
    world_.log().add(world_.now(), cat(self->name(), " leave -> ", ec ? ec.message() : "left"));
    if (!ec) ++counts_.leaves;
    if (self->e && self->e->joined()) ledger_.fail(cat(self->name(), " is still joined after its leave"));
    self->now = participant::phase::idle;
    if (stopped_) {
      if (!leader_after_stop_) final_join(*self);
      return;
    }
    schedule(*self, ms(random_() % 400), &election_workload::join);
  });
}

void election_workload::fenced_write(participant& p) {
  if (!p.leads()) return;
  const std::int64_t token = p.e->fencing_token();
  const std::int64_t session = p.e->session_id();
  const std::string node = p.e->node_path();
  const std::uint64_t op = ledger_.begin_op();
  participant* self = &p;
  std::vector<multi_op> write{ops::set(options_.fenced, std::to_string(token))};
  p.e->async_guarded_multi(std::move(write), [this, self, op, token, session, node, alive = std::weak_ptr(alive_)](
                                                 std::error_code ec, const std::vector<op_result>&) {
    if (alive.expired() || !ledger_.end_op(op, "guarded multi")) return;
    world_.log().add(world_.now(),
                     cat(self->name(), " guarded write of token ", token, " -> ", ec ? ec.message() : "applied"));
    if (!ec) ++counts_.fenced_writes;
    if (ec != recipes::lock_errc::lock_lost) return;
    // Refused by the server's check of our node: only a stale leader's write may be.
    const znode* n = world_.zk().tree().find(node);
    if (n != nullptr && n->owner == session) {
      ledger_.fail(cat("the guarded write of token ", token, " was refused while the server backs ", node));
    }
    ++counts_.fenced_refusals;
  });
}

void election_workload::pause_leader(sim_time length) {
  if (stopped_) return;
  for (const auto& p : participants_) {
    if (p->now == participant::phase::joined && p->leads() && !world_.paused(p->process)) {
      world_.log().add(world_.now(),
                       cat("process ", p->process, " (", p->name(), " leads) pauses for ", length.count(), " ms"));
      world_.pause(p->process, world_.now() + length);
      return;
    }
  }
  pauser_ = world_.clock().make_wakeup(world_.server_executor(), [this, length] { pause_leader(length); });
  pauser_->expires_at(world_.clock().now() + ms(100));
}

void election_workload::delete_leader_node(sim_time extra) {
  if (stopped_) return;
  participant* victim = nullptr;
  for (const auto& p : participants_) {
    if (p->now == participant::phase::joined && p->leads() && !world_.paused(p->process)) victim = p.get();
  }
  if (victim == nullptr) {  // nobody leads now: look again soon
    deleter_ = world_.clock().make_wakeup(world_.server_executor(), [this, extra] { delete_leader_node(extra); });
    deleter_->expires_at(world_.clock().now() + ms(100));
    return;
  }
  const std::string node = victim->e->node_path();
  const std::size_t by = (victim->process + 1) % world_.processes();
  const std::uint64_t op = ledger_.begin_op();
  forced_.insert(node);
  ++counts_.forced_deletes;
  world_.net().slow(victim->process, extra, world_.now() + ms(2500));
  world_.log().add(world_.now(), cat("process ", by, " deletes ", victim->name(), "'s node ", node));
  world_.client(by).async_remove(node, any_version, [this, op, alive = std::weak_ptr(alive_)](std::error_code) {
    if (!alive.expired()) ledger_.end_op(op, "operator's delete");
  });
  // The leader writes the fenced resource shortly after (its path is slow: it has not heard yet).
  victim->fence =
      world_.clock().make_wakeup(world_.io(victim->process).get_executor(), [this, victim] { fenced_write(*victim); });
  victim->fence->expires_at(world_.clock().now() + ms(random_() % 50));
}

// The faults have stopped. Every participant joins and stays until one leads; then all leave.
void election_workload::stop() {
  stopped_ = true;
  stopped_at_ = world_.now();
  world_.log().add(world_.now(), "faults stopped: everyone joins, a leader must follow");
  for (auto& p : participants_) {
    p->timer.reset();
    p->fence.reset();
    if (p->now == participant::phase::idle) final_join(*p);
  }
}

void election_workload::final_join(participant& p) {
  if (p.now != participant::phase::idle) return;
  participant* self = &p;
  // On the process's executor, as every call of the recipe.
  p.timer = ledger_.after(p.process, ms(0), [this, self] {
    participant& me = *self;
    if (me.now != participant::phase::idle || leader_after_stop_) return;
    if (!me.e) make(me);
    me.now = participant::phase::joining;
    me.giving_up = false;
    me.lost_since_join = false;
    const std::uint64_t op = ledger_.begin_op();
    me.op = op;
    world_.log().add(world_.now(), cat(me.name(), " joins (after the faults)"));
    me.e->async_join(asio::bind_cancellation_slot(me.cancel.slot(),
                                                  [this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
                                                    if (alive.expired() || !ledger_.end_op(op, "join")) return;
                                                    joined(*self, ec, std::chrono::milliseconds(-1), world_.now());
                                                  }));
  });
}

void election_workload::leave_all() {
  world_.log().add(world_.now(),
                   cat("a leader ", counts_.time_to_leader.count(), " ms after the faults stopped: everyone leaves"));
  for (auto& p : participants_) {
    participant* self = p.get();
    p->timer = ledger_.after(p->process, ms(0), [this, self] {
      participant& me = *self;
      if (me.now == participant::phase::joining) {
        world_.log().add(world_.now(), cat(me.name(), " cancels its join"));
        me.cancel.emit(asio::cancellation_type::terminal);
      } else if (me.now == participant::phase::joined) {
        leave(me);
      }
      // stepping_down and leaving: their completions leave (joined()) or stay idle.
    });
  }
}

bool election_workload::backed(const participant& p) const {
  if (!p.leads()) return false;
  const znode* n = world_.zk().tree().find(p.e->node_path());
  return n != nullptr && n->owner == p.e->session_id() && n->owner != 0;
}

void election_workload::check() {
  // A participant that could not join again after a loss leaves the election by itself (last_error() says why); the
  // application joins it again, as it would.
  for (const auto& p : participants_) {
    if (p->now != participant::phase::joined || !p->e || p->e->joined()) continue;
    ++counts_.dropped_out;
    world_.log().add(world_.now(), cat(p->name(), " left the election by itself: ", p->e->last_error().message()));
    p->now = participant::phase::idle;
    if (stopped_) {
      if (!leader_after_stop_) final_join(*p);
    } else {
      schedule(*p, ms(random_() % 400), &election_workload::join);
    }
  }
  std::size_t backed_leaders = 0;
  std::size_t leaders = 0;
  std::string names;
  std::string margins;
  for (const auto& p : participants_) {
    if (!p->leads()) continue;
    const std::string node = p->e->node_path();
    const bool backs = backed(*p);
    backed_leaders += backs ? 1 : 0;
    names += cat(" ", p->name(), backs ? "(backed " : "(not backed ", node, ", token ", p->e->fencing_token(), ")");
    if (p->e->fencing_token() != p->token) {
      ledger_.fail(
          cat(p->name(), " leads on token ", p->e->fencing_token(), " while its last gained announced ", p->token));
    }
    if (world_.paused(p->process) || forced_.contains(node)) continue;
    ++leaders;
    // Leading means the server cannot expire our session for at least the safety margin (a quarter of the session
    // timeout, the default): `lost` comes by last answered send + timeout - margin, before anyone else may lead.
    const auto expiry = world_.zk().session_expiry(p->e->session_id());
    const auto margin = std::chrono::duration_cast<sim_time>(world_.client(p->process).session_timeout()) / 4;
    if (expiry && *expiry - world_.now() < margin) {
      margins += cat(" ", p->name(), " leads ", (*expiry - world_.now()).count(),
                     " ms before the server may expire its session");
    }
  }
  if (!margins.empty()) ledger_.fail(cat("the safety margin is not kept:", margins));
  if (backed_leaders > 1) ledger_.fail(cat("two leaders backed by the server:", names));
  if (leaders > 1) ledger_.fail(cat("two participants lead:", names));
  if (const znode* r = world_.zk().tree().find(options_.fenced)) {
    const std::int64_t token = std::strtoll(r->data.c_str(), nullptr, 10);
    if (token < fenced_max_) ledger_.fail(cat("the fenced resource got token ", token, " after token ", fenced_max_));
    fenced_max_ = std::max(fenced_max_, token);
  }
  if (!stopped_ || leader_after_stop_) return;
  if (backed_leaders > 0) {
    leader_after_stop_ = true;
    counts_.time_to_leader = world_.now() - stopped_at_;
    leave_all();
  } else if (world_.now() - stopped_at_ > options_.leader_bound) {
    ledger_.fail(cat("no leader within ", options_.leader_bound.count(), " ms after the faults stopped\n", status()));
  }
}

bool election_workload::quiescent() const {
  return leader_after_stop_ && !ledger_.ops_open() &&
         std::all_of(participants_.begin(), participants_.end(),
                     [](const auto& p) { return p->now == participant::phase::idle; });
}

bool election_workload::clean() const {
  return world_.zk().tree().children(options_.directory).empty() && ledger_.clients_and_servers_clean();
}

void election_workload::check_end() {
  std::string names;
  for (const auto& n : world_.zk().tree().children(options_.directory)) names += cat(" ", n);
  if (!names.empty()) ledger_.fail(cat("orphan nodes in ", options_.directory, ":", names));
  for (const auto& p : participants_) {
    if (p->e && p->e->joined()) ledger_.fail(cat(p->name(), " is still in the election at the end"));
  }
  ledger_.check_clients_and_servers_clean();
}

std::string election_workload::status() const {
  std::string out = ledger_.status({options_.directory});
  for (const auto& p : participants_) {
    out += cat(p->name(), " (", recipes::election_naming_name(p->naming),
               "): ", p->e ? recipes::election_state_name(p->e->state()) : std::string_view("no object"), ", phase ",
               phase_names[static_cast<std::size_t>(p->now)], "\n");
  }
  return out;
}

}  // namespace zkwire::sim
