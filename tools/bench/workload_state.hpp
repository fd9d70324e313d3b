#pragma once
// Internal to zkwire_bench_core: the state behind zkwire::bench::runner, shared by workload.cpp and
// lock_workload.cpp.

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <cstdio>
#include <deque>
#include <functional>
#include <random>
#include <system_error>
#include <utility>

#include "zkwire/client/client.hpp"
#include "zkwire_bench/mix.hpp"
#include "zkwire_bench/recorder.hpp"
#include "zkwire_bench/workload.hpp"

namespace zkwire::bench {

namespace workload_detail {

using clock = std::chrono::steady_clock;

constexpr std::size_t children_of_k = 16;
// Untimed bulk work (delete's nodes) keeps this many requests in flight per client.
constexpr std::uint64_t bulk_window = 64;

inline std::string random_scratch_name() {
  std::random_device device;
  char name[16];
  std::snprintf(name, sizeof name, "/zkb%08x", static_cast<unsigned>(device()));
  return name;
}

inline std::string numbered(const std::string& parent, char letter, std::uint64_t n) {
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "/%c%llu", letter, static_cast<unsigned long long>(n));
  return parent + suffix;
}

}  // namespace workload_detail

using namespace workload_detail;  // NOLINT(google-build-using-namespace): internal header of two files

struct runner::state {
  // One phase of windowed (closed-loop) requests: what to issue, how many, until when, and what came back.
  struct phase {
    std::vector<mix_entry> mix{mix_entry{}};
    std::uint64_t to_issue = 0;  // remaining starts (ignored with a deadline)
    std::optional<clock::time_point> deadline;
    std::uint64_t in_flight = 0;
    std::uint64_t done = 0;
    std::uint64_t errors = 0;
    // Per mix slot, then (for a mix of several) the whole mix; null for untimed phases.
    std::vector<latency_recorder>* recorders = nullptr;
  };

  struct session {
    std::unique_ptr<zkwire::client> client;
    std::string node;                 // /zkb.../c<i>
    std::deque<std::string> created;  // create's nodes, for delete
    std::uint64_t sequence = 0;       // for create and multi node names
  };

  run_config config;
  progress_function progress;
  asio::io_context io;
  std::string scratch = random_scratch_name();
  std::string data;
  std::vector<session> sessions;
  phase current;
  mix_picker picker{current.mix};

  state(run_config c, progress_function p) : config(std::move(c)), progress(std::move(p)) {}

  // The clock of every stamp (open_loop.hpp takes it from here).
  static clock::time_point now() noexcept { return clock::now(); }

  // Runs the loop until `done()` holds.
  template <class Done>
  void run_until(Done done) {
    io.restart();
    while (!done()) io.run_one();
  }

  // Waits for one operation with a (std::error_code[, result]) signature; returns its error.
  template <class Start>
  std::error_code call(Start start) {
    bool finished = false;
    std::error_code result;
    start([&](std::error_code ec, auto&&...) {
      result = ec;
      finished = true;
    });
    run_until([&] { return finished; });
    return result;
  }

  void connect() {
    data.assign(config.data_size, 'x');
    for (std::uint64_t i = 0; i < config.clients; ++i) {
      client_options options;
      options.connect_string = config.servers;
      options.session_timeout = config.session_timeout;
      options.auth = config.auth;
      options.tls = config.tls;
      session s;
      s.client = std::make_unique<zkwire::client>(io.get_executor(), std::move(options));
      s.node = numbered(scratch, 'c', i);
      sessions.push_back(std::move(s));
    }
    for (auto& s : sessions) {
      if (auto ec = call([&](auto h) { s.client->async_connect(std::move(h)); })) {
        throw std::system_error(ec, "connecting to " + config.servers);
      }
    }
  }

  void create_or_throw(const std::string& path, const std::string& bytes) {
    auto& c = *sessions.front().client;
    if (auto ec = call([&](auto h) { c.async_create(path, bytes, std::move(h)); })) {
      throw std::system_error(ec, "creating " + path);
    }
  }

  void create_scratch() {
    create_or_throw(scratch, {});
    for (const auto& s : sessions) create_or_throw(s.node, data);
    const std::string k = scratch + "/k";
    create_or_throw(k, {});
    for (std::size_t i = 0; i < children_of_k; ++i) create_or_throw(numbered(k, 'x', i), {});
  }

  void remove_tree(const std::string& path) {
    auto& c = *sessions.front().client;
    std::vector<std::string> children;
    const auto ec = call([&](auto h) {
      c.async_get_children(path, [&children, h = std::move(h)](std::error_code e, children_result r) mutable {
        children = std::move(r.children);
        h(e);
      });
    });
    if (ec) return;
    // Children first, pipelined: a scratch tree can hold many thousands of create's nodes.
    std::uint64_t pending = 0;
    for (const auto& name : children) {
      std::string child = path;
      child += "/";
      child += name;
      if (path == scratch) {  // c<i> and k have children of their own
        remove_tree(child);
        continue;
      }
      ++pending;
      c.async_remove(child, any_version, [&pending](std::error_code) { --pending; });
      if (pending >= bulk_window) run_until([&] { return pending < bulk_window; });
    }
    run_until([&] { return pending == 0; });
    call([&](auto h) { c.async_remove(path, any_version, std::move(h)); });
  }

  // --- sending one request ---

  // Sends `op` on session i and calls done(std::error_code) when it completes. A delete needs a node in the
  // session's `created` (see may_send).
  template <class Done>
  void send(std::size_t i, op_kind op, Done done) {
    session& s = sessions[i];
    zkwire::client& c = *s.client;
    switch (op) {
      case op_kind::get:
        c.async_get(s.node, [done](std::error_code ec, const get_result&) { done(ec); });
        break;
      case op_kind::exists:
        c.async_exists(s.node, [done](std::error_code ec, const std::optional<zkwire::stat>& st) {
          done(ec ? ec : st ? std::error_code{} : make_error_code(proto::server_error::no_node));
        });
        break;
      case op_kind::set:
        c.async_set(s.node, data, any_version, [done](std::error_code ec, const zkwire::stat&) { done(ec); });
        break;
      case op_kind::create:
        c.async_create(numbered(s.node, 'n', s.sequence++), data, [this, i, done](std::error_code ec, create_result r) {
          if (!ec) sessions[i].created.push_back(std::move(r.path));
          done(ec);
        });
        break;
      case op_kind::remove: {
        std::string path = std::move(s.created.front());
        s.created.pop_front();
        c.async_remove(std::move(path), any_version, [done](std::error_code ec) { done(ec); });
        break;
      }
      case op_kind::children:
        c.async_get_children(scratch + "/k", [done](std::error_code ec, const children_result&) { done(ec); });
        break;
      case op_kind::lock:  // lock_workload.cpp has a loop of its own; never sent from here
        done(make_error_code(std::errc::function_not_supported));
        break;
      case op_kind::multi: {
        const std::string path = numbered(s.node, 'm', s.sequence++);
        std::vector<multi_op> ops;
        ops.reserve(2);
        ops.push_back(ops::create(path, data));
        ops.push_back(ops::remove(path));
        c.async_multi(std::move(ops), [done](std::error_code ec, const std::vector<op_result>&) { done(ec); });
        break;
      }
    }
  }

  // Whether session i can send `op` now (a delete needs a node left by create).
  [[nodiscard]] bool may_send(std::size_t i, op_kind op) const {
    return op != op_kind::remove || !sessions[i].created.empty();
  }

  // Records a completion of mix slot `slot` into `recorders` (see phase::recorders).
  static void record(std::vector<latency_recorder>* recorders, std::size_t mix_size, std::size_t slot,
                     clock::time_point intended, clock::time_point sent, clock::time_point now, std::error_code ec) {
    if (recorders == nullptr) return;
    const auto one = [&](latency_recorder& r) {
      if (ec) {
        r.failure(now);
      } else {
        r.success(intended, sent, now);
      }
    };
    one((*recorders)[slot]);
    if (recorders->size() > mix_size) one(recorders->back());
  }

  // --- the windowed loop ---

  void finish(std::size_t slot, clock::time_point start, std::error_code ec) {
    --current.in_flight;
    ++current.done;
    if (ec) ++current.errors;
    record(current.recorders, current.mix.size(), slot, start, start, clock::now(), ec);
  }

  bool may_issue(std::size_t i, clock::time_point now) {
    if (current.deadline ? now >= *current.deadline : current.to_issue == 0) return false;
    return may_send(i, current.mix.front().op);  // delete is never mixed
  }

  void issue(std::size_t i) {
    const auto start = clock::now();
    if (!may_issue(i, start)) return;
    if (!current.deadline) --current.to_issue;
    ++current.in_flight;
    const std::size_t slot = picker.next();
    send(i, current.mix[slot].op, [this, i, slot, start](std::error_code ec) { next(i, slot, start, ec); });
  }

  void next(std::size_t i, std::size_t slot, clock::time_point start, std::error_code ec) {
    finish(slot, start, ec);
    issue(i);
  }

  // Runs a phase: `window` requests in flight per client until the count or the deadline is reached.
  void run_phase(const std::vector<mix_entry>& mix, std::uint64_t count, std::optional<clock::duration> length,
                 std::uint64_t window, std::vector<latency_recorder>* recorders) {
    current = phase{mix, count, std::nullopt, 0, 0, 0, recorders};
    picker = mix_picker(mix);
    if (length) current.deadline = clock::now() + *length;
    const auto started = clock::now();
    const std::string name = mix.size() == 1 ? std::string(op_name(mix.front().op)) : std::string("mix");
    ticker_guard ticker(*this, recorders != nullptr, [&] {
      progress_info info;
      info.op = name;
      info.done = current.done;
      info.target = length ? 0 : count;
      info.elapsed_s = std::chrono::duration<double>(clock::now() - started).count();
      return info;
    });
    for (std::uint64_t w = 0; w < window; ++w) {
      for (std::size_t i = 0; i < sessions.size(); ++i) issue(i);
    }
    run_until([&] { return current.in_flight == 0; });
  }

  void run_phase(op_kind op, std::uint64_t count, std::optional<clock::duration> length, std::uint64_t window,
                 std::vector<latency_recorder>* recorders) {
    run_phase(std::vector<mix_entry>{mix_entry{op, 1}}, count, length, window, recorders);
  }

  // Calls `progress` with what `info()` says every 500 ms while it lives (when `active` and there is a progress
  // function); the timer is cancelled and its handler run before it goes.
  class ticker_guard {
   public:
    template <class Info>
    ticker_guard(state& s, bool active, Info info) : s_(s), ticker_(s.io) {
      if (!active || !s.progress) return;
      tick_ = [this, info] {
        ticker_.expires_after(std::chrono::milliseconds(500));
        ticker_.async_wait([this, info](std::error_code ec) {
          if (ec) return;
          s_.progress(info());
          tick_();
        });
      };
      tick_();
    }
    ~ticker_guard() {
      try {
        ticker_.cancel();
        s_.io.poll();  // runs the cancelled ticker's handler while `ticker_` still exists
      } catch (...) {  // NOLINT(bugprone-empty-catch): only a throwing handler could get here; none of ours throws
      }
    }
    ticker_guard(const ticker_guard&) = delete;
    ticker_guard& operator=(const ticker_guard&) = delete;
    ticker_guard(ticker_guard&&) = delete;
    ticker_guard& operator=(ticker_guard&&) = delete;

   private:
    state& s_;
    asio::steady_timer ticker_;
    std::function<void()> tick_;
  };

  // Nodes for delete: at least `needed` over all clients.
  void prepare_delete(std::uint64_t needed) {
    std::uint64_t have = 0;
    for (const auto& s : sessions) have += s.created.size();
    if (have >= needed) return;
    run_phase(op_kind::create, needed - have, std::nullopt, bulk_window, nullptr);
  }
};

// The open loop (open_loop.cpp): one measured phase at config.rate, recording into `recorders` (as
// phase::recorders); fills the open-loop fields of `reports` (one per recorder, the whole mix last).
void run_open_loop(runner::state& s, const std::vector<mix_entry>& mix, std::vector<latency_recorder>& recorders,
                   std::vector<op_report>& reports);

// The lock workload (lock_workload.cpp): a friend of runner.
struct lock_workload {
  static std::vector<op_report> run(runner& r);
  static runner::state& state_of(runner& r) { return *r.state_; }
};

}  // namespace zkwire::bench
