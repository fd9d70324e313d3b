#include "lock_impl.hpp"

#include <unistd.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <mutex>
#include <utility>
#include <vector>

#include "zkwire/recipes/revoke.hpp"

namespace zkwire::recipes::detail {
namespace {

// The default ACL (open_acl_unsafe), one copy for every lock object using it; any other, a copy of its own.
std::shared_ptr<const std::vector<zkwire::acl>> shared_acl(std::vector<zkwire::acl> acl) {
  static const auto open = std::make_shared<const std::vector<zkwire::acl>>(zkwire::open_acl_unsafe());
  if (acl == *open) return open;
  return std::make_shared<const std::vector<zkwire::acl>>(std::move(acl));
}

// The node data: the default (host:pid), one copy for every lock object of this process using it (made again in a
// forked child, whose pid differs); any other, a copy of its own.
std::shared_ptr<const std::string> shared_data(std::string data) {
  if (!data.empty()) return std::make_shared<const std::string>(std::move(data));
  static std::mutex mutex;
  static std::shared_ptr<const std::string> fallback;
  static ::pid_t pid = 0;
  const std::lock_guard<std::mutex> guard(mutex);
  if (!fallback || pid != ::getpid()) {
    pid = ::getpid();
    fallback = std::make_shared<const std::string>(default_lock_data());
  }
  return fallback;
}

}  // namespace

lock_impl::lock_impl(client& c, std::string directory, lock_kind kind, lock_options options, const queue_rule* rule)
    : hold_monitor(c, options.safety_margin),
      directory_(std::move(directory)),
      rule_(rule != nullptr ? rule : &lock_rule(options.name_format, kind)),
      kind_(kind),
      reentrant_(options.reentrant),
      data_(shared_data(std::move(options.data))),
      acl_(shared_acl(std::move(options.acl))),
      metrics_(std::move(options.metrics), clock(), directory_, kind_) {
  if (options.guids.is_seeded()) rare().guids = std::move(options.guids);
}

const guid_source& lock_impl::guids() const noexcept {
  static const guid_source random_source;  // the default: no state of its own
  return rare_ ? rare_->guids : random_source;
}

// --- acquire ---

std::uint64_t lock_impl::start_acquire(std::chrono::milliseconds timeout, completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (reentrant_ && (state_ == lock_state::held || state_ == lock_state::uncertain)) {
    ++holds_;  // one more hold of the node we have
    complete(std::move(done), {});
    return id;
  }
  std::error_code refuse = acquire_refusal(state_, current_ != nullptr);
  if (auto sibling = sibling_.lock(); !refuse && sibling && kind_ == lock_kind::write && sibling->busy()) {
    refuse = lock_errc::upgrade_not_allowed;
  }
  if (!refuse && link_->get() == nullptr) refuse = client_error::closed;
  if (refuse) {
    complete(std::move(done), refuse);
    return id;
  }
  auto a = make_attempt(shared_from_this());
  a->id = id;
  a->done = std::move(done);
  current_ = a;
  start_deadline(shared_from_this(), a, clock(), executor(), timeout);
  metrics_.acquire_started();
  set_state(lock_state::acquiring, {});
  spawn_acquire(a);
  return id;
}

void lock_impl::cancel_acquire(std::uint64_t id) {
  if (current_ && current_->id == id) give_up(current_, lock_errc::cancelled);
}

void lock_impl::give_up(const std::shared_ptr<attempt>& a, std::error_code ec) {
  give_up_attempt(current_, a, metrics_, ec, [] {});
}

bool lock_impl::grant(const std::shared_ptr<attempt>& a, const owned_node& node, std::int64_t alone_zxid) {
  if (a->abandoned || current_ != a) return false;
  current_.reset();
  if (a->deadline) a->deadline->cancel();
  node_ = node;
  alone_zxid_ = alone_zxid;
  holds_ = 1;
  ++grant_id_;
  ++generation_;
  own_watch_armed_ = false;
  revocation_seen_mzxid_ = 0;
  metrics_.acquire_ended({});
  set_state(lock_state::held, {});
  auto done = std::move(a->done);
  a->abandoned = true;
  complete(std::move(done), {});
  // The own-node watch (loss on deletion, revocation) is sent from a handler posted behind the caller's: nothing
  // waits for it, and a caller that releases at once (a short critical section) sends no getData at all. A deletion
  // before it is sent is still seen: the getData then fails with no_node.
  asio::post(executor(), [weak = std::weak_ptr<lock_impl>(shared_from_this()), generation = generation_] {
    auto self = weak.lock();
    if (self && self->generation_ == generation && !self->own_watch_armed_) self->watch_own_node(generation);
  });
  arm_margin_timer(generation_);
  catch_up_with_session();
  return true;
}

std::string lock_impl::sibling_held_node() const {
  auto sibling = sibling_.lock();
  if (!sibling || !sibling->node_) return {};
  const auto s = sibling->state_;
  return s == lock_state::held || s == lock_state::uncertain ? std::string(sibling->node_->name()) : std::string();
}

// --- holding ---

void lock_impl::watch_own_node(std::uint64_t generation) {
  client* c = link_->get();
  if (c == nullptr || !node_) return;
  own_watch_armed_ = true;
  auto weak = std::weak_ptr<lock_impl>(shared_from_this());
  c->async_get(
      node_->path,
      [weak, generation](const watch_event& e) {
        auto self = weak.lock();
        if (!self || self->generation_ != generation) return;
        self->own_watch_armed_ = false;
        if (e.error) {
          self->on_lost(e.error);
        } else if (e.type == event_type::node_deleted) {
          self->on_lost(lock_errc::node_deleted);
        } else if (e.type == event_type::node_data_changed || e.type == event_type::data_watch_removed) {
          // Changed data may be a revocation request: read it and watch again. A removed watch means a waiter of
          // this client that gave up removed the client's data watches on our node: watch again.
          self->watch_own_node(generation);
        }
      },
      [weak, generation](std::error_code ec, const get_result& r) {
        auto self = weak.lock();
        if (!self || self->generation_ != generation) return;
        if (ec) {
          self->own_watch_armed_ = false;
          // Connection loss: verify_after_reconnect watches again.
          if (ec == server_error::no_node) self->on_lost(lock_errc::node_deleted);
          if (is_session_fatal(ec)) self->on_lost(ec);
          return;
        }
        if (is_revoke_request(r.data) && r.stat.mzxid != self->revocation_seen_mzxid_) {
          self->revocation_seen_mzxid_ = r.stat.mzxid;
          if (self->rare_ && self->rare_->revocation) {
            const auto handler = self->rare_->revocation;  // a copy: the handler may replace itself
            handler(r.data);
          }
        }
      });
}

std::vector<const owned_node*> lock_impl::held_nodes() const {
  if (!node_) return {};
  return {&*node_};
}

void lock_impl::on_verified(std::uint64_t generation) {
  if (!own_watch_armed_) watch_own_node(generation);
}

void lock_impl::on_lost(std::error_code reason) {
  if (state_ != lock_state::held && state_ != lock_state::uncertain) return;
  ++generation_;
  cancel_margin_timer();
  metrics_.hold_ended(reason);
  // If the session lives on (safety margin, session still resumable) our node would block everyone: delete it.
  // Started before anyone hears of the loss: a listener may release the lost lock at once (a lock_keeper does),
  // which forgets the node, and a session that lives on would keep it in everyone's way. Only if it is still ours:
  // after session_changed the node at our path may be another session's.
  if (node_ && reason != lock_errc::node_deleted) {
    asio::co_spawn(executor(), delete_own_until_gone(link_, *node_), asio::detached);
  }
  set_state(lock_state::lost, reason);
  lost_signal_.emit(asio::cancellation_type::terminal);
  lost_waiters_.finish_all(lock_errc::lock_lost);
}

// --- release ---

bool lock_impl::follows_quiet_release(const zkwire::stat& created) noexcept {
  const quiet_release q = quiet_;
  quiet_ = quiet_release{0, 0, false, q.last_held};
  if (q.alone_zxid == 0) return false;
  // The same epoch too (the zxid's high 32 bits): a new leader starts its epoch's counter again.
  quiet_.last_held = q.deleted && created.ephemeral_owner == q.session && created.czxid == q.alone_zxid + 2 &&
                     (created.czxid >> 32) == (q.alone_zxid >> 32);
  return quiet_.last_held;
}

void lock_impl::end_hold() {
  ++generation_;  // the margin wakeup may stay pending (arm_margin_timer): it finds no hold
  holds_ = 0;
  node_.reset();
  alone_zxid_ = 0;
  set_state(lock_state::released, {});
}

std::uint64_t lock_impl::start_release(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (state_ == lock_state::lost) {
    end_hold();  // the node's deletion was started when the lock was lost
    complete(std::move(done), lock_errc::lock_lost);
    return id;
  }
  if (holds_ == 0) {
    complete(std::move(done), lock_errc::not_held);
    return id;
  }
  if (--holds_ > 0) {
    complete(std::move(done), {});
    return id;
  }
  std::string path = node_->path;
  // The delete is one transaction of this session, after alone_zxid_ and before our next create (sent later on the
  // same session): if that create's zxid is alone_zxid_ + 2, the delete was the only transaction in between.
  const std::int64_t alone_zxid = alone_zxid_;
  quiet_ = quiet_release{alone_zxid, alone_zxid != 0 ? node_->session : 0, false, quiet_.last_held};
  metrics_.hold_ended({});
  end_hold();
  lost_waiters_.finish_all(lock_errc::not_held);
  releases_.add(id, std::move(done));
  client* c = link_->get();
  if (c == nullptr) {  // closed: the session's end deletes the node
    releases_.finish(id, {});
    return id;
  }
  // The delete goes out now with a plain callback (no coroutine for the common case); only a connection loss needs
  // the retrying task.
  c->async_remove(path, any_version, [self = shared_from_this(), path, id, alone_zxid](std::error_code ec) mutable {
    if (!ec && alone_zxid != 0 && self->quiet_.alone_zxid == alone_zxid) self->quiet_.deleted = true;
    if (is_connection_loss(ec)) {
      asio::co_spawn(self->executor(), release_task(self, std::move(path), id), asio::detached);
      return;
    }
    self->releases_.finish(id, {});  // deleted, already gone, or the session ended (it deletes it too)
  });
  return id;
}

asio::awaitable<void> lock_impl::release_task(std::shared_ptr<lock_impl> self, std::string node_path,
                                              std::uint64_t release_id) {
  auto cleanup = delete_until_gone(self->link_, std::move(node_path));
  co_await std::move(cleanup);
  self->releases_.finish(release_id, {});
}

void lock_impl::cancel_release(std::uint64_t id) { releases_.finish(id, client_error::cancelled); }

std::uint64_t lock_impl::start_wait_lost(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  lost_waiters_.add_lost_waiter(state_, id, std::move(done));
  return id;
}

void lock_impl::cancel_wait_lost(std::uint64_t id) { lost_waiters_.finish(id, client_error::cancelled); }

void lock_impl::start_guarded_multi(std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done) {
  client* c = link_->get();
  if ((state_ != lock_state::held && state_ != lock_state::uncertain) || !node_ || c == nullptr) {
    complete(std::move(done), lock_errc::not_held, {});
    return;
  }
  ops.insert(ops.begin(), zkwire::ops::check(node_->path, any_version));
  c->async_multi(std::move(ops), [done = std::move(done)](std::error_code ec, std::vector<op_result> results) mutable {
    if (ec && !results.empty() && results.front().error) {
      complete(std::move(done), lock_errc::lock_lost, {});  // the check failed: our node is gone, nothing was applied
      return;
    }
    if (!results.empty()) results.erase(results.begin());
    complete(std::move(done), ec, std::move(results));
  });
}

// --- the lock object goes away ---

void lock_impl::abandon() noexcept {
  try {
    if (current_) give_up(current_, lock_errc::cancelled);
    if (state_ == lock_state::held || state_ == lock_state::uncertain) {
      holds_ = 1;
      start_release(make_completion<>([](std::error_code) {}, executor()));
    }
    listener_ = nullptr;
    if (rare_) {
      rare_->revocation = nullptr;
      rare_->enqueued = nullptr;
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; the session's end cleans up
  }
}

}  // namespace zkwire::recipes::detail
