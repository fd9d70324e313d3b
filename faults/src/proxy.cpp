#include "zkwire/faults/proxy.hpp"

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/ip/address.hpp>
#include <asio/post.hpp>
#include <asio/strand.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <mutex>
#include <utility>

#include "connection.hpp"

namespace zkwire::faults {

struct proxy::impl : std::enable_shared_from_this<proxy::impl> {
  impl(const asio::any_io_executor& executor, proxy_options opts)
      : options(std::move(opts)),
        shared(std::make_shared<detail::proxy_shared>(
            asio::make_strand(executor),
            options.rules ? options.rules
                          : std::make_shared<rule_table>(options.seed != 0 ? options.seed : random_seed()))),
        acceptor(shared->strand) {
    shared->log = options.log;
    shared->max_frame_size = options.max_frame_size;
    shared->member = options.member;
  }

  asio::awaitable<void> accept_loop() {
    auto self = shared_from_this();
    while (!stopped) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::experimental::as_tuple(asio::use_awaitable));
      if (stopped) co_return;
      if (ec) {
        if (ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) co_return;
        continue;  // e.g. the client reset before we accepted; keep serving
      }
      const std::uint64_t id = ++accepted_count;
      frame_info info;
      info.direction = rule_direction::accept;
      info.connection = id;
      info.member = shared->member;
      const auto fired = shared->rules->decide(info, std::chrono::steady_clock::now());
      auto conn = std::make_shared<detail::connection>(shared, id, std::move(socket));
      {
        const std::lock_guard lock(mutex);
        std::erase_if(live, [](const std::weak_ptr<detail::connection>& w) {
          auto c = w.lock();
          return !c || c->closed();
        });
        live.push_back(conn);
      }
      conn->start(fired);
    }
  }

  void cut_all(cut_kind how) {
    std::vector<std::weak_ptr<detail::connection>> copy;
    {
      const std::lock_guard lock(mutex);
      copy = live;
    }
    for (auto& w : copy) {
      if (auto c = w.lock()) c->cut(how);
    }
  }

  proxy_options options;
  std::shared_ptr<detail::proxy_shared> shared;
  asio::ip::tcp::acceptor acceptor;
  asio::ip::tcp::endpoint bound;
  std::atomic<std::uint64_t> accepted_count{0};
  bool stopped = false;  // on the strand
  mutable std::mutex mutex;
  std::vector<std::weak_ptr<detail::connection>> live;
};

proxy::proxy(const asio::any_io_executor& executor, proxy_options options)
    : impl_(std::make_shared<impl>(executor, std::move(options))) {}

proxy::~proxy() { stop(); }

std::error_code proxy::listen() {
  std::error_code ec;
  const auto address = asio::ip::make_address(impl_->options.listen_host, ec);
  if (ec) return asio::error::invalid_argument;
  asio::ip::tcp::resolver resolver(impl_->shared->strand);
  impl_->shared->upstream =
      resolver.resolve(impl_->options.upstream_host, std::to_string(impl_->options.upstream_port), ec);
  if (ec) return ec;
  const asio::ip::tcp::endpoint endpoint(address, impl_->options.listen_port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::error_code ignored;
    acceptor.close(ignored);
    return ec;
  }
  impl_->bound = acceptor.local_endpoint(ec);
  if (ec) return ec;
  asio::co_spawn(impl_->shared->strand, impl_->accept_loop(), asio::detached);
  return {};
}

asio::ip::tcp::endpoint proxy::local_endpoint() const { return impl_->bound; }

std::string proxy::address() const {
  return impl_->bound.address().to_string() + ":" + std::to_string(impl_->bound.port());
}

std::uint64_t proxy::seed() const noexcept { return impl_->shared->rules->seed(); }

rule_id proxy::add_rule(rule r) { return impl_->shared->rules->add(std::move(r)); }

std::optional<rule_id> proxy::add_rule(std::string_view text, std::string* error) {
  return impl_->shared->rules->add(text, error);
}

bool proxy::remove_rule(rule_id id) { return impl_->shared->rules->remove(id); }

void proxy::clear_rules() { impl_->shared->rules->clear(); }

std::optional<rule_counters> proxy::counters(rule_id id) const { return impl_->shared->rules->counters(id); }

rule_table& proxy::rules() const noexcept { return *impl_->shared->rules; }

std::vector<connection_snapshot> proxy::connections() const {
  std::vector<connection_snapshot> out;
  const std::lock_guard lock(impl_->mutex);
  for (const auto& w : impl_->live) {
    if (auto c = w.lock(); c && !c->closed()) out.push_back(c->snapshot());
  }
  return out;
}

std::uint64_t proxy::accepted() const noexcept { return impl_->accepted_count.load(); }

proxy_stats proxy::stats() const {
  proxy_stats out;
  out.accepted = impl_->accepted_count.load();
  {
    const std::lock_guard lock(impl_->mutex);
    out.open = static_cast<std::uint64_t>(std::count_if(impl_->live.begin(), impl_->live.end(), [](const auto& w) {
      auto c = w.lock();
      return c && !c->closed();
    }));
  }
  const auto& shared = *impl_->shared;
  out.requests = {shared.request_frames.load(), shared.request_bytes.load()};
  out.replies = {shared.reply_frames.load(), shared.reply_bytes.load()};
  return out;
}

void proxy::cut_connections(cut_kind how) {
  asio::post(impl_->shared->strand, [self = impl_, how] { self->cut_all(how); });
}

rule_id proxy::refuse_connections(std::chrono::milliseconds duration, cut_kind how) {
  rule r;
  r.direction = rule_direction::accept;
  r.active_for = duration;
  r.steps = {how == cut_kind::rst   ? action_step::rst
             : how == cut_kind::fin ? action_step::fin
                                    : action_step::blackhole};
  return add_rule(std::move(r));
}

void proxy::stop() {
  asio::post(impl_->shared->strand, [self = impl_] {
    if (self->stopped) return;
    self->stopped = true;
    std::error_code ignored;
    self->acceptor.close(ignored);
    self->cut_all(cut_kind::rst);
    // Nothing logs after the cut (closed connections stay silent), so the caller's sink may go away now.
    self->shared->log = nullptr;
  });
}

}  // namespace zkwire::faults
