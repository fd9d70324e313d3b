// The isro search of read_write_probe.hpp.

#include "read_write_probe.hpp"

#include <algorithm>
#include <span>
#include <string_view>
#include <utility>

namespace zkwire::detail {
namespace {

// The four-letter word; a read-write server answers "rw", a read-only one "ro" (then closes the connection).
constexpr std::string_view isro = "isro";
constexpr std::string_view read_write_answer = "rw";

}  // namespace

read_write_probe::read_write_probe(asio::any_io_executor executor, transport_factory factory,
                                   std::shared_ptr<zkwire::clock> clock, settings s, found_handler found,
                                   log_handler log)
    : executor_(std::move(executor)),
      factory_(std::move(factory)),
      clock_(std::move(clock)),
      settings_(s),
      found_(std::move(found)),
      log_(std::move(log)),
      // `this` is safe: the wakeup never fires once destroyed, and it is destroyed with this object.
      timer_(clock_->make_wakeup(executor_, [this] { on_timer(); })) {}

read_write_probe::~read_write_probe() {
  timer_.reset();
  transport_.reset();
}

void read_write_probe::start(std::vector<host_port> hosts, std::size_t current) {
  stop();
  if (hosts.size() < 2 || current >= hosts.size()) return;
  hosts_ = std::move(hosts);
  current_ = current;
  next_ = (current + 1) % hosts_.size();
  interval_ = std::max(settings_.first_interval, std::chrono::milliseconds{1});
  running_ = true;
  timer_->expires_at(clock_->now() + interval_);
}

void read_write_probe::stop() noexcept {
  running_ = false;
  asking_ = false;
  timer_->cancel();
  if (transport_) transport_->close();
}

void read_write_probe::on_timer() {
  if (!running_) return;
  if (asking_) {
    finish_attempt("no answer within " + std::to_string(settings_.attempt_timeout.count()) + " ms");
    return;
  }
  asked_ = next_;
  next_ = (next_ + 1) % hosts_.size();
  if (next_ == current_) next_ = (next_ + 1) % hosts_.size();
  if (!transport_) transport_ = factory_(executor_, *this);
  if (!transport_) {
    stop();
    if (log_) log_("read-write probe: the transport factory returned no transport; not probing");
    return;
  }
  answer_.clear();
  asking_ = true;
  timer_->expires_at(clock_->now() + settings_.attempt_timeout);
  transport_->async_connect(hosts_[asked_]);
}

void read_write_probe::finish_attempt(const std::string& failure) {
  transport_->close();
  asking_ = false;
  if (log_) log_("read-write probe of " + to_string(hosts_[asked_]) + ": " + failure);
  interval_ = std::min(interval_ * 2, std::max(settings_.max_interval, settings_.first_interval));
  timer_->expires_at(clock_->now() + interval_);
}

void read_write_probe::on_connected(std::error_code ec) {
  if (!asking_) return;
  if (ec) {
    finish_attempt("connect failed: " + ec.message());
    return;
  }
  transport_->async_write(std::span<const char>(isro.data(), isro.size()));
}

void read_write_probe::on_written(std::error_code ec) {
  if (!asking_) return;
  if (ec) {
    finish_attempt("write failed: " + ec.message());
    return;
  }
  transport_->async_read_some(std::span<char>(buffer_.data(), buffer_.size()));
}

void read_write_probe::on_read(std::error_code ec, std::size_t n) {
  if (!asking_) return;
  answer_.append(buffer_.data(), std::min(n, buffer_.size()));
  if (answer_.size() < read_write_answer.size() && !ec) {
    transport_->async_read_some(std::span<char>(buffer_.data(), buffer_.size()));
    return;
  }
  if (answer_.starts_with(read_write_answer)) {
    stop();
    const std::size_t index = asked_;
    const found_handler found = found_;  // it may destroy this probe
    found(index);
    return;
  }
  // "ro", a 4lw refusal ("isro is not executed because it is not in the whitelist."), or nothing before EOF.
  std::string shown = answer_.substr(0, answer_.find('\n'));
  if (shown.empty() && ec) shown = ec.message();
  finish_attempt("answered \"" + shown + "\"");
}

}  // namespace zkwire::detail
