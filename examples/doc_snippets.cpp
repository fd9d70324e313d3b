// Every code example of README.md and of the public headers' comments, compiled and run. Each example sits between
// a `// [doc FILE]` and a `// [/doc]` line; scripts/check-doc-snippets checks that its lines appear verbatim in
// FILE (in a ```cpp block, or in a comment as `//   line`), and that every ```cpp block of README.md and every
// example line with co_await in a public header is one of them, so the documentation shows only code that
// compiles. run_doc_snippets() runs them against a server: the doc_snippets program (doc_snippets_main.cpp) and
// tests/integration/client_coroutine_errors_test.cpp, which CI builds with GCC 12 under ASan.

#include "doc_snippets.hpp"

#include <asio/co_spawn.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/recipes.hpp"

namespace zkwire_examples {
namespace {

void write_state(std::int64_t fencing_token) {
  std::printf("writing with fencing token %lld\n", static_cast<long long>(fencing_token));
}
void stop_leading() { std::printf("not leading\n"); }
void start_leading(std::int64_t fencing_token) {
  std::printf("leading with token %lld\n", static_cast<long long>(fencing_token));
}

// --- zkwire::client ---

void client_callbacks(const std::string& servers) {
  // [doc client/include/zkwire/client/client.hpp]
  asio::io_context io;
  zkwire::client c(io.get_executor(), zkwire::client_options(servers));  // e.g. "127.0.0.1:2181/app"
  c.async_connect([&](std::error_code ec) {
    if (ec) {
      c.async_close([](std::error_code) {});  // io.run() returns once the client is closed
      return;
    }
    c.async_get("/config", [&](std::error_code error, const zkwire::get_result& got) {
      if (!error) std::printf("/config: %s\n", got.data.c_str());
      c.async_close([](std::error_code) {});
    });
  });
  io.run();
  // [/doc]
}

asio::awaitable<void> client_coroutine(zkwire::client& zk) {
  const std::string me = "host-1";
  // [doc README.md]
  try {
    co_await zk.async_create("/app/leader", me, zkwire::create_mode::ephemeral, asio::use_awaitable);
  } catch (const std::system_error& e) {
    if (e.code() != zkwire::server_error::node_exists) throw;  // someone else leads
  }
  auto [data, change] = co_await zk.async_get_watch("/app/config", asio::use_awaitable);  // one-shot watch
  // [/doc]
  static_cast<void>(data);
  static_cast<void>(change);
}

asio::awaitable<void> client_deadline(zkwire::client& c) {
  using namespace std::chrono_literals;
  // [doc client/include/zkwire/client/with_timeout.hpp client/include/zkwire/client/client.hpp]
  auto got = co_await c.async_get("/config", zkwire::with_timeout(200ms, asio::use_awaitable));
  // [/doc]
  static_cast<void>(got);
}

asio::awaitable<void> client_braced_forms(zkwire::client& zk) {
  // [doc README.md]
  auto v = co_await zk.async_create("/app/v", "", zkwire::create_options{zkwire::create_mode::persistent_sequential},
                                    asio::use_awaitable);
  co_await zk.async_multi(zkwire::ops::list(zkwire::ops::check(v.path, 0), zkwire::ops::set(v.path, "x")),
                          asio::use_awaitable);
  co_await zk.async_set_acl(v.path, zkwire::acl_list(zkwire::acl(zkwire::perms::all, "world", "anyone")), 0,
                            asio::use_awaitable);
  // [/doc]
}

asio::awaitable<void> watch_wait(zkwire::client& c) {
  // [doc client/include/zkwire/client/watch.hpp]
  auto [got, w] = co_await c.async_get_watch("/config", asio::use_awaitable);
  zkwire::watch_event ev = co_await w.async_wait(asio::use_awaitable);  // NodeDataChanged, NodeDeleted, ...
  // [/doc]
  static_cast<void>(got);
  static_cast<void>(ev);
}

// --- the recipes ---

asio::awaitable<void> lock_intro(zkwire::client& c) {
  // [doc recipes/include/zkwire/recipes/lock.hpp]
  zkwire::recipes::lock l(c, "/locks/job");  // exclusive, Curator node names
  co_await l.async_acquire(std::chrono::seconds(5), asio::use_awaitable);
  co_await l.async_guarded_multi(zkwire::ops::list(zkwire::ops::set("/job/state", "done")), asio::use_awaitable);
  co_await l.async_release(asio::use_awaitable);
  // [/doc]
}

asio::awaitable<void> lock_hold(zkwire::recipes::lock& l) {
  // [doc recipes/include/zkwire/recipes/lock.hpp]
  auto [ec, hold] =
      co_await l.async_acquire_hold(std::chrono::seconds(5), asio::experimental::as_tuple(asio::use_awaitable));
  // [/doc]
  if (ec) throw std::system_error(ec);
}

asio::awaitable<void> lock_readme(zkwire::client& client) {
  // clang-format off
  // [doc README.md]
  zkwire::recipes::lock job(client, "/locks/job");
  co_await job.async_acquire(std::chrono::seconds(5), asio::use_awaitable);   // lock_errc::timeout if not
  auto token = job.fencing_token();                                           // czxid of our node
  std::vector<zkwire::multi_op> write = {zkwire::ops::set("/job/state", "done")};  // fails if we lost the lock
  co_await job.async_guarded_multi(std::move(write), asio::use_awaitable);
  co_await job.async_release(asio::use_awaitable);
  // [/doc]
  // clang-format on
  static_cast<void>(token);
}

asio::awaitable<void> semaphore_intro(zkwire::client& c) {
  // [doc recipes/include/zkwire/recipes/semaphore.hpp]
  zkwire::recipes::semaphore s(c, "/semaphores/workers", 4);
  co_await s.async_acquire(std::chrono::seconds(5), asio::use_awaitable);  // one lease
  // ... at most 4 holders (of all clients) are here at once ...
  co_await s.async_release(asio::use_awaitable);
  // [/doc]
}

asio::awaitable<void> multi_lock_intro(zkwire::client& c) {
  // [doc recipes/include/zkwire/recipes/multi_lock.hpp]
  zkwire::recipes::multi_lock m(c, {"/locks/account-7", "/locks/account-3"});
  co_await m.async_acquire(std::chrono::seconds(5), asio::use_awaitable);  // both, or neither
  auto token = m.fencing_token("/locks/account-3");
  co_await m.async_release(asio::use_awaitable);
  // [/doc]
  static_cast<void>(token);
}

asio::awaitable<void> keeper_intro(zkwire::client& c) {
  // [doc recipes/include/zkwire/recipes/lock_keeper.hpp]
  zkwire::recipes::lock_keeper k(c, "/locks/leader");
  k.set_listener([&](const zkwire::recipes::lock_event& e) {
    if (e.to == zkwire::recipes::lock_state::lost) stop_leading();                    // stop acting on it at once
    if (e.to == zkwire::recipes::lock_state::held) start_leading(k.fencing_token());  // a new, larger token
  });
  co_await k.async_acquire(asio::use_awaitable);
  // [/doc]
  co_await k.async_release(asio::use_awaitable);
}

asio::awaitable<void> election_intro(zkwire::client& c) {
  // [doc recipes/include/zkwire/recipes/election.hpp]
  zkwire::recipes::election e(c, "/services/scheduler", zkwire::recipes::election_options::with_id("node-7"));
  e.set_listener([&](const zkwire::recipes::leadership_event& ev) {
    if (ev.change == zkwire::recipes::leadership_change::gained) start_leading(ev.fencing_token);
    if (ev.change == zkwire::recipes::leadership_change::lost) stop_leading();  // ev.reason says why
  });
  co_await e.async_join(asio::use_awaitable);  // queued; the listener says when we lead
  co_await e.async_await_leadership(std::chrono::seconds(30), asio::use_awaitable);  // or wait for it
  co_await e.async_relinquish(asio::use_awaitable);  // step down, queue again at the back
  co_await e.async_leave(asio::use_awaitable);       // out of the election, our node deleted
  // [/doc]
}

asio::awaitable<void> contenders_and_revoke(zkwire::client& c, std::string node) {
  // [doc recipes/include/zkwire/recipes/contenders.hpp]
  auto list = co_await zkwire::recipes::async_contenders(c, "/locks/job", asio::use_awaitable);
  // [/doc]
  if (list.empty()) throw std::runtime_error("contenders: the held lock is not listed");
  // [doc recipes/include/zkwire/recipes/revoke.hpp]
  co_await zkwire::recipes::async_revoke(c, node, asio::use_awaitable);  // e.g. "/locks/job/_c_...-lock-0000000007"
  // [/doc]
}

asio::awaitable<void> member_check(zkwire::client& c, zkwire::client_options options, std::vector<std::string> names) {
  const std::chrono::seconds timeout(5);
  // [doc recipes/include/zkwire/recipes/member_views.hpp]
  auto check =
      co_await zkwire::recipes::async_check_members(c, options, "/locks/job", names, timeout, asio::use_awaitable);
  for (const auto& node : check.diverged) std::printf("%s: on one member only\n", node.name.c_str());
  // [/doc]
  if (!check.diverged.empty()) throw std::runtime_error("member check: a diverged node on a single server");
}

void blocking_readme(const zkwire::client_options& options) {
  // clang-format off
  // [doc README.md]
  zkwire::blocking_client zk(options);                       // runs its own event loop thread
  zkwire::recipes::blocking_lock job(zk, "/locks/job");      // one lock node per object; share it between threads
  {
    std::unique_lock hold(job, std::chrono::seconds(30));     // try_lock_for: false if not acquired in time
    if (hold) write_state(job.fencing_token());               // czxid of our node: grows with every grant
  }                                                           // released here
  // [/doc]
  // clang-format on
}

void blocking_header(const zkwire::client_options& options) {
  // [doc recipes/include/zkwire/recipes/blocking_lock.hpp]
  zkwire::blocking_client c(options);  // connect_string "zk1:2181"
  zkwire::recipes::blocking_lock job(c, "/locks/job");
  {
    std::unique_lock hold(job, std::chrono::seconds(5));  // try_lock_for
    if (!hold) return;                                    // someone else holds it
    write_state(job.fencing_token());
  }  // unlock()
  zkwire::recipes::blocking_read_write_lock config(c, "/locks/config");
  {
    std::shared_lock read(config);  // read side
  }
  {
    std::lock_guard write(config);  // write side
  }
  // [/doc]
}

// Throws std::system_error: the files do not exist.
void tls_readme() {
  // [doc README.md]
  zkwire::client_options options("zk1.example:2281,zk2.example:2281");
  options.tls = zkwire::tls_options("/etc/zk/ca.pem", "/etc/zk/client.pem", "/etc/zk/client.key");
  zkwire::blocking_client c(options);  // a bad or unreadable file throws std::system_error here
  c.connect();                         // a failed handshake throws with its cause (zkwire::tls_errc)
  // [/doc]
}

// Runs `co` on `c`'s executor to its end, rethrowing what it threw.
void run(asio::io_context& io, asio::awaitable<void> co) {
  std::exception_ptr failure;
  bool done = false;
  asio::co_spawn(io, std::move(co), [&](std::exception_ptr e) {
    failure = std::move(e);
    done = true;
  });
  io.restart();
  while (!done && io.run_one() > 0) {
  }
  if (failure) std::rethrow_exception(failure);
  if (!done) throw std::runtime_error("doc snippet: the io_context ran out of work before the example finished");
}

// Writes /config until `*stop`, so that a watch on it fires.
asio::awaitable<void> keep_changing_config(zkwire::client& c, const bool* stop) {
  asio::steady_timer timer(c.get_executor());
  while (!*stop) {
    co_await c.async_set("/config", "changed", zkwire::any_version, asio::use_awaitable);
    timer.expires_after(std::chrono::milliseconds(20));
    co_await timer.async_wait(asio::use_awaitable);
  }
}

}  // namespace

void run_doc_snippets(const std::string& servers) {
  asio::io_context io;
  zkwire::client c(io.get_executor(), zkwire::client_options(servers));
  // The nodes the examples expect.
  run(io, [&]() -> asio::awaitable<void> {
    for (const char* path : {"/config", "/app", "/app/config", "/job", "/job/state"}) {
      co_await c.async_create(path, "v", asio::use_awaitable);
    }
  }());
  client_callbacks(servers);
  run(io, client_coroutine(c));
  run(io, client_deadline(c));
  run(io, client_braced_forms(c));
  bool stop = false;
  asio::co_spawn(io, keep_changing_config(c, &stop), [](const std::exception_ptr&) {});
  run(io, watch_wait(c));
  stop = true;
  run(io, lock_intro(c));
  zkwire::recipes::lock held(c, "/locks/job");
  run(io, lock_hold(held));
  run(io, lock_readme(c));
  run(io, semaphore_intro(c));
  run(io, multi_lock_intro(c));
  run(io, keeper_intro(c));
  run(io, election_intro(c));
  {
    zkwire::recipes::lock l(c, "/locks/job");
    run(io, [&]() -> asio::awaitable<void> {
      co_await l.async_acquire(std::chrono::seconds(5), asio::use_awaitable);
      co_await contenders_and_revoke(c, l.node_path());
      std::vector<std::string> names;
      names.push_back(l.node_path().substr(l.node_path().rfind('/') + 1));
      co_await member_check(c, zkwire::client_options(servers), names);
      co_await l.async_release(asio::use_awaitable);
    }());
  }
  run(io, c.async_close(asio::use_awaitable));

  zkwire::client_options options(servers);
  blocking_readme(options);
  blocking_header(options);
  try {
    tls_readme();
    throw std::runtime_error("the TLS example connected without its certificate files");
  } catch (const std::system_error& e) {
    if (e.code() != zkwire::tls_errc::bad_ca_file) throw;
  }
}

}  // namespace zkwire_examples
