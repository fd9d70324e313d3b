#pragma once
// A lock or semaphore of the guarantee run (guarantees_test.cpp) that keeps acquiring, holding a little and
// releasing, with every hold recorded (history::hold) from the moment its state became held until it left held
// (released, uncertain, lost), as its listener saw it. The checker then counts the leases held at once and the lock's
// tokens. Everything runs on the loop thread of the client; stop() lets a hold in progress end with its release.

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

#include "history.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::test {

template <class Recipe>
class hold_recorder {
 public:
  // `capacity`: 1 for a lock; a semaphore's max_leases (each acquire takes one lease or all of them).
  hold_recorder(asio::io_context& io, std::unique_ptr<Recipe> recipe, std::string resource, std::size_t capacity,
                std::size_t holder, history::recorder& rec, std::uint64_t seed)
      : recipe_(std::move(recipe)),
        timer_(io),
        resource_(std::move(resource)),
        capacity_(capacity),
        holder_(holder),
        recorder_(rec),
        random_(seed) {
    recipe_->set_listener([this, alive = std::weak_ptr<int>(alive_)](const recipes::lock_event& e) {
      if (alive.expired()) return;
      if (e.to == recipes::lock_state::held) {
        history::hold h;
        h.resource = resource_;
        h.capacity = capacity_;
        h.holder = holder_;
        h.leases = leases_;
        h.token = recipe_->fencing_token();
        open_ = recorder_.begin_hold(std::move(h));
        ++holds_;
      } else if (e.from == recipes::lock_state::held && open_) {
        recorder_.end_hold(*open_);
        open_.reset();
      }
    });
  }
  ~hold_recorder() { alive_.reset(); }
  hold_recorder(const hold_recorder&) = delete;
  hold_recorder& operator=(const hold_recorder&) = delete;
  hold_recorder(hold_recorder&&) = delete;
  hold_recorder& operator=(hold_recorder&&) = delete;

  void start() { acquire(); }
  void stop() { stopped_ = true; }
  // Nothing pending and nothing held (after stop()).
  [[nodiscard]] bool done() const { return stopped_ && !busy_ && recipe_->state() == recipes::lock_state::released; }
  [[nodiscard]] std::size_t holds() const noexcept { return holds_; }

 private:
  void acquire() {
    if (stopped_) return;
    busy_ = true;
    const std::chrono::milliseconds timeout(2000);
    auto done = [this, alive = std::weak_ptr<int>(alive_)](std::error_code ec) {
      if (alive.expired()) return;
      if (ec) {
        after(ec == recipes::lock_errc::lock_lost ? 0 : 50, &hold_recorder::release_or_retry);
        return;
      }
      after(20 + random_() % 200, &hold_recorder::release);
    };
    if constexpr (std::is_same_v<Recipe, recipes::semaphore>) {
      leases_ = random_() % 3 == 0 ? capacity_ : 1;
      recipe_->async_acquire(static_cast<std::int32_t>(leases_), timeout, done);
    } else {
      recipe_->async_acquire(timeout, done);
    }
  }
  // After a failed acquire: a lost object is released first (lock_lost), else try again.
  void release_or_retry() {
    if (recipe_->state() == recipes::lock_state::lost) {
      release();
    } else {
      busy_ = false;
      after(random_() % 100, &hold_recorder::acquire);
    }
  }
  void release() {
    recipe_->async_release([this, alive = std::weak_ptr<int>(alive_)](std::error_code) {
      if (alive.expired()) return;
      busy_ = false;
      after(random_() % 100, &hold_recorder::acquire);
    });
  }
  void after(std::uint64_t ms, void (hold_recorder::*next)()) {
    timer_.expires_after(std::chrono::milliseconds(ms));
    timer_.async_wait([this, next, alive = std::weak_ptr<int>(alive_)](std::error_code ec) {
      if (!ec && !alive.expired()) (this->*next)();
    });
  }

  std::unique_ptr<Recipe> recipe_;
  asio::steady_timer timer_;
  std::string resource_;
  std::size_t capacity_;
  std::size_t holder_;
  history::recorder& recorder_;
  std::mt19937_64 random_;
  std::size_t leases_ = 1;
  std::optional<std::size_t> open_;  // the hold being recorded
  std::size_t holds_ = 0;
  bool stopped_ = false;
  bool busy_ = false;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace zkwire::test
