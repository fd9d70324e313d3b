// zkwire watch [--mode once|persistent|recursive] [-n COUNT] [--timeout SEC] PATH

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "json.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

enum class watch_mode { once, persistent, recursive };

// What the client's loop thread hands to the command's thread.
struct item {
  enum kind_t { node_event, state_change, session_end } kind = node_event;
  std::string line;         // the JSON line to print (node_event, state_change)
  std::uint64_t round = 0;  // node_event in once mode: the arming it belongs to
  std::error_code error;    // session_end
};

struct queue {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<item> items;

  void push(item i) {
    {
      const std::lock_guard lock(mutex);
      items.push_back(std::move(i));
    }
    cv.notify_one();
  }
};

// The name of the keeper state a session state change is reported as, or "" for changes not reported.
std::string_view reported_state(session_state to) {
  switch (to) {
    case session_state::connected:
      return proto::keeper_state_name(keeper_state::sync_connected);
    case session_state::connected_read_only:
      return proto::keeper_state_name(keeper_state::connected_read_only);
    case session_state::suspended:
    case session_state::lost:
      return proto::keeper_state_name(keeper_state::disconnected);
    case session_state::expired:
      return proto::keeper_state_name(keeper_state::expired);
    case session_state::auth_failed:
      return proto::keeper_state_name(keeper_state::auth_failed);
    case session_state::closed:
      return proto::keeper_state_name(keeper_state::closed);
    case session_state::not_started:
    case session_state::connecting:
      break;
  }
  return {};
}

// Why the watch cannot go on after a change to `to`, or no error. `lost` means the session has surely expired on
// the server by now (events may have been missed): waiting for the reconnect that confirms it is pointless.
std::error_code session_end_error(session_state to) {
  switch (to) {
    case session_state::lost:
      return proto::client_error::connection_loss;
    case session_state::expired:
      return proto::client_error::session_expired;
    case session_state::auth_failed:
      return proto::server_error::auth_failed;
    case session_state::closed:
      return proto::client_error::closed;
    default:
      return {};
  }
}

watch_callback make_callback(const std::shared_ptr<queue>& q, std::uint64_t round) {
  return [q, round](const watch_event& event) {
    if (event.error) {
      q->push(item{item::session_end, {}, round, event.error});
      return;
    }
    if (event.type == event_type::none || event.type == event_type::data_watch_removed ||
        event.type == event_type::child_watch_removed || event.type == event_type::persistent_watch_removed) {
      return;
    }
    q->push(item{
        item::node_event, json_text({{"type", proto::event_type_name(event.type)}, {"path", event.path}}), round, {}});
  };
}

}  // namespace

int run_watch(const command_context& context) {
  watch_mode mode = watch_mode::once;
  std::optional<std::uint64_t> count_given;
  std::optional<double> timeout;
  std::string path;
  command_parser parser;
  parser.choice(
      "--mode", mode,
      {{"once", watch_mode::once}, {"persistent", watch_mode::persistent}, {"recursive", watch_mode::recursive}});
  parser.integer("-n,--count", count_given, 1, std::numeric_limits<std::int64_t>::max());
  parser.seconds("--timeout", timeout);
  parser.positional("PATH", path);
  parser.parse(context.args);
  const std::uint64_t count = count_given.value_or(mode == watch_mode::once ? 1 : 0);  // 0: unlimited
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout) {
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*timeout));
  }
  check_path(path);

  auto q = std::make_shared<queue>();
  session s(context.global);
  // Session changes are reported from here on; the initial connect is not a change worth a line.
  s.on_state_change([q](const state_event& event) {
    const auto name = reported_state(event.to);
    if (!name.empty()) q->push(item{item::state_change, json_text({{"state", name}}), 0, {}});
    if (const auto ec = session_end_error(event.to)) q->push(item{item::session_end, {}, 0, ec});
  });
  // A read-only start is worth a line, though: writes fail and the data may lag until SyncConnected follows.
  if (s.client().state() == session_state::connected_read_only) {
    q->push(
        item{item::state_change, json_text({{"state", reported_state(session_state::connected_read_only)}}), 0, {}});
  }

  std::uint64_t round = 0;
  bool round_done = false;
  // Arms the watches of the next round (once mode): an exists watch (created, deleted, data changed) and, when
  // the node exists, a child watch (children changed). Both fire NodeDeleted; the first event of a round counts.
  const auto arm_once = [&] {
    ++round;
    round_done = false;
    const auto stat = s.read(path, [&] { return s.client().exists(path, make_callback(q, round)); });
    if (stat) {
      try {
        s.read(path, [&] { return s.client().get_children(path, make_callback(q, round)); });
      } catch (const operation_error& e) {
        // Deleted in between: the exists watch reports that.
        if (e.code() != proto::server_error::no_node) throw;
      }
    }
  };
  if (mode == watch_mode::once) {
    arm_once();
  } else {
    const auto add_mode =
        mode == watch_mode::recursive ? add_watch_mode::persistent_recursive : add_watch_mode::persistent;
    s.write(path, [&] { s.client().add_watch(path, add_mode, make_callback(q, 0)); });
  }

  std::uint64_t seen = 0;
  std::string last_state;
  while (true) {
    std::unique_lock lock(q->mutex);
    const auto ready = [&] { return !q->items.empty(); };
    if (deadline) {
      if (!q->cv.wait_until(lock, *deadline, ready)) return exit_false;
    } else {
      q->cv.wait(lock, ready);
    }
    item next = std::move(q->items.front());
    q->items.pop_front();
    lock.unlock();

    switch (next.kind) {
      case item::state_change:
        if (next.line != last_state) {
          print_line(next.line);
          std::fflush(stdout);
          last_state = next.line;
        }
        break;
      case item::session_end:
        throw operation_error(next.error, path);
      case item::node_event:
        if (mode == watch_mode::once && (next.round != round || round_done)) break;  // a stale watcher
        print_line(next.line);
        std::fflush(stdout);
        ++seen;
        if (count != 0 && seen >= count) return exit_ok;
        if (mode == watch_mode::once) {
          round_done = true;
          arm_once();
        }
        break;
    }
  }
}

}  // namespace zkwire::cli
