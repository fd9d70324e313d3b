// async_member_views / async_check_members: a directory listed through each member after a sync, and the nodes the
// caller's member shows that a majority does not.

#include "zkwire/recipes/member_views.hpp"

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <memory>

#include "client_ops.hpp"
#include "wake_event.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes {
namespace detail {
namespace {

// The members' sessions and their views, shared by the per-member tasks.
struct survey {
  explicit survey(const asio::any_io_executor& executor) : done(executor) {}
  std::vector<member_view> views;
  std::vector<std::unique_ptr<client>> clients;
  std::size_t remaining = 0;
  wake_event done;
};

// One member: connect, sync, list; then close the session (the view is kept whatever happens).
asio::awaitable<void> view_member(std::shared_ptr<survey> s, std::size_t i, std::string directory) {
  client& c = *s->clients[i];
  member_view& view = s->views[i];
  auto connect = c.async_connect(tuple_awaitable);
  auto [connect_ec] = co_await std::move(connect);
  if (connect_ec) {
    view.error = connect_ec;
  } else {
    auto sync = c.async_sync(directory, tuple_awaitable);
    auto [sync_ec] = co_await std::move(sync);
    if (sync_ec && sync_ec != server_error::no_node) {
      view.error = sync_ec;
    } else {
      auto list = c.async_get_children(directory, tuple_awaitable);
      auto [list_ec, listed] = co_await std::move(list);
      if (!list_ec) {
        view.exists = true;
        view.children = std::move(listed.children);
        std::sort(view.children.begin(), view.children.end());
        view.zxid = listed.zxid;
      } else if (list_ec != server_error::no_node) {
        view.error = list_ec;
      }
    }
  }
  auto close = c.async_close(tuple_awaitable);
  co_await std::move(close);
  if (--s->remaining == 0) s->done.set();
}

asio::awaitable<void> survey_members(asio::any_io_executor executor, client_options options, std::string directory,
                                     std::chrono::milliseconds timeout, completion_ptr<std::vector<member_view>> done) {
  connect_string servers;
  if (auto ec = parse_connect_string(options.connect_string, servers)) {
    complete(std::move(done), ec, {});
    co_return;
  }
  auto s = std::make_shared<survey>(executor);
  s->views.resize(servers.hosts.size());
  s->remaining = servers.hosts.size();
  for (std::size_t i = 0; i < servers.hosts.size(); ++i) {
    s->views[i].host = servers.hosts[i];
    client_options one = options;
    one.connect_string = to_string(servers.hosts[i]) + servers.chroot;
    one.connect_timeout = timeout;
    one.request_timeout = timeout;
    one.follow_config = false;
    one.resume_session_id = 0;
    s->clients.push_back(std::make_unique<client>(executor, std::move(one)));
  }
  for (std::size_t i = 0; i < servers.hosts.size(); ++i) {
    asio::co_spawn(executor, view_member(s, i, directory), asio::detached);
  }
  if (s->remaining > 0) {
    auto all = s->done.wait();
    co_await std::move(all);
  }
  auto views = std::move(s->views);
  // The clients are closed; destroy them later, outside their own completion's call chain.
  asio::post(executor, [s] {});
  complete(std::move(done), {}, std::move(views));
}

asio::awaitable<void> check_members(client& c, client_options options, std::string directory,
                                    std::vector<std::string> shown, std::chrono::milliseconds timeout,
                                    completion_ptr<member_check> done) {
  member_check result;
  auto survey_op = async_member_views(c.get_executor(), std::move(options), directory, timeout, tuple_awaitable);
  auto [survey_ec, views] = co_await std::move(survey_op);
  if (survey_ec) {
    complete(std::move(done), survey_ec, {});
    co_return;
  }
  result.views = std::move(views);
  auto candidates = find_diverged(shown, result.views);
  if (!candidates.empty()) {
    // Our member caught up with the leader: a candidate it still has is not one deleted since it was listed.
    auto sync = c.async_sync(directory, tuple_awaitable);
    auto [sync_ec] = co_await std::move(sync);
    if (sync_ec) {
      complete(std::move(done), sync_ec, {});
      co_return;
    }
    for (auto& candidate : candidates) {
      auto look = c.async_exists(proto::child_path(directory, candidate.name), tuple_awaitable);
      auto [look_ec, st] = co_await std::move(look);
      if (look_ec) {
        complete(std::move(done), look_ec, {});
        co_return;
      }
      if (st) result.diverged.push_back(std::move(candidate));
    }
  }
  complete(std::move(done), {}, std::move(result));
}

}  // namespace

void start_member_views(const asio::any_io_executor& executor, client_options options, std::string directory,
                        std::chrono::milliseconds timeout, completion_ptr<std::vector<member_view>> done) {
  asio::co_spawn(executor, survey_members(executor, std::move(options), std::move(directory), timeout, std::move(done)),
                 asio::detached);
}

void start_check_members(client& c, client_options options, std::string directory, std::vector<std::string> shown,
                         std::chrono::milliseconds timeout, completion_ptr<member_check> done) {
  asio::co_spawn(c.get_executor(),
                 check_members(c, std::move(options), std::move(directory), std::move(shown), timeout, std::move(done)),
                 asio::detached);
}

}  // namespace detail

std::vector<diverged_node> find_diverged(const std::vector<std::string>& shown, const std::vector<member_view>& views) {
  const std::size_t members = views.size();
  const std::size_t majority = members / 2 + 1;
  const auto answered = static_cast<std::size_t>(
      std::count_if(views.begin(), views.end(), [](const member_view& v) { return !v.error; }));
  std::vector<diverged_node> out;
  if (answered < majority) return out;
  for (const auto& name : shown) {
    std::size_t listed_by = 0;
    for (const auto& v : views) {
      if (!v.error && std::binary_search(v.children.begin(), v.children.end(), name)) ++listed_by;
    }
    if (answered - listed_by >= majority) out.push_back(diverged_node{name, listed_by, answered, members});
  }
  return out;
}

std::size_t member_check::answered() const {
  return static_cast<std::size_t>(
      std::count_if(views.begin(), views.end(), [](const member_view& v) { return !v.error; }));
}

}  // namespace zkwire::recipes
