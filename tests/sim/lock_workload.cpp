#include "lock_workload.hpp"

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <cstdlib>

#include "text.hpp"
#include "zkwire/recipes/revoke.hpp"

namespace zkwire::sim {

struct lock_workload::contender {
  enum class role { exclusive, revocable, reader, writer };
  std::size_t index = 0;
  std::size_t process = 0;
  role is = role::exclusive;
  // Declared before the lock: a pending acquire bound to its slot must end (when the lock goes) before it does.
  asio::cancellation_signal cancel;
  std::unique_ptr<recipes::lock> lock;
  enum class phase { idle, acquiring, holding, releasing } now = phase::idle;
  std::unique_ptr<wakeup> timer;
  std::unique_ptr<wakeup> disturb;  // a cancellation or destruction planned for the current acquire
  std::unique_ptr<wakeup> fence;    // a guarded write planned for the current hold
  std::uint64_t op = 0;

  [[nodiscard]] bool rw() const noexcept { return is == role::reader || is == role::writer; }
  [[nodiscard]] const char* name() const noexcept {
    switch (is) {
      case role::revocable:
        return "r";
      case role::reader:
        return "rd";
      case role::writer:
        return "wr";
      default:
        return "c";
    }
  }
};

lock_workload::lock_workload(world& w, std::uint64_t seed, workload_options options)
    : world_(w), ledger_(w), random_(seed ^ 0x5bd1e995ULL), options_(std::move(options)) {
  // The guids' seeds are not drawn from random_, so that adding them left every seed's schedule as it was.
  for (std::size_t p = 0; p < w.processes(); ++p) {
    guids_.push_back(recipes::guid_source::seeded((seed << 8U) ^ (0xa0761d6478bd642fULL + p)));
  }
  for (std::size_t p = 0; p < w.processes(); ++p) {
    for (std::size_t i = 0; i < options_.contenders_per_process; ++i) {
      auto c = std::make_unique<contender>();
      c->index = contenders_.size();
      c->process = p;
      // Slot 0 exclusive; slot 1 exclusive or revocable; further slots one side of the read/write lock.
      if (!options_.calm && i == 1 && random_() % 2 == 0) c->is = contender::role::revocable;
      if (!options_.calm && i >= 2) c->is = random_() % 2 == 0 ? contender::role::reader : contender::role::writer;
      make_lock(*c);
      contenders_.push_back(std::move(c));
    }
  }
}

// Each contender's node data names it ("c3", "r4": revocable, "rd5"/"wr5": reader/writer), so a trace or a failure
// can tell whose node a leftover is, and the revoker knows whom it may revoke.
void lock_workload::make_lock(contender& c) {
  recipes::lock_options options;
  options.data = cat(c.name(), c.index);
  options.guids = guids_[c.process];
  const auto kind = c.is == contender::role::reader   ? recipes::lock_kind::read
                    : c.is == contender::role::writer ? recipes::lock_kind::write
                                                      : recipes::lock_kind::exclusive;
  c.lock = std::make_unique<recipes::lock>(
      world_.client(c.process), c.rw() ? options_.rw_directory : options_.directory, kind, std::move(options));
  if (c.is != contender::role::revocable) return;
  contender* self = &c;
  // Asked to release: do so (revocable holders hold until then). A lost lock is released too (it resets it).
  c.lock->set_revocation_handler([this, self, alive = std::weak_ptr(alive_)](const std::string& request) {
    if (alive.expired() || self->now != contender::phase::holding) return;
    ++revocations_;
    world_.log().add(world_.now(), cat("r", self->index, " honours revocation (", request, ")"));
    schedule(*self, sim_time{0}, &lock_workload::release);
  });
  c.lock->set_listener([this, self, alive = std::weak_ptr(alive_)](const recipes::lock_event& e) {
    if (alive.expired() || e.to != recipes::lock_state::lost || self->now != contender::phase::holding) return;
    schedule(*self, sim_time{0}, &lock_workload::release);
  });
}

lock_workload::~lock_workload() {
  // Handlers of operations the destroyed locks give up run later (posted), after this object is gone.
  alive_.reset();
  revoker_.reset();
  forcer_.reset();
  for (auto& c : contenders_) {
    c->timer.reset();
    c->disturb.reset();
    c->fence.reset();
    c->lock.reset();
  }
}

void lock_workload::schedule(contender& c, sim_time delay, void (lock_workload::*action)(contender&)) {
  contender* target = &c;
  c.timer = ledger_.after(c.process, delay, [this, target, action] { (this->*action)(*target); });
}

void lock_workload::start() {
  ledger_.authenticate_all(alive_);
  for (auto& c : contenders_)
    schedule(*c, sim_time{static_cast<sim_time::rep>(random_() % 200)}, &lock_workload::acquire);
  create_fenced();
  if (std::any_of(contenders_.begin(), contenders_.end(),
                  [](const auto& c) { return c->is == contender::role::revocable; })) {
    schedule_revoker(sim_time{100});
  }
}

// The fenced resource, made with a plain create from process 0 (retried until it exists; guarded writes before
// that fail with no_node, which the oracle accepts).
void lock_workload::create_fenced() {
  const std::uint64_t op = ledger_.begin_op();
  world_.client(0).async_create(options_.fenced, "0",
                                [this, op, alive = std::weak_ptr(alive_)](std::error_code ec, const create_result&) {
                                  if (alive.expired() || !ledger_.end_op(op, "create")) return;
                                  if (!ec || ec == server_error::node_exists || stopped_) return;
                                  if (ec == condition::session_ended) renew_session(0);
                                  create_fenced();
                                });
}

void lock_workload::stop() { stopped_ = true; }

void lock_workload::acquire(contender& c) {
  if (stopped_ || c.now != contender::phase::idle) return;
  static constexpr std::int64_t timeouts[] = {0, 300, 3000, -1};
  const std::chrono::milliseconds timeout{options_.calm ? -1 : timeouts[random_() % 4]};
  const std::uint64_t op = ledger_.begin_op();
  c.now = contender::phase::acquiring;
  c.op = op;
  world_.log().add(world_.now(), cat("c", c.index, " acquire (timeout ", timeout.count(), " ms)"));
  contender* self = &c;
  const sim_time started = world_.now();
  if (timeout.count() < 0) ++unbounded_acquires_;
  c.lock->async_acquire(
      timeout, asio::bind_cancellation_slot(c.cancel.slot(), [this, self, op, timeout, started,
                                                              alive = std::weak_ptr(alive_)](std::error_code ec) {
        if (alive.expired() || !ledger_.end_op(op, "acquire")) return;
        contender& me = *self;
        me.disturb.reset();
        // A timeout is an answer about the time limit: never before it has passed.
        if (ec == recipes::lock_errc::timeout && world_.now() - started < timeout) {
          ledger_.fail(cat("c", me.index, "'s acquire timed out after ", (world_.now() - started).count(),
                           " ms of its ", timeout.count(), " ms"));
        }
        if (!ec && timeout.count() < 0) ++unbounded_grants_;
        world_.log().add(world_.now(), cat("c", me.index, " acquire -> ",
                                           ec ? ec.message() : cat("granted, token ", me.lock->fencing_token())));
        if (ec == condition::session_ended) renew_session(me.process);
        if (ec) {
          me.now = contender::phase::idle;
          schedule(me, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &lock_workload::acquire);
          return;
        }
        granted(me);
      }));
  // Some acquires are disturbed before they finish: cancelled, or their lock object destroyed.
  const auto roll = options_.calm ? 20 : random_() % 20;
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
      make_lock(*self);
    });
  }
  if (c.disturb) c.disturb->expires_at(world_.clock().now() + sim_time{static_cast<sim_time::rep>(random_() % 500)});
}

void lock_workload::granted(contender& c) {
  ++grants_;
  const std::int64_t token = c.lock->fencing_token();
  // Exclusive and write grants: newer than every earlier grant of their directory. Read grants: newer than every
  // earlier write grant (readers granted together may complete in any order).
  if (c.is == contender::role::reader) {
    if (token <= last_writer_token_)
      ledger_.fail(cat("read lock token ", token, " granted after write token ", last_writer_token_));
    last_rw_token_ = std::max(last_rw_token_, token);
  } else if (c.is == contender::role::writer) {
    if (token <= last_rw_token_) ledger_.fail(cat("write lock token ", token, " granted after token ", last_rw_token_));
    last_rw_token_ = std::max(last_rw_token_, token);
    last_writer_token_ = token;
  } else {
    if (token <= last_token_) ledger_.fail(cat("fencing token ", token, " granted after ", last_token_));
    last_token_ = std::max(last_token_, token);
  }
  c.now = contender::phase::holding;
  // The holder invariants are checked between rounds (world::run_until's after_step), not here: a process whose
  // pause ends at this very instant has not yet run what it owes (its loss) when this handler runs.
  // A revocable holder holds until revoked (or lost); the others for a while.
  if (c.is != contender::role::revocable) {
    schedule(c, sim_time{10 + static_cast<sim_time::rep>(random_() % 600)}, &lock_workload::release);
  }
  // Half the exclusive holds write the fenced resource once, at a random point of the hold (perhaps after the
  // hold was lost: the guarded write must then fail).
  if (c.is == contender::role::exclusive && random_() % 2 == 0) {
    contender* self = &c;
    c.fence = world_.clock().make_wakeup(world_.io(c.process).get_executor(), [this, self] { fenced_write(*self); });
    c.fence->expires_at(world_.clock().now() + sim_time{static_cast<sim_time::rep>(random_() % 700)});
  }
}

void lock_workload::fenced_write(contender& c) {
  if (c.now != contender::phase::holding) return;
  const std::int64_t token = c.lock->fencing_token();
  const std::int64_t session = c.lock->session_id();
  const std::string node = c.lock->node_path();
  const std::uint64_t op = ledger_.begin_op();
  contender* self = &c;
  std::vector<multi_op> write{ops::set(options_.fenced, std::to_string(token))};
  c.lock->async_guarded_multi(std::move(write), [this, self, op, token, session, node, alive = std::weak_ptr(alive_)](
                                                    std::error_code ec, const std::vector<op_result>&) {
    if (alive.expired() || !ledger_.end_op(op, "guarded multi")) return;
    world_.log().add(world_.now(),
                     cat("c", self->index, " guarded write of token ", token, " -> ", ec ? ec.message() : "applied"));
    if (!ec) ++fenced_writes_;
    if (ec != recipes::lock_errc::lock_lost) return;
    // Refused by the server's check of our node: only a stale holder's write may be (the node is gone, or, were
    // its name ever reused, another session's).
    const znode* n = world_.zk().tree().find(node);
    if (n != nullptr && n->owner == session) {
      ledger_.fail(cat("the guarded write of token ", token, " was refused while the server backs ", node));
    }
    ++fenced_refusals_;
  });
}

void lock_workload::force_unlock(sim_time extra) {
  if (stopped_) return;
  contender* victim = nullptr;
  for (const auto& c : contenders_) {
    if (!c->rw() && c->now == contender::phase::holding && c->lock->state() == recipes::lock_state::held) {
      victim = c.get();
    }
  }
  if (victim == nullptr) {  // nobody holds now: look again soon
    forcer_ = world_.clock().make_wakeup(world_.server_executor(), [this, extra] { force_unlock(extra); });
    forcer_->expires_at(world_.clock().now() + sim_time{100});
    return;
  }
  const std::string node = victim->lock->node_path();
  const std::size_t by = (victim->process + 1) % world_.processes();
  const std::uint64_t op = ledger_.begin_op();
  forced_.insert(node);
  world_.net().slow(victim->process, extra, world_.now() + sim_time{2500});
  world_.log().add(world_.now(),
                   cat("process ", by, " force-unlocks ", victim->name(), victim->index, " (", node, ")"));
  world_.client(by).async_remove(node, any_version, [this, op, alive = std::weak_ptr(alive_)](std::error_code) {
    if (!alive.expired()) ledger_.end_op(op, "forced delete");
  });
  // The victim's application writes the fenced resource shortly after (its path is slow: it has not heard yet).
  victim->fence =
      world_.clock().make_wakeup(world_.io(victim->process).get_executor(), [this, victim] { fenced_write(*victim); });
  victim->fence->expires_at(world_.clock().now() + sim_time{static_cast<sim_time::rep>(random_() % 50)});
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
  c.fence.reset();
  const std::uint64_t op = ledger_.begin_op();
  c.now = contender::phase::releasing;
  contender* self = &c;
  c.lock->async_release([this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
    if (alive.expired() || !ledger_.end_op(op, "release")) return;
    world_.log().add(world_.now(), cat("c", self->index, " release -> ", ec ? ec.message() : "released"));
    if (!ec) ++releases_;
    self->now = contender::phase::idle;
    schedule(*self, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &lock_workload::acquire);
  });
}

std::uint64_t lock_workload::wakeups() const {
  std::uint64_t n = 0;
  for (const auto& c : contenders_) n += c->lock ? c->lock->wakeups() : 0;
  return n;
}

bool lock_workload::revocable_busy() const {
  return std::any_of(contenders_.begin(), contenders_.end(), [](const auto& c) {
    return c->is == contender::role::revocable && c->now != contender::phase::idle;
  });
}

void lock_workload::schedule_revoker(sim_time delay) {
  const std::size_t p = random_() % world_.processes();
  revoker_ = world_.clock().make_wakeup(world_.io(p).get_executor(), [this] {
    if (stopped_ && !revocable_busy()) return;  // nobody left to revoke: the revoker stops
    revoke_tick();
  });
  revoker_->expires_at(world_.clock().now() + delay);
}

// The revoker, plain client operations: list the directory, read the first contender's node, and revoke it if
// it is a revocable contender's. Every step tolerates whatever the faults do to it and tries again later.
void lock_workload::revoke_tick() {
  const std::size_t p = random_() % world_.processes();
  auto& c = world_.client(p);
  const std::uint64_t op = ledger_.begin_op();
  const auto again = [this] { schedule_revoker(sim_time{50 + static_cast<sim_time::rep>(random_() % 300)}); };
  c.async_get_children(options_.directory, [this, p, op, again, alive = std::weak_ptr(alive_)](
                                               std::error_code ec, const children_result& r) {
    if (alive.expired() || !ledger_.end_op(op, "list")) return;
    const auto sorted = recipes::sort_in_lock_order(r.children);
    if (ec || sorted.empty() || !sorted.front().is_contender()) return again();
    const std::string path = options_.directory + "/" + sorted.front().name;
    const std::uint64_t get_op = ledger_.begin_op();
    world_.client(p).async_get(
        path, [this, p, path, get_op, again, alive](std::error_code get_ec, const get_result& got) {
          if (alive.expired() || !ledger_.end_op(get_op, "get")) return;
          if (get_ec || got.data.empty() || got.data.front() != 'r' || got.data.starts_with("rd")) return again();
          const std::uint64_t revoke_op = ledger_.begin_op();
          world_.log().add(world_.now(), cat("process ", p, " revokes ", got.data));
          recipes::async_revoke(world_.client(p), path,
                                [this, revoke_op, again, alive](std::error_code, const zkwire::stat&) {
                                  if (alive.expired() || !ledger_.end_op(revoke_op, "revoke")) return;
                                  again();
                                });
        });
  });
}

// The holders of one directory: at most one exclusive or write holder, and a writer only alone; among those the
// server backs, and among lock objects in state held in unpaused processes.
void lock_workload::check_holders(const std::string& directory) {
  std::size_t backed = 0;
  std::size_t backed_writers = 0;
  std::size_t held = 0;
  std::size_t held_writers = 0;
  std::string holders;
  std::string margins;
  for (const auto& c : contenders_) {
    if (!c->lock || c->lock->state() != recipes::lock_state::held || c->lock->directory() != directory) continue;
    const bool excludes = c->is != contender::role::reader;
    const std::string node = c->lock->node_path();
    const znode* n = world_.zk().tree().find(node);
    const bool backs = n != nullptr && n->owner == c->lock->session_id() && n->owner != 0;
    backed += backs ? 1 : 0;
    backed_writers += backs && excludes ? 1 : 0;
    if (!world_.paused(c->process) && !forced_.contains(node)) {
      ++held;
      held_writers += excludes ? 1 : 0;
      // Held means the server cannot expire our session for at least the safety margin (a quarter of the session
      // timeout, lock_options' default): lost is signalled by last answered send + timeout - margin, and the server
      // heard that send no earlier than it was written. A holder left with less time has no margin to stop in.
      const auto expiry = world_.zk().session_expiry(c->lock->session_id());
      const auto margin = std::chrono::duration_cast<sim_time>(world_.client(c->process).session_timeout()) / 4;
      if (expiry && *expiry - world_.now() < margin) {
        margins += cat(" ", c->name(), c->index, " held ", (*expiry - world_.now()).count(),
                       " ms before the server may expire its session");
      }
    }
    holders += cat(" ", c->name(), c->index, backs ? "(backed " : "(not backed ", node, ")");
  }
  if (!margins.empty()) ledger_.fail(cat("the safety margin is not kept:", margins));
  if (backed_writers > 0 && backed > 1) ledger_.fail(cat("two holders backed by the server:", holders));
  if (held_writers > 0 && held > 1) ledger_.fail(cat("two lock objects in state held:", holders));
}

void lock_workload::check() {
  check_holders(options_.directory);
  check_holders(options_.rw_directory);
  if (const znode* r = world_.zk().tree().find(options_.fenced)) {
    const std::int64_t token = std::strtoll(r->data.c_str(), nullptr, 10);
    if (token < fenced_max_) ledger_.fail(cat("the fenced resource got token ", token, " after token ", fenced_max_));
    fenced_max_ = std::max(fenced_max_, token);
  }
}

bool lock_workload::quiescent() const {
  if (!!ledger_.ops_open()) return false;
  for (const auto& c : contenders_) {
    if (c->now != contender::phase::idle) return false;
  }
  return true;
}

bool lock_workload::clean() const {
  for (const auto* dir : {&options_.directory, &options_.rw_directory}) {
    if (!world_.zk().tree().children(*dir).empty()) return false;
  }
  return ledger_.clients_and_servers_clean();
}

void lock_workload::check_end() {
  for (const auto* dir : {&options_.directory, &options_.rw_directory}) {
    const auto left = world_.zk().tree().children(*dir);
    if (left.empty()) continue;
    std::string names;
    for (const auto& n : left) names += cat(" ", n);
    ledger_.fail(cat("orphan nodes in ", *dir, ":", names));
  }
  ledger_.check_clients_and_servers_clean();
}

std::string lock_workload::status() const {
  std::string out = ledger_.status({options_.directory, options_.rw_directory});
  for (const auto& c : contenders_) {
    out += cat(c->name(), c->index, ": ", recipes::lock_state_name(c->lock->state()), " phase ",
               static_cast<int>(c->now), "\n");
  }
  return out;
}

}  // namespace zkwire::sim
