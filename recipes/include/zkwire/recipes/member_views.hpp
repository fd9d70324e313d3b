#pragma once
// Does the member a session reads from agree with the ensemble about a directory? A member can come out of crashes
// and restarts with a tree that differs from the others' (docs/design.md#diverged-member): it keeps a node the others
// deleted, and a lock or election contender connected to it waits on that node for good, since no other member will
// ever delete it. This lists the directory through each member on a session of its own, after a sync, and names the
// nodes the caller's member shows but a majority of the members do not. `zkwire locks --check-members` reports with
// it; any listing of contenders (a lock's, an election's) can do the same.
//
//   auto check =
//       co_await zkwire::recipes::async_check_members(c, options, "/locks/job", names, timeout, asio::use_awaitable);
//   for (const auto& node : check.diverged) std::printf("%s: on one member only\n", node.name.c_str());
//
// Thread safety: call on the client's executor; the handler runs on its associated executor (the client's when it
// has none), never inside the initiating function. Cancellation is not supported; `timeout` bounds every member's
// connect, sync and listing. Each member's session is closed before the operation completes (a member that never
// answered keeps nothing: its session was never made).

#include <asio/any_io_executor.hpp>
#include <asio/async_result.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/completion.hpp"

namespace zkwire::recipes {

// What one member showed of the directory after a sync.
struct member_view {
  host_port host;                     // as written in the connect string
  std::error_code error;              // why it could not be listed (no session within the timeout, a refusal, ...)
  bool exists = false;                // the directory exists there (NONODE counts as an answer: no children)
  std::vector<std::string> children;  // names, sorted
  std::int64_t zxid = 0;              // the listing's reply zxid
};

// A node listed by the caller's member but not by a majority of the ensemble's members.
struct diverged_node {
  std::string name;
  std::size_t listed_by = 0;  // members whose listing has it
  std::size_t answered = 0;   // members whose listing came back
  std::size_t members = 0;    // members in the connect string
};

// Of `shown` (child names, as the caller's member lists them), those that a majority of the members (more than half
// of views.size()) answered without. Nothing when fewer than a majority answered: a majority cannot be told then.
// A pure function; `views` as async_member_views gives them.
std::vector<diverged_node> find_diverged(const std::vector<std::string>& shown, const std::vector<member_view>& views);

// The members' views and the nodes the caller's member shows but a majority does not, after that member caught up
// with the leader (a sync, then each candidate read again on the caller's session: a node deleted in the meantime
// is no divergence).
struct member_check {
  std::vector<member_view> views;
  std::vector<diverged_node> diverged;
  [[nodiscard]] std::size_t answered() const;
};

namespace detail {
using zkwire::detail::complete;
using zkwire::detail::completion_ptr;
using zkwire::detail::make_completion;

void start_member_views(const asio::any_io_executor& executor, client_options options, std::string directory,
                        std::chrono::milliseconds timeout, completion_ptr<std::vector<member_view>> done);
void start_check_members(client& c, client_options options, std::string directory, std::vector<std::string> shown,
                         std::chrono::milliseconds timeout, completion_ptr<member_check> done);

struct initiate_member_views {
  asio::any_io_executor executor;
  template <class Handler>
  void operator()(Handler&& handler, client_options options, std::string directory,
                  std::chrono::milliseconds timeout) const {
    start_member_views(executor, std::move(options), std::move(directory), timeout,
                       make_completion<std::vector<member_view>>(std::forward<Handler>(handler), executor));
  }
};
struct initiate_check_members {
  client* target;
  template <class Handler>
  void operator()(Handler&& handler, client_options options, std::string directory, std::vector<std::string> shown,
                  std::chrono::milliseconds timeout) const {
    start_check_members(*target, std::move(options), std::move(directory), std::move(shown), timeout,
                        make_completion<member_check>(std::forward<Handler>(handler), target->get_executor()));
  }
};
}  // namespace detail

// Lists `directory` through each host of options.connect_string (its chroot applies), each on a session of its own
// with `options`' credentials, TLS and session timeout, after a sync, all at once. Signature
// void(std::error_code, std::vector<member_view>): a view per host, in connect-string order; the error is only for a
// connect string that does not parse (client_errc::invalid_connect_string).
template <class CompletionToken>
auto async_member_views(const asio::any_io_executor& executor, client_options options, std::string directory,
                        std::chrono::milliseconds timeout, CompletionToken&& token) {
  return asio::async_initiate<CompletionToken, void(std::error_code, std::vector<member_view>)>(
      detail::initiate_member_views{executor}, token, std::move(options), std::move(directory), timeout);
}

// async_member_views, find_diverged on `shown`, and each candidate read again on `c` after a sync. `options`: those
// `c` was made with (the members' sessions use them). Signature void(std::error_code, member_check); errors: the
// connect string's, or the sync's or read's on `c` (connection loss, the session's end).
template <class CompletionToken>
auto async_check_members(client& c, client_options options, std::string directory, std::vector<std::string> shown,
                         std::chrono::milliseconds timeout, CompletionToken&& token) {
  return asio::async_initiate<CompletionToken, void(std::error_code, member_check)>(
      detail::initiate_check_members{&c}, token, std::move(options), std::move(directory), std::move(shown), timeout);
}

}  // namespace zkwire::recipes
