// async_contenders: list a lock directory, read every child in one pipelined batch, report in lock order.

#include "zkwire/recipes/contenders.hpp"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include "wake_event.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes {
namespace detail {
namespace {

struct batch {
  explicit batch(const asio::any_io_executor& executor) : done(executor) {}
  std::vector<contender> list;
  std::vector<bool> present;
  std::error_code fatal;
  std::size_t remaining = 0;
  wake_event done;
};

asio::awaitable<void> list_contenders(client& c, std::string directory, completion_ptr<std::vector<contender>> done) {
  auto listing = c.async_get_children(directory, asio::experimental::as_tuple(asio::use_awaitable));
  auto [ec, listed] = co_await std::move(listing);
  if (ec) {
    complete(std::move(done), ec, {});
    co_return;
  }
  const auto sorted = sort_in_lock_order(listed.children);
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  auto b = std::make_shared<batch>(executor);
  b->list.resize(sorted.size());
  b->present.assign(sorted.size(), false);
  b->remaining = sorted.size();
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    auto& entry = b->list[i];
    entry.node = sorted[i].name;
    entry.path = proto::child_path(directory, entry.node);
    entry.kind = sorted[i].kind;
    entry.family = sorted[i].family;
    entry.sequence = sorted[i].sequence;
    c.async_get(entry.path, [b, i](std::error_code get_ec, get_result r) {
      if (!get_ec) {
        auto& e = b->list[i];
        e.session = r.stat.ephemeral_owner;
        e.czxid = r.stat.czxid;
        e.ctime = r.stat.ctime;
        e.data = std::move(r.data);
        b->present[i] = true;
      } else if (get_ec != server_error::no_node && !b->fatal) {
        b->fatal = get_ec;
      }
      if (--b->remaining == 0) b->done.set();
    });
  }
  if (b->remaining > 0) {
    auto all_read = b->done.wait();
    co_await std::move(all_read);
  }
  if (b->fatal) {
    complete(std::move(done), b->fatal, {});
    co_return;
  }
  std::vector<contender> result;
  for (std::size_t i = 0; i < b->list.size(); ++i) {
    if (b->present[i]) result.push_back(std::move(b->list[i]));
  }
  mark_holders(result);
  complete(std::move(done), {}, std::move(result));
}

}  // namespace

void start_contenders(client& c, std::string directory, completion_ptr<std::vector<contender>> done) {
  asio::co_spawn(c.get_executor(), list_contenders(c, std::move(directory), std::move(done)), asio::detached);
}

}  // namespace detail

void mark_holders(std::vector<contender>& sorted) {
  bool first = true;
  for (auto& c : sorted) {
    if (c.kind == contender_kind::foreign) break;
    if (first) {
      c.holder = true;
      first = false;
      if (c.kind != contender_kind::read) break;
    } else if (c.kind == contender_kind::read) {
      c.holder = true;
    } else {
      break;
    }
  }
}

}  // namespace zkwire::recipes
