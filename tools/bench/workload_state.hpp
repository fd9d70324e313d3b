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
  // One phase of windowed requests: what to issue, how many, until when, and what came back.
  struct phase {
    op_kind op = op_kind::get;
    bool measured = false;
    std::uint64_t to_issue = 0;  // remaining starts (ignored with a deadline)
    std::optional<clock::time_point> deadline;
    std::uint64_t in_flight = 0;
    std::uint64_t done = 0;
    std::uint64_t errors = 0;
    histogram* latency = nullptr;
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

  state(run_config c, progress_function p) : config(std::move(c)), progress(std::move(p)) {}

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

  // --- the windowed loop ---

  void finish(clock::time_point start, std::error_code ec) {
    --current.in_flight;
    ++current.done;
    if (ec) {
      ++current.errors;
    } else if (current.latency != nullptr) {
      current.latency->record(static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count()));
    }
  }

  bool may_issue(std::size_t i, clock::time_point now) {
    if (current.deadline ? now >= *current.deadline : current.to_issue == 0) return false;
    return current.op != op_kind::remove || !sessions[i].created.empty();
  }

  void issue(std::size_t i) {
    const auto start = clock::now();
    if (!may_issue(i, start)) return;
    if (!current.deadline) --current.to_issue;
    ++current.in_flight;
    session& s = sessions[i];
    zkwire::client& c = *s.client;
    switch (current.op) {
      case op_kind::get:
        c.async_get(s.node, [this, i, start](std::error_code ec, const get_result&) { next(i, start, ec); });
        break;
      case op_kind::exists:
        c.async_exists(s.node, [this, i, start](std::error_code ec, const std::optional<zkwire::stat>& st) {
          next(i, start, ec ? ec : st ? std::error_code{} : make_error_code(proto::server_error::no_node));
        });
        break;
      case op_kind::set:
        c.async_set(s.node, data, any_version,
                    [this, i, start](std::error_code ec, const zkwire::stat&) { next(i, start, ec); });
        break;
      case op_kind::create:
        c.async_create(numbered(s.node, 'n', s.sequence++), data,
                       [this, i, start](std::error_code ec, create_result r) {
                         if (!ec) sessions[i].created.push_back(std::move(r.path));
                         next(i, start, ec);
                       });
        break;
      case op_kind::remove: {
        std::string path = std::move(s.created.front());
        s.created.pop_front();
        c.async_remove(std::move(path), any_version, [this, i, start](std::error_code ec) { next(i, start, ec); });
        break;
      }
      case op_kind::children:
        c.async_get_children(scratch + "/k",
                             [this, i, start](std::error_code ec, const children_result&) { next(i, start, ec); });
        break;
      case op_kind::lock:  // lock_workload.cpp
        break;
      case op_kind::multi: {
        const std::string path = numbered(s.node, 'm', s.sequence++);
        std::vector<multi_op> ops;
        ops.reserve(2);
        ops.push_back(ops::create(path, data));
        ops.push_back(ops::remove(path));
        c.async_multi(std::move(ops),
                      [this, i, start](std::error_code ec, const std::vector<op_result>&) { next(i, start, ec); });
        break;
      }
    }
  }

  void next(std::size_t i, clock::time_point start, std::error_code ec) {
    finish(start, ec);
    issue(i);
  }

  // Runs a phase: `window` requests in flight per client until the count or the deadline is reached.
  void run_phase(op_kind op, std::uint64_t count, std::optional<clock::duration> length, std::uint64_t window,
                 histogram* latency) {
    current = phase{op, latency != nullptr, count, std::nullopt, 0, 0, 0, latency};
    if (length) current.deadline = clock::now() + *length;
    asio::steady_timer ticker(io);
    const auto started = clock::now();
    std::function<void()> report_progress;
    if (progress && latency != nullptr) {
      report_progress = [&] {
        ticker.expires_after(std::chrono::milliseconds(500));
        ticker.async_wait([&](std::error_code ec) {
          if (ec) return;
          progress(op_name(op), current.done, length ? 0 : count,
                   std::chrono::duration<double>(clock::now() - started).count());
          report_progress();
        });
      };
      report_progress();
    }
    for (std::uint64_t w = 0; w < window; ++w) {
      for (std::size_t i = 0; i < sessions.size(); ++i) issue(i);
    }
    run_until([&] { return current.in_flight == 0; });
    ticker.cancel();
    io.poll();  // runs the cancelled ticker's handler while `ticker` still exists
  }

  // Nodes for delete: at least `needed` over all clients.
  void prepare_delete(std::uint64_t needed) {
    std::uint64_t have = 0;
    for (const auto& s : sessions) have += s.created.size();
    if (have >= needed) return;
    run_phase(op_kind::create, needed - have, std::nullopt, bulk_window, nullptr);
  }
};

// The lock workload (lock_workload.cpp): a friend of runner.
struct lock_workload {
  static std::vector<op_report> run(runner& r);
  static runner::state& state_of(runner& r) { return *r.state_; }
};

}  // namespace zkwire::bench
