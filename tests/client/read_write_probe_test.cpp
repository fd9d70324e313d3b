// The read-write probe of a read-only session (client/src/read_write_probe.hpp) over a scripted transport: which
// hosts it asks, what counts as read-write, and that stop() and destruction leave nothing running.

#include "read_write_probe.hpp"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zkwire::detail {
namespace {

using namespace std::chrono_literals;

// What each port answers to isro: a text, or a refused connection (nullopt).
struct script {
  std::map<std::uint16_t, std::optional<std::string>> answers;
  std::vector<std::uint16_t> asked;  // ports connected to, in order
  int alive = 0;                     // transports not yet destroyed
  int written = 0;                   // isro requests written
};

// Delivers every event posted, never after close() or destruction (a generation number filters stale ones).
class scripted_transport final : public transport {
 public:
  scripted_transport(asio::any_io_executor executor, transport_events& events, script& s)
      : executor_(std::move(executor)), events_(events), script_(s), alive_(std::make_shared<bool>(true)) {
    ++script_.alive;
  }
  scripted_transport(const scripted_transport&) = delete;
  scripted_transport& operator=(const scripted_transport&) = delete;
  scripted_transport(scripted_transport&&) = delete;
  scripted_transport& operator=(scripted_transport&&) = delete;
  ~scripted_transport() override {
    *alive_ = false;
    --script_.alive;
  }

  void async_connect(const host_port& host) override {
    close();
    script_.asked.push_back(host.port);
    answer_ = script_.answers[host.port];
    post([this] {
      events_.on_connected(answer_ ? std::error_code{} : std::make_error_code(std::errc::connection_refused));
    });
  }
  void async_read_some(std::span<char> buffer) override {
    post([this, buffer] {
      if (sent_ >= answer_->size()) {
        events_.on_read(std::make_error_code(std::errc::connection_reset), 0);
        return;
      }
      const std::size_t n = std::min(buffer.size(), answer_->size() - sent_);
      std::copy_n(answer_->data() + sent_, n, buffer.data());
      sent_ += n;
      events_.on_read({}, n);
    });
  }
  void async_write(std::span<const char> bytes) override {
    EXPECT_EQ(std::string(bytes.data(), bytes.size()), "isro");
    ++script_.written;
    post([this] { events_.on_written({}); });
  }
  void close() noexcept override {
    ++generation_;
    sent_ = 0;
  }

 private:
  template <class F>
  void post(F f) {
    asio::post(executor_, [this, f = std::move(f), generation = generation_, alive = alive_] {
      if (*alive && generation == generation_) f();
    });
  }

  asio::any_io_executor executor_;
  transport_events& events_;
  script& script_;
  std::shared_ptr<bool> alive_;
  std::optional<std::string> answer_;
  std::size_t sent_ = 0;
  std::uint64_t generation_ = 0;
};

std::vector<host_port> hosts(std::initializer_list<std::uint16_t> ports) {
  std::vector<host_port> out;
  for (const auto port : ports) out.push_back(host_port{"127.0.0.1", port});
  return out;
}

struct fixture {
  asio::io_context io;
  script s;
  std::optional<std::size_t> found;
  std::unique_ptr<read_write_probe> probe;

  explicit fixture(read_write_probe::settings settings = {1ms, 4ms, 1000ms}) {
    probe = std::make_unique<read_write_probe>(
        io.get_executor(),
        [this](const asio::any_io_executor& executor, transport_events& events) {
          return std::make_unique<scripted_transport>(executor, events, s);
        },
        steady_clock_source(), settings, [this](std::size_t index) { found = index; }, nullptr);
  }
  // The io_context stops when it runs out of work (a stopped probe has none): restart it every time.
  void run_for(std::chrono::milliseconds d) {
    io.restart();
    io.run_for(d);
  }
  // Runs until `done`; false after 5 s.
  template <class Done>
  bool run_until(Done done) {
    const auto end = std::chrono::steady_clock::now() + 5s;
    while (!done() && std::chrono::steady_clock::now() < end) run_for(5ms);
    return done();
  }
};

TEST(read_write_probe, AsksTheOtherHostsInTurnUntilOneAnswersReadWrite) {
  fixture f;
  f.s.answers = {{1, "rw"}, {2, std::nullopt}, {3, "ro"}, {4, "rw"}};
  f.probe->start(hosts({1, 2, 3, 4}), 0);  // on host 0 (port 1): never asked
  ASSERT_TRUE(f.run_until([&] { return f.found.has_value(); }));
  ASSERT_EQ(f.found, std::optional<std::size_t>{3});
  EXPECT_EQ(f.s.asked, (std::vector<std::uint16_t>{2, 3, 4}));
  EXPECT_EQ(f.s.written, 2);  // not to the refused host
  EXPECT_FALSE(f.probe->running());
}

TEST(read_write_probe, RefusalsAndOtherAnswersAreNotReadWrite) {
  fixture f;
  f.s.answers = {{1, "ro"}, {2, "null"}, {3, "isro is not executed because it is not in the whitelist."}};
  f.probe->start(hosts({1, 2, 3}), 0);
  ASSERT_TRUE(f.run_until([&] { return f.s.asked.size() >= 6; }));
  EXPECT_FALSE(f.found.has_value());
  // In turn, the current host never (more rounds may have run by the time the condition is seen).
  for (std::size_t i = 0; i < f.s.asked.size(); ++i) EXPECT_EQ(f.s.asked[i], i % 2 == 0 ? 2 : 3) << i;
  // Now host 3 turns read-write.
  f.s.answers[3] = "rw";
  ASSERT_TRUE(f.run_until([&] { return f.found.has_value(); }));
  EXPECT_EQ(f.found, std::optional<std::size_t>{2});
}

TEST(read_write_probe, NothingToAskWithASingleHost) {
  fixture f;
  f.probe->start(hosts({1}), 0);
  EXPECT_FALSE(f.probe->running());
  f.run_for(20ms);
  EXPECT_TRUE(f.s.asked.empty());
}

TEST(read_write_probe, StopAndDestructionLeaveNothingRunning) {
  fixture f({1ms, 1ms, 5ms});  // every timer of the probe fires within the 50 ms waits below
  f.s.answers = {{1, "ro"}, {2, "ro"}};
  f.probe->start(hosts({1, 2}), 0);
  ASSERT_TRUE(f.run_until([&] { return f.s.asked.size() >= 2; }));
  f.probe->stop();
  const auto asked = f.s.asked.size();
  f.s.answers[2] = "rw";
  f.run_for(50ms);
  EXPECT_EQ(f.s.asked.size(), asked);  // no round after stop()
  EXPECT_FALSE(f.found.has_value());
  // Restarted, then destroyed in the middle of an attempt: its transport goes with it, no event arrives later.
  f.s.answers[2] = "ro";
  f.probe->start(hosts({1, 2}), 0);
  ASSERT_TRUE(f.run_until([&] { return f.s.asked.size() > asked; }));
  EXPECT_EQ(f.s.alive, 1);
  f.probe.reset();
  EXPECT_EQ(f.s.alive, 0);
  f.run_for(30ms);
  EXPECT_FALSE(f.found.has_value());
}

}  // namespace
}  // namespace zkwire::detail
