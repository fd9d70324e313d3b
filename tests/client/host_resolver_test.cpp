// host_resolver (client/src): a host name's lookup on a thread that ends with it, its result on the owner's
// executor, and a cancel that leaves nothing behind.

#include "host_resolver.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace zkwire::detail {
namespace {

using results = host_resolver::results;

std::size_t thread_count() {
  std::size_t n = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  while (const dirent* entry = readdir(tasks)) n += entry->d_name[0] != '.' ? 1U : 0U;
  closedir(tasks);
  return n;
}

TEST(host_resolver, ResolvesOnTheOwnersExecutorAndKeepsNoThread) {
  asio::io_context io;
  host_resolver resolver(io.get_executor());
  std::thread([] {
  }).join();  // a sanitizer's runtime may start a thread of its own at the first thread: before the count
  const std::size_t threads_before = thread_count();
  bool called = false;
  std::thread::id called_on;
  resolver.async_resolve("localhost", 2181, [&](const std::error_code& ec, const results& found) {
    called = true;
    called_on = std::this_thread::get_id();
    EXPECT_FALSE(ec) << ec.message();
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found.begin()->endpoint().port(), 2181);
    EXPECT_TRUE(found.begin()->endpoint().address().is_loopback());
  });
  io.run();  // returns once the result ran: the lookup was outstanding work until then
  EXPECT_TRUE(called);
  EXPECT_EQ(called_on, std::this_thread::get_id());
  // Asio's own resolver would keep a thread for the io_context from here on; the lookup's thread ends (it may
  // still be on its way out right after posting).
  for (int i = 0; i < 100000 && thread_count() > threads_before; ++i) std::this_thread::yield();
  EXPECT_EQ(thread_count(), threads_before);
}

TEST(host_resolver, AnUnknownHostIsAnError) {
  asio::io_context io;
  host_resolver resolver(io.get_executor(), [](const std::string&, const std::string&, std::error_code& ec) {
    ec = asio::error::host_not_found;
    return results();
  });
  std::error_code seen;
  resolver.async_resolve("nowhere.invalid", 2181, [&](const std::error_code& ec, const results&) { seen = ec; });
  io.run();
  EXPECT_EQ(seen, asio::error::host_not_found);
}

TEST(host_resolver, CancelReleasesTheHandlerAndTheWorkAtOnce) {
  asio::io_context io;
  std::promise<void> release;
  // By value: the cancelled lookup's thread may outlive this test.
  host_resolver resolver(io.get_executor(), [released = release.get_future().share()](
                                                const std::string&, const std::string&, std::error_code&) {
    released.wait();
    return results();
  });
  auto token = std::make_shared<int>(0);
  const std::weak_ptr<int> held = token;
  bool called = false;
  resolver.async_resolve("blocked", 2181, [&called, token](const std::error_code&, const results&) { called = true; });
  token.reset();
  io.poll();
  EXPECT_FALSE(io.stopped()) << "the outstanding lookup is work for the io_context";
  EXPECT_FALSE(held.expired());

  resolver.cancel();
  EXPECT_TRUE(held.expired()) << "cancel() releases the handler on the owner's thread";
  io.restart();
  io.poll();
  EXPECT_TRUE(io.stopped()) << "nothing outstanding after cancel()";

  // The cancelled lookup's thread finishes and posts nothing; a later lookup's result is the only call.
  release.set_value();
  bool later = false;
  resolver.async_resolve("next", 2181, [&](const std::error_code&, const results&) { later = true; });
  io.restart();
  io.run();
  EXPECT_TRUE(later);
  EXPECT_FALSE(called);
}

TEST(host_resolver, ARetryWaitsForTheLookupStillRunningForItsHost) {
  asio::io_context io;
  std::promise<void> release;
  auto lookups = std::make_shared<std::atomic<int>>(0);
  host_resolver resolver(io.get_executor(), [lookups, released = release.get_future().share()](
                                                const std::string& host, const std::string&, std::error_code&) {
    ++*lookups;
    if (host == "slow") released.wait();
    return results();
  });
  int first = 0;
  int retry = 0;
  int other = 0;
  resolver.async_resolve("slow", 2181, [&](const std::error_code&, const results&) { ++first; });
  for (int i = 0; i < 100000 && lookups->load() == 0; ++i) std::this_thread::yield();
  ASSERT_EQ(lookups->load(), 1);
  resolver.cancel();  // the client gives up on the slow DNS server, and comes back to the same host
  resolver.async_resolve("slow", 2181, [&](const std::error_code&, const results&) { ++retry; });
  release.set_value();
  io.restart();  // the cancel left the io_context without work for a moment: it stopped, as Asio's would
  io.run();
  EXPECT_EQ(lookups->load(), 1) << "the retry started a second getaddrinfo for the same host";
  EXPECT_EQ(retry, 1);
  EXPECT_EQ(first, 0);

  // Another host, or the same one after its lookup ended, is a lookup of its own.
  resolver.async_resolve("fast", 2181, [&](const std::error_code&, const results&) { ++other; });
  io.restart();
  io.run();
  resolver.async_resolve("slow", 2181, [&](const std::error_code&, const results&) { ++retry; });
  io.restart();
  io.run();
  EXPECT_EQ(other, 1);
  EXPECT_EQ(retry, 2);
  EXPECT_EQ(lookups->load(), 3);
}

TEST(host_resolver, ConnectsToANumericAddressOrAFoundOneAndReportsAFailedLookup) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const std::uint16_t port = acceptor.local_endpoint().port();
  host_resolver resolver(
      io.get_executor(), [](const std::string& host, const std::string& service, std::error_code& ec) {
        if (host != "here") {
          ec = asio::error::host_not_found;
          return results();
        }
        const auto found_port = static_cast<std::uint16_t>(std::stoi(service));
        return results::create(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), found_port), host, service);
      });
  for (const std::string host : {"127.0.0.1", "here", "nowhere"}) {
    SCOPED_TRACE(host);
    asio::ip::tcp::socket socket(io);
    std::optional<std::error_code> result;
    resolver.async_connect(socket, host_port{host, port}, [&](const std::error_code& ec) { result = ec; });
    io.restart();
    io.run();
    ASSERT_TRUE(result.has_value());
    if (host != "nowhere") {
      EXPECT_FALSE(*result) << result->message();
      EXPECT_EQ(socket.remote_endpoint().port(), port);
    } else {
      EXPECT_EQ(*result, asio::error::host_not_found);
    }
  }
}

}  // namespace
}  // namespace zkwire::detail
