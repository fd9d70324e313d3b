#include "lock_runner.hpp"

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <system_error>

#include "async_session.hpp"
#include "child_supervisor.hpp"
#include "errors.hpp"
#include "lock_format.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/multi_lock.hpp"

namespace zkwire::cli {
namespace {

using recipes::lock_errc;
using recipes::lock_state;

// How long a holder that lost its lock waits for the session to close before it exits.
constexpr std::chrono::milliseconds lost_close_limit{2000};

// "2.5 s" for messages.
std::string seconds_text(std::chrono::milliseconds ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g s", static_cast<double>(ms.count()) / 1000.0);
  return buffer;
}

// The exit status for an acquire that failed with `ec` (not a timeout): the recipes' own conditions (the session
// changed under us) mean no usable session, like the client's session errors.
int exit_status_for_lock(const std::error_code& ec) {
  if (ec.category() == recipes::recipes_category()) return exit_no_session;
  return exit_status_for(ec);
}

// One run of `zkwire lock`, on the calling thread's loop: connecting -> acquiring -> running (CMD) -> finished.
// Every event (session up, lock granted or not, signal, loss, revocation, CMD's end) is handled by what the
// current phase makes of it; wind_down() then releases and closes outside the phases.
class lock_run {
 public:
  lock_run(async_session& s, const global_options& global, const hold_spec& request, std::vector<int> inherited)
      : s_(s),
        request_(request),
        verbose_(global.verbose),
        inherited_(std::move(inherited)),
        signals_(s.io(), SIGINT, SIGTERM, SIGHUP),
        child_(s.io().get_executor()) {}

  // Connects, acquires, runs the command; then releases and closes the session. Returns the exit status.
  int run() {
    arm_signals();
    s_.client().async_connect([this](std::error_code ec) { on_connected(ec); });
    s_.run_until([this] { return phase_ == phase::finished; });
    wind_down();
    return status_;
  }

 private:
  enum class phase { connecting, acquiring, running, finished };

  void arm_signals() {
    signals_.async_wait([this](std::error_code ec, int signal) {
      if (ec) return;  // cancelled: the run is over
      on_signal(signal);
      arm_signals();
    });
  }

  void on_signal(int signal) {
    switch (phase_) {
      case phase::connecting:
        // Nothing was created yet: leave at once, without waiting for a session just to close it.
        close_session_ = false;
        finish(128 + signal, false);
        break;
      case phase::acquiring:
        // Give up: the acquire completes with `cancelled` (its node is deleted in the background, and closing the
        // session deletes it for sure).
        if (interrupted_by_ == 0) {
          interrupted_by_ = signal;
          cancel_acquire_.emit(asio::cancellation_type::terminal);
        }
        break;
      case phase::running:
        // The command decides how to end; we hold the lock until it has ended.
        if (verbose_)
          std::fprintf(stderr, "zkwire: %s: forwarding signal %d to the command\n", request_.name.c_str(), signal);
        child_.send(signal);
        break;
      case phase::finished:
        break;
    }
  }

  void on_connected(std::error_code ec) {
    if (phase_ != phase::connecting) return;
    if (ec) {
      std::fprintf(stderr, "%s\n", error_line(request_.name.c_str(), s_.servers(), ec).c_str());
      finish(exit_status_for(ec), false);
      return;
    }
    lock_ = request_.make(s_.client());
    lock_->set_listener([this](const recipes::lock_event& event) { on_state_change(event); });
    lock_->set_revocation_handler([this](const std::string& request) { on_revocation(request); });
    phase_ = phase::acquiring;
    lock_->acquire(request_.timeout.value_or(std::chrono::milliseconds(-1)), cancel_acquire_.slot(),
                   [this](std::error_code e) { on_acquired(e); });
  }

  void on_state_change(const recipes::lock_event& event) {
    if (event.to == lock_state::lost || event.to == lock_state::uncertain) loss_reason_ = event.reason;
    if (!verbose_) return;
    std::string line = "zkwire: " + request_.name + ": " + request_.path + ": " +
                       std::string(recipes::lock_state_name(event.from)) + " -> " +
                       std::string(recipes::lock_state_name(event.to));
    if (event.reason) line += " (" + describe(event.reason, request_.name) + ")";
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  void on_acquired(std::error_code ec) {
    if (phase_ != phase::acquiring) return;
    if (interrupted_by_ != 0) {
      finish(128 + interrupted_by_, !ec);  // granted just before the cancel took effect: release it
      return;
    }
    if (ec == lock_errc::timeout) {
      const auto timeout = request_.timeout.value_or(std::chrono::milliseconds(0));
      if (timeout.count() == 0) {
        std::fprintf(stderr, "zkwire: %s: %s: %s (--timeout 0)\n", request_.name.c_str(), request_.path.c_str(),
                     request_.busy.c_str());
      } else {
        std::fprintf(stderr, "zkwire: %s: %s: not %s within %s\n", request_.name.c_str(), request_.path.c_str(),
                     request_.granted.c_str(), seconds_text(timeout).c_str());
      }
      finish(exit_lock_timeout, false);
      return;
    }
    if (ec) {
      std::fprintf(stderr, "%s\n", error_line(request_.name.c_str(), request_.path, ec).c_str());
      finish(exit_status_for_lock(ec), false);
      return;
    }
    start_command();
  }

  void start_command() {
    phase_ = phase::running;
    lock_->wait_lost([this](std::error_code ec) { on_wait_lost(ec); });
    const std::string node = lock_->node_path();
    spawn_request spawn{request_.command,
                        {{request_.node_variable, node},
                         {"ZKWIRE_FENCING_TOKEN", lock_->fencing_token_text()},
                         {"ZKWIRE_SESSION_ID", session_hex(lock_->session_id())}},
                        inherited_};
    for (auto& variable : lock_->environment()) spawn.environment.push_back(std::move(variable));
    if (verbose_) {
      std::fprintf(stderr, "zkwire: %s: %s %s (fencing token %lld)\n", request_.name.c_str(), request_.granted.c_str(),
                   node.c_str(), static_cast<long long>(lock_->fencing_token()));
    }
    std::fflush(stdout);
    std::fflush(stderr);
    try {
      child_.start(spawn, [this](int status) { on_command_exit(status); });
    } catch (const spawn_error& e) {
      std::fprintf(stderr, "zkwire: %s: %s\n", request_.name.c_str(), e.what());
      finish(e.status(), true);
    } catch (const std::system_error& e) {
      std::fprintf(stderr, "zkwire: %s: cannot start the command: %s\n", request_.name.c_str(), e.what());
      finish(status_cannot_execute, true);
    }
  }

  void on_wait_lost(std::error_code ec) {
    if (ec != lock_errc::lock_lost || phase_ != phase::running || lost_) return;
    lost_ = true;
    std::fprintf(stderr, "zkwire: %s: %s: %s lost: %s (%s); sending SIGTERM to the command, SIGKILL after %s\n",
                 request_.name.c_str(), lock_->node_path().c_str(), request_.subject.c_str(),
                 describe(loss_reason_, request_.name).c_str(), error_name(loss_reason_).c_str(),
                 seconds_text(request_.kill_after).c_str());
    child_.terminate(request_.kill_after);
  }

  void on_revocation(const std::string& request) {
    if (phase_ != phase::running || revoked_) return;
    revoked_ = true;
    std::fprintf(stderr, "zkwire: %s: %s: release requested (%s); sending SIGTERM to the command\n",
                 request_.name.c_str(), lock_->node_path().c_str(), request.c_str());
    child_.send(SIGTERM);
  }

  void on_command_exit(int status) {
    if (phase_ != phase::running) return;
    if (!lost_ && lock_->state() == lock_state::lost) {
      // Lost just as the command ended: its last actions may have overlapped with another holder.
      lost_ = true;
      std::fprintf(stderr, "zkwire: %s: %s: %s lost: %s (%s) as the command ended\n", request_.name.c_str(),
                   lock_->node_path().c_str(), request_.subject.c_str(), describe(loss_reason_, request_.name).c_str(),
                   error_name(loss_reason_).c_str());
    }
    finish(lost_ ? exit_lock_lost : status, true);
  }

  void finish(int status, bool release) {
    status_ = status;
    release_ = release;
    phase_ = phase::finished;
  }

  // Releases the lock (deletes our node) and closes the session, both within the connect timeout: when no server
  // answers, the session's end deletes the node anyway. A lost lock is not released (its node is gone, or goes
  // with the session): closing is enough, and is not worth a long wait when the servers are out of reach.
  void wind_down() {
    signals_.cancel();  // from here on a signal ends nothing early; we are on our way out
    using clock = std::chrono::steady_clock;
    const auto limit = lost_ ? std::min(s_.connect_timeout(), lost_close_limit) : s_.connect_timeout();
    const auto deadline = clock::now() + limit;
    if (lock_ && release_ && !lost_) {
      auto result = std::make_shared<std::optional<std::error_code>>();
      asio::steady_timer timer(s_.io(), deadline);
      timer.async_wait([this](std::error_code ec) {
        if (!ec) cancel_release_.emit(asio::cancellation_type::terminal);
      });
      lock_->release(cancel_release_.slot(), [result](std::error_code ec) { *result = ec; });
      s_.run_until([&] { return result->has_value(); });
      timer.cancel();
      const auto ec = result->value_or(std::error_code());
      if (ec && ec != lock_errc::lock_lost && ec != lock_errc::not_held) {
        std::fprintf(stderr, "zkwire: %s: %s: not released: %s (%s); the node goes when the session ends\n",
                     request_.name.c_str(), request_.path.c_str(), describe(ec, request_.name).c_str(),
                     error_name(ec).c_str());
      }
    }
    if (lock_) {
      lock_->set_listener({});
      lock_->set_revocation_handler({});
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (close_session_) s_.close(std::max(left, std::chrono::milliseconds(0)));
  }

  async_session& s_;
  const hold_spec& request_;
  bool verbose_;
  std::vector<int> inherited_;
  asio::signal_set signals_;
  child_supervisor child_;
  // Declared before lock_: an operation bound to them may still be pending when lock_ is destroyed.
  asio::cancellation_signal cancel_acquire_;
  asio::cancellation_signal cancel_release_;
  std::unique_ptr<held_resource> lock_;
  phase phase_ = phase::connecting;
  int interrupted_by_ = 0;
  bool lost_ = false;
  bool revoked_ = false;
  bool close_session_ = true;
  bool release_ = false;
  int status_ = 0;
  std::error_code loss_reason_;
};

}  // namespace

int run_holding(const global_options& global, const hold_spec& spec) {
  // Before anything of ours is open: what we were started with is what the command inherits.
  auto inherited = open_descriptors();
  async_session s(global);
  lock_run run(s, global, spec, std::move(inherited));
  return run.run();
}

namespace {

recipes::lock_options options_of(const lock_request& request) {
  recipes::lock_options options;
  options.name_format = request.naming;
  options.safety_margin = request.safety_margin;
  return options;
}

// What a lock and a multi_lock answer alike.
template <class Lock>
class held_recipe : public held_resource {
 public:
  template <class... Args>
  explicit held_recipe(Args&&... args) : lock_(std::forward<Args>(args)...) {}

  void set_listener(recipes::lock_listener listener) override { lock_.set_listener(std::move(listener)); }
  void acquire(std::chrono::milliseconds timeout, asio::cancellation_slot slot, done_handler done) override {
    lock_.async_acquire(timeout, asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void release(asio::cancellation_slot slot, done_handler done) override {
    lock_.async_release(asio::bind_cancellation_slot(slot, std::move(done)));
  }
  void wait_lost(done_handler done) override { lock_.async_wait_lost(std::move(done)); }
  [[nodiscard]] lock_state state() const override { return lock_.state(); }

 protected:
  Lock lock_;  // NOLINT(cppcoreguidelines-non-private-member-variables-in-classes): the derived classes' subject
};

// A lock as what `zkwire lock` holds.
class held_lock final : public held_recipe<recipes::lock> {
 public:
  held_lock(client& c, const lock_request& request)
      : held_recipe(c, request.directories.front(), request.kind, options_of(request)) {}

  void set_revocation_handler(recipes::revocation_handler handler) override {
    lock_.set_revocation_handler(std::move(handler));
  }
  [[nodiscard]] std::string node_path() const override { return lock_.node_path(); }
  [[nodiscard]] std::int64_t fencing_token() const override { return lock_.fencing_token(); }
  [[nodiscard]] std::int64_t session_id() const override { return lock_.session_id(); }
};

// Several exclusive locks, all or none, as what `zkwire lock PATH PATH... -- CMD` holds: the node paths and
// fencing tokens are one line per lock, in the multi_lock's order.
class held_multi_lock final : public held_recipe<recipes::multi_lock> {
 public:
  held_multi_lock(client& c, const lock_request& request) : held_recipe(c, request.directories, options_of(request)) {}

  void set_revocation_handler(recipes::revocation_handler handler) override {
    for (const auto& d : lock_.directories()) lock_.member(d)->set_revocation_handler(handler);
  }
  [[nodiscard]] std::string node_path() const override {
    return lines([](const recipes::lock& l) { return l.node_path(); });
  }
  // The first lock's, for messages.
  [[nodiscard]] std::int64_t fencing_token() const override { return first().fencing_token(); }
  [[nodiscard]] std::string fencing_token_text() const override {
    return lines([](const recipes::lock& l) { return std::to_string(l.fencing_token()); });
  }
  [[nodiscard]] std::int64_t session_id() const override { return first().session_id(); }

 private:
  [[nodiscard]] const recipes::lock& first() const { return *lock_.member(lock_.directories().front()); }
  template <class Field>
  [[nodiscard]] std::string lines(Field field) const {
    std::string text;
    for (const auto& d : lock_.directories()) {
      if (!text.empty()) text += '\n';
      text += field(*lock_.member(d));
    }
    return text;
  }
};

}  // namespace

int run_lock(const global_options& global, const lock_request& request) {
  hold_spec spec;
  spec.name = "lock";
  spec.node_variable = "ZKWIRE_LOCK_NODE";
  for (const auto& d : request.directories) spec.path += (spec.path.empty() ? "" : " ") + d;
  spec.timeout = request.timeout;
  spec.kill_after = request.kill_after;
  spec.command = request.command;
  spec.make = [&request](client& c) -> std::unique_ptr<held_resource> {
    if (request.directories.size() > 1) return std::make_unique<held_multi_lock>(c, request);
    return std::make_unique<held_lock>(c, request);
  };
  return run_holding(global, spec);
}

}  // namespace zkwire::cli
