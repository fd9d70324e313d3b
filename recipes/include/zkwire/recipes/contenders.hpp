#pragma once
// Introspection of a lock directory, for people debugging contention (`zkwire locks PATH`): every child in lock
// order with its kind, session, creation time, data and whether it holds the lock now.
//
//   auto list = co_await zkwire::recipes::async_contenders(c, "/locks/job", asio::use_awaitable);
//
// A snapshot: the directory is listed, then every child is read in one pipelined batch; children deleted in
// between are left out. Whether the member it was read from agrees with the ensemble about those children:
// async_check_members (member_views.hpp). Thread safety: call on the client's executor; the handler runs on its
// associated executor (the client's when it has none), never inside the initiating function. Cancellation is not
// supported.

#include <asio/async_result.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/completion.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

struct contender {
  std::string node;  // child name
  std::string path;  // full path (client path)
  contender_kind kind = contender_kind::foreign;
  node_family family = node_family::unknown;
  std::int32_t sequence = 0;  // meaningless when foreign
  std::int64_t session = 0;   // ephemeralOwner (0 for a persistent node)
  std::int64_t czxid = 0;     // the fencing token of this contender
  std::int64_t ctime = 0;     // ms since the epoch
  std::string data;           // the holder identity, as stored
  // Holds the lock now: the first contender, and with it every read contender before the first non-read one
  // when the first is a reader. Foreign siblings never hold.
  bool holder = false;
};

// Contenders in lock order, then foreign siblings by name (sort_in_lock_order). Signature
// void(std::error_code, std::vector<contender>). Errors: NONODE (no such directory), NOAUTH, the session's end,
// client_error::invalid_path; connection loss is reported (the caller may retry: it is a read).
namespace detail {

// The client's type-erased completion, shared with the recipes: delivered like the client's own operations.
using zkwire::detail::complete;
using zkwire::detail::completion_ptr;
using zkwire::detail::make_completion;

void start_contenders(client& c, std::string directory, completion_ptr<std::vector<contender>> done);
}  // namespace detail

namespace detail {
struct initiate_contenders {
  client* target;
  std::string directory;
  template <class Handler>
  void operator()(Handler&& handler) const {
    start_contenders(*target, directory,
                     make_completion<std::vector<contender>>(std::forward<Handler>(handler), target->get_executor()));
  }
};
}  // namespace detail

template <class CompletionToken>
auto async_contenders(client& c, std::string directory, CompletionToken&& token) {
  return asio::async_initiate<CompletionToken, void(std::error_code, std::vector<contender>)>(
      detail::initiate_contenders{&c, std::move(directory)}, token);
}

// Marks the holders in an already sorted list (sort_in_lock_order order); exposed for tests and tools.
void mark_holders(std::vector<contender>& sorted);

}  // namespace zkwire::recipes
