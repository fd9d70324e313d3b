#include "lock_workload.hpp"

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>

#include "text.hpp"

namespace zkwire::sim {

struct lock_workload::contender {
  std::size_t index = 0;
  std::size_t process = 0;
  // Declared before the lock: a pending acquire bound to its slot must end (when the lock goes) before it does.
  asio::cancellation_signal cancel;
  std::unique_ptr<recipes::lock> lock;
  enum class phase { idle, acquiring, holding, releasing } now = phase::idle;
  std::unique_ptr<wakeup> timer;
  std::unique_ptr<wakeup> disturb;  // a cancellation or destruction planned for the current acquire
  std::uint64_t op = 0;
};

lock_workload::lock_workload(world& w, std::uint64_t seed, workload_options options)
    : world_(w), random_(seed ^ 0x5bd1e995ULL), options_(std::move(options)) {
  for (std::size_t p = 0; p < w.processes(); ++p) {
    for (std::size_t i = 0; i < options_.contenders_per_process; ++i) {
      auto c = std::make_unique<contender>();
      c->index = contenders_.size();
      c->process = p;
      c->lock = make_lock(*c);
      contenders_.push_back(std::move(c));
    }
  }
}

// Each contender's node data names it ("c3"), so a trace or a failure can tell whose node a leftover is.
std::unique_ptr<recipes::lock> lock_workload::make_lock(const contender& c) {
  recipes::lock_options options;
  options.data = cat("c", c.index);
  return std::make_unique<recipes::lock>(world_.client(c.process), options_.directory, std::move(options));
}

lock_workload::~lock_workload() {
  // Handlers of operations the destroyed locks give up run later (posted), after this object is gone.
  alive_.reset();
  for (auto& c : contenders_) {
    c->timer.reset();
    c->disturb.reset();
    c->lock.reset();
  }
}

void lock_workload::fail(std::string what) {
  if (violation_) return;
  world_.log().add(world_.now(), cat("VIOLATION: ", what));
  violation_ = std::move(what);
}

std::uint64_t lock_workload::begin_op() {
  const std::uint64_t op = next_op_++;
  open_ops_.insert(op);
  return op;
}

bool lock_workload::end_op(std::uint64_t op, const char* what) {
  if (open_ops_.erase(op) == 0) {
    fail(cat(what, " completion handler ran twice (operation ", op, ")"));
    return false;
  }
  return true;
}

void lock_workload::schedule(contender& c, sim_time delay, void (lock_workload::*action)(contender&)) {
  contender* target = &c;
  c.timer = world_.clock().make_wakeup(world_.io(c.process).get_executor(),
                                       [this, target, action] { (this->*action)(*target); });
  c.timer->expires_at(world_.clock().now() + delay);
}

void lock_workload::start() {
  for (auto& c : contenders_)
    schedule(*c, sim_time{static_cast<sim_time::rep>(random_() % 200)}, &lock_workload::acquire);
}

void lock_workload::stop() { stopped_ = true; }

void lock_workload::acquire(contender& c) {
  if (stopped_ || c.now != contender::phase::idle) return;
  static constexpr std::int64_t timeouts[] = {0, 300, 3000, -1};
  const std::chrono::milliseconds timeout{timeouts[random_() % 4]};
  const std::uint64_t op = begin_op();
  c.now = contender::phase::acquiring;
  c.op = op;
  world_.log().add(world_.now(), cat("c", c.index, " acquire (timeout ", timeout.count(), " ms)"));
  contender* self = &c;
  c.lock->async_acquire(
      timeout, asio::bind_cancellation_slot(c.cancel.slot(), [this, self, op,
                                                              alive = std::weak_ptr(alive_)](std::error_code ec) {
        if (alive.expired() || !end_op(op, "acquire")) return;
        contender& me = *self;
        me.disturb.reset();
        world_.log().add(world_.now(), cat("c", me.index, " acquire -> ",
                                           ec ? ec.message() : cat("granted, token ", me.lock->fencing_token())));
        if (ec == condition::session_ended) renew_session(me.process);
        if (ec) {
          me.now = contender::phase::idle;
          schedule(me, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &lock_workload::acquire);
          return;
        }
        ++grants_;
        const std::int64_t token = me.lock->fencing_token();
        if (token <= last_token_) {
          fail(cat("fencing token ", token, " granted after ", last_token_));
        }
        last_token_ = std::max(last_token_, token);
        me.now = contender::phase::holding;
        // The holder invariants are checked between rounds (world::run_until's after_step), not here: a process
        // whose pause ends at this very instant has not yet run what it owes (its loss) when this handler runs.
        schedule(me, sim_time{10 + static_cast<sim_time::rep>(random_() % 600)}, &lock_workload::release);
      }));
  // Some acquires are disturbed before they finish: cancelled, or their lock object destroyed.
  const auto roll = random_() % 20;
  if (roll < 2) {
    c.disturb = world_.clock().make_wakeup(world_.io(c.process).get_executor(), [this, self, op] {
      if (self->now != contender::phase::acquiring || self->op != op) return;
      world_.log().add(world_.now(), cat("c", self->index, " cancels its acquire"));
      self->cancel.emit(asio::cancellation_type::terminal);
    });
  } else if (roll < 3) {
    c.disturb = world_.clock().make_wakeup(world_.io(c.process).get_executor(), [this, self, op] {
      if (self->now != contender::phase::acquiring || self->op != op) return;
      world_.log().add(world_.now(), cat("c", self->index, " destroys its lock mid-acquire"));
      self->lock = make_lock(*self);
    });
  }
  if (c.disturb) c.disturb->expires_at(world_.clock().now() + sim_time{static_cast<sim_time::rep>(random_() % 500)});
}

// After an expiry a service starts a new session on the same client, as the application would; the new session
// must never adopt a node of the old one.
void lock_workload::renew_session(std::size_t process) {
  if (stopped_ || renewing_.contains(process)) return;
  renewing_.insert(process);
  world_.log().add(world_.now(), cat("process ", process, " starts a new session"));
  world_.client(process).async_new_session([this, process, alive = std::weak_ptr(alive_)](std::error_code) {
    if (!alive.expired()) renewing_.erase(process);
  });
}

void lock_workload::release(contender& c) {
  if (c.now != contender::phase::holding) return;
  const std::uint64_t op = begin_op();
  c.now = contender::phase::releasing;
  contender* self = &c;
  c.lock->async_release([this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
    if (alive.expired() || !end_op(op, "release")) return;
    world_.log().add(world_.now(), cat("c", self->index, " release -> ", ec ? ec.message() : "released"));
    self->now = contender::phase::idle;
    schedule(*self, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &lock_workload::acquire);
  });
}

void lock_workload::check() {
  std::size_t backed = 0;
  std::size_t held_unpaused = 0;
  std::string holders;
  for (const auto& c : contenders_) {
    if (!c->lock || c->lock->state() != recipes::lock_state::held) continue;
    const std::string node = c->lock->node_path();
    const znode* n = world_.zk().tree().find(node);
    const bool backs = n != nullptr && n->owner == c->lock->session_id() && n->owner != 0;
    backed += backs ? 1 : 0;
    if (!world_.paused(c->process)) ++held_unpaused;
    holders += cat(" c", c->index, backs ? "(backed " : "(not backed ", node, ")");
  }
  if (backed > 1) fail(cat("two holders backed by the server:", holders));
  if (held_unpaused > 1) fail(cat("two lock objects in state held:", holders));
}

bool lock_workload::quiescent() const {
  if (!open_ops_.empty()) return false;
  for (const auto& c : contenders_) {
    if (c->now != contender::phase::idle) return false;
  }
  return true;
}

void lock_workload::check_end() {
  const auto left = world_.zk().tree().children(options_.directory);
  if (!left.empty()) {
    std::string names;
    for (const auto& n : left) names += cat(" ", n);
    fail(cat("orphan nodes in ", options_.directory, ":", names));
  }
  for (std::size_t p = 0; p < world_.processes(); ++p) {
    if (const auto n = world_.client(p).pending_requests(); n != 0) {
      fail(cat("process ", p, " has ", n, " pending requests at the end"));
    }
  }
}

std::string lock_workload::status() const {
  std::string out;
  for (std::size_t p = 0; p < world_.processes(); ++p) {
    auto& c = world_.client(p);
    out += cat("process ", p, ": session 0x", std::hex, c.session_id(), std::dec, " ",
               proto::session_state_name(c.state()), ", ", c.pending_requests(), " pending\n");
  }
  for (const auto& name : world_.zk().tree().children(options_.directory)) {
    const znode* n = world_.zk().tree().find(options_.directory + "/" + name);
    out += cat("node ", name, " owner 0x", std::hex, n ? n->owner : 0, std::dec, " data ", n ? n->data : "", "\n");
  }
  for (const auto& c : contenders_) {
    out +=
        cat("c", c->index, ": ", recipes::lock_state_name(c->lock->state()), " phase ", static_cast<int>(c->now), "\n");
  }
  return out;
}

}  // namespace zkwire::sim
