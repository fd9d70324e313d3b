// The nemesis (ctest -L nemesis): `zkwire lock` contenders, each through proxies of its own to a real 3-member
// ensemble, while a seeded schedule blackholes contenders beyond the session timeout, kills -9 and restarts members
// (the leader among them) and pauses the leader. Each critical section is this program run again as the lock's
// command (--critical-section, nemesis_oracle.hpp): it records its interval on CLOCK_MONOTONIC (shared by every
// process of the machine) and writes its fencing token to a register that refuses a token lower than the highest it
// has accepted. The oracle, over what the sections recorded: no two sections overlap, tokens grow strictly in the order
// of the sections, the register accepted no write of a holder whose successor had already started, every contender kept
// acquiring, and the lock directory is empty at the end.
//
// ZKWIRE_NEMESIS_SEED replays a schedule (the seed is printed on failure); ZKWIRE_NEMESIS_SECONDS sets the length of
// the fault schedule (default 40). ZKWIRE_NEMESIS_MARGIN_MS passes --safety-margin to the contenders: with 0 a holder
// is told of its loss only when the server may already have granted the lock to the next one, and the oracle finds
// two holders at once (MarginZeroIsUnsafe runs that on purpose).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "chaos_support.hpp"
#include "nemesis_faults.hpp"
#include "nemesis_oracle.hpp"
#include "recipes/curator_support.hpp"
#include "support/child_process.hpp"
#include "support/kazoo.hpp"
#include "support/requirements.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_cluster.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

// --- the run ---

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// Who contends: `zkwire lock`, `zkwire elect` (the three election namings, one per contender, on one path), or, for
// the comparison run only, the peers' election recipes (CuratorElectionPeer.java, kazoo_election_peer.py in
// nemesis mode: the same command, started when they lead, sent SIGTERM when their recipe says leadership is lost).
enum class contender_kind { lock, elect, curator_latch, curator_selector, kazoo };

struct nemesis_settings {
  contender_kind kind = contender_kind::lock;
  std::optional<std::int64_t> margin_ms;  // --safety-margin; empty: the CLI's default
  bool holders_only = false;              // blackhole only contenders in their critical section; no server faults
  std::chrono::seconds duration{40};
  // Each critical section holds for a seeded time in [hold_min, hold_max], unless the lock is lost first: a
  // blackhole only meets a command still running when it lasts longer than the session timeout.
  int hold_min_ms = 200;
  int hold_max_ms = 4000;
  // How long a terminated section takes to finish its last write: within the default margin (750 ms of the 3 s
  // session timeout), with room for a timer that fires late on a loaded machine.
  milliseconds stop_time{300};
};

constexpr std::size_t contender_count = 3;
constexpr milliseconds session_timeout{3000};

class nemesis {
 public:
  nemesis(nemesis_settings settings, std::uint64_t seed)
      : settings_(settings),
        seed_(seed),
        holds_(~seed),
        path_(settings.kind == contender_kind::lock ? "/nemesis/lock" : "/nemesis/election") {}

  void run() {
    cluster_options options;
    options.members = 3;
    cluster_ = std::make_unique<zk_cluster>(options);
    for (std::size_t k = 0; k < contender_count; ++k) {
      proxies_.push_back(std::make_unique<proxied_cluster>(loop_.io(), *cluster_, seed_ + 100 * k));
    }
    contenders_.resize(contender_count);
    std::vector<proxied_cluster*> targets;
    for (auto& p : proxies_) targets.push_back(p.get());
    faults_ = std::make_unique<nemesis_faults>(*cluster_, std::move(targets), seed_, session_timeout, started_);
    const auto began = std::chrono::steady_clock::now();
    // With holders_only, a blackhole picks a contender in its critical section now.
    nemesis_faults::candidates_function candidates;
    if (settings_.holders_only) candidates = [this] { return holders(); };
    faults_->run(
        settings_.duration, [this] { keep_contending(); }, candidates, settings_.holders_only);
    faults_->heal();
    // Let every contender finish the attempt it is in (no new ones), then check what is left.
    bool looked = false;
    for (std::size_t k = 0; k < contenders_.size(); ++k) {
      auto& c = contenders_[k];
      if (c.process.pid() <= 0) continue;
      // One that is still at it after 30 s is stuck: what each member shows of the lock directory is the clue, and
      // a member that diverged from the others is rebuilt, which gives its contenders another 30 s to go on.
      if (!looked && !c.process.wait_for(30s)) {
        looked = true;
        faults_->log() << "stuck contenders:\n";
        rebuilt_ += faults_->rebuild_diverged(loop_, {path_});
      }
      const int status = c.process.finish(30s).status;
      count_exit(c, status);
      // Killed because it did not finish: what it was doing (its -v log) and what went over its connections last
      // (pings left out) are the clues left.
      if (status == 128 + SIGKILL) {
        faults_->log() << "contender " << k << " killed; its log ends:\n"
                       << log_tail(k, 40) << "its last frames but pings:\n"
                       << proxies_[k]->log_tail(60, false);
      }
    }
    faults_->log() << "contenders done after " << seconds_since(began) << " s\n";
  }

  // A client of the test's own to `servers`, not through the proxies (direct_, reset on the loop when done).
  blocking_ops direct_client(const std::string& servers) {
    client& c = *loop_.on_loop([&] {
      direct_ = std::make_unique<client>(loop_.io().get_executor(), client_options_for(servers));
      return direct_.get();
    });
    return blocking_ops{loop_, c};
  }

  // The children of the lock directory, once they are gone (or the listing after 20 s).
  std::vector<std::string> leftovers() {
    blocking_ops ops = direct_client(cluster_->connect_string());
    EXPECT_FALSE(ops.connect());
    std::vector<std::string> children;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    do {
      auto [ec, listing] = ops.children(path_);
      if (ec == server_error::no_node) return {};
      EXPECT_FALSE(ec) << ec.message();
      children = listing.children;
      if (children.empty()) break;
      std::this_thread::sleep_for(200ms);
    } while (std::chrono::steady_clock::now() < deadline);
    loop_.on_loop([&] { direct_.reset(); });
    return children;
  }

  ~nemesis() {
    loop_.on_loop([&] {
      direct_.reset();
      proxies_.clear();
    });
  }
  nemesis(const nemesis&) = delete;
  nemesis& operator=(const nemesis&) = delete;
  nemesis(nemesis&&) = delete;
  nemesis& operator=(nemesis&&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_.path(); }
  // Leaves the run's files (the contenders' logs, the sections and writes) in place, and says where.
  void keep_files() {
    dir_.keep();
    std::printf("the run's files stay in %s\n", dir().c_str());
  }
  [[nodiscard]] std::string faults_log() const { return faults_ ? faults_->log().str() : std::string(); }
  [[nodiscard]] std::map<int, std::size_t> lost_exits() const {
    std::map<int, std::size_t> out;
    for (std::size_t k = 0; k < contenders_.size(); ++k) out[static_cast<int>(k)] = contenders_[k].lost;
    return out;
  }
  [[nodiscard]] std::size_t rebuilt() const { return rebuilt_; }
  [[nodiscard]] std::string exit_summary() const {
    std::ostringstream out;
    for (std::size_t k = 0; k < contenders_.size(); ++k) {
      out << "contender " << k << ": " << contenders_[k].attempts << " attempts, exits";
      for (const auto& [status, n] : contenders_[k].exits) out << " " << status << "x" << n;
      out << "\n";
    }
    return out.str();
  }

  // The lock directory or the election path.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  // The fault schedule's time 0 on CLOCK_MONOTONIC, the sections' clock (steady_clock is CLOCK_MONOTONIC here).
  std::int64_t origin_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(started_.time_since_epoch()).count();
  }

 private:
  struct contender {
    child_process process;
    std::size_t attempts = 0;
    std::size_t lost = 0;
    std::map<int, std::size_t> exits;
  };

  void count_exit(contender& c, int status) {
    ++c.exits[status];
    if (status == 76) ++c.lost;
  }

  // The last `lines` lines of contender k's log (the last attempt's output comes last).
  std::string log_tail(std::size_t k, std::size_t lines) const {
    std::ifstream in(dir() / ("contender." + std::to_string(k) + ".log"));
    std::deque<std::string> tail;
    for (std::string line; std::getline(in, line);) {
      tail.push_back(std::move(line));
      if (tail.size() > lines) tail.pop_front();
    }
    std::string out;
    for (const auto& line : tail) out += "  " + line + "\n";
    return out;
  }

  // Starts the next `zkwire lock` of every contender whose previous one has ended.
  void keep_contending() {
    for (std::size_t k = 0; k < contenders_.size(); ++k) {
      auto& c = contenders_[k];
      if (c.process.pid() > 0 && c.process.running()) continue;
      if (c.process.pid() > 0 || c.process.exit_status()) count_exit(c, c.process.exit_status().value_or(-1));
      const auto hold = std::uniform_int_distribution<int>(settings_.hold_min_ms, settings_.hold_max_ms)(holds_);
      const std::vector<std::string> section = {self_path(),          "--critical-section",
                                                dir().string(),       std::to_string(k),
                                                std::to_string(hold), std::to_string(settings_.stop_time.count())};
      const auto log = dir() / ("contender." + std::to_string(k) + ".log");
      c.process = child_process::spawn(contender_command(k, section), log);
      ++c.attempts;
    }
  }

  // Contender k's command line, whose leader or holder runs `section`.
  [[nodiscard]] std::vector<std::string> contender_command(std::size_t k,
                                                           const std::vector<std::string>& section) const {
    const std::string connect = proxies_[k]->connect_string();
    const std::string id = "c" + std::to_string(k);
    const std::string timeout = std::to_string(session_timeout.count());
    std::vector<std::string> argv;
    switch (settings_.kind) {
      case contender_kind::lock:
      case contender_kind::elect:
        argv = {ZKWIRE_CLI_PATH, "-s", connect, "-t", timeout, "--connect-timeout", "5000", "-v"};
        if (settings_.kind == contender_kind::lock) {
          argv.emplace_back("lock");
        } else {
          // One naming per contender on one path: zkwire's rule (nobody of any naming ahead) is what keeps them to
          // one leader there.
          static constexpr const char* namings[] = {"latch", "lock", "kazoo"};
          argv.insert(argv.end(), {"elect", "--id", id, "--naming", namings[k % 3]});
        }
        argv.insert(argv.end(), {"--kill-after", "5"});
        if (settings_.margin_ms) argv.insert(argv.end(), {"--safety-margin", std::to_string(*settings_.margin_ms)});
        argv.insert(argv.end(), {path_, "--"});
        break;
      case contender_kind::curator_latch:
      case contender_kind::curator_selector:
        argv = curator_worker_command("CuratorElectionPeer");
        argv.insert(argv.end(),
                    {"nemesis", connect, settings_.kind == contender_kind::curator_latch ? "latch" : "selector", path_,
                     id, timeout});
        break;
      case contender_kind::kazoo:
        argv = {system_python, ZKWIRE_KAZOO_ELECTION_PEER, "nemesis", connect, path_, id, timeout};
        break;
    }
    argv.insert(argv.end(), section.begin(), section.end());
    return argv;
  }

  // Contenders in their critical section now (their holder file exists).
  std::vector<std::size_t> holders() const {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < contender_count; ++k) {
      if (std::filesystem::exists(dir() / ("holder." + std::to_string(k)))) out.push_back(k);
    }
    return out;
  }

  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  nemesis_settings settings_;
  std::uint64_t seed_;
  std::mt19937_64 holds_;  // the hold times (drawn as contenders come and go, which timing decides)
  temp_dir dir_{"nemesis"};
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::unique_ptr<zk_cluster> cluster_;
  loop_thread loop_;
  std::vector<std::unique_ptr<proxied_cluster>> proxies_;
  std::vector<contender> contenders_;
  std::string path_;  // the lock directory or the election path
  std::unique_ptr<nemesis_faults> faults_;
  std::unique_ptr<client> direct_;
  std::size_t rebuilt_ = 0;  // members rebuilt after they diverged (nemesis_faults::rebuild_diverged)
};

std::uint64_t nemesis_seed() {
  const auto seed = env_number("ZKWIRE_NEMESIS_SEED", 0);
  return seed != 0 ? seed : std::random_device{}() | 1U;
}

void print_summary(const char* name, std::uint64_t seed, const verdict& v, nemesis& n, double seconds) {
  std::printf("%s: seed %llu, %.0f s, sections:", name, static_cast<unsigned long long>(seed), seconds);
  for (const auto& [k, count] : v.per_contender) std::printf(" %d:%zu", k, count);
  std::printf(
      ", overlaps %zu, token regressions %zu, stale writes accepted %zu, writes refused %zu, sections "
      "terminated %zu, diverged members rebuilt %zu\n%s%s",
      v.overlaps, v.token_regressions, v.stale_accepted, v.refused, v.terminated, n.rebuilt(), n.exit_summary().c_str(),
      n.faults_log().c_str());
  std::fflush(stdout);
}

// The safety verdict over a run (the lock's and the election's alike): no overlap, tokens growing, no stale write
// accepted, every contender held (led) at least twice, nothing left in the directory.
void expect_safe_run(const char* name, nemesis_settings settings, std::uint64_t seed) {
  const auto began = std::chrono::steady_clock::now();
  nemesis n(settings, seed);
  n.run();
  const auto left = n.leftovers();
  const auto v = judge(read_sections(n.dir() / "sections"), read_writes(n.dir() / "writes"), n.origin_ns());
  print_summary(name, seed, v, n, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with ZKWIRE_NEMESIS_SEED=" + std::to_string(seed) + ")");
  EXPECT_EQ(v.overlaps, 0U) << v.details;
  EXPECT_EQ(v.token_regressions, 0U) << v.details;
  EXPECT_EQ(v.stale_accepted, 0U) << v.details;
  // Progress floor: every contender held the lock several times despite the faults.
  for (std::size_t k = 0; k < contender_count; ++k) {
    const auto it = v.per_contender.find(static_cast<int>(k));
    EXPECT_GE(it == v.per_contender.end() ? 0U : it->second, 2U) << "contender " << k << " starved";
  }
  EXPECT_TRUE(left.empty()) << left.size() << " nodes left in " << n.path();
}

std::optional<std::int64_t> margin_from_environment() {
  if (const char* margin = std::getenv("ZKWIRE_NEMESIS_MARGIN_MS"); margin != nullptr && *margin != '\0') {
    return std::strtoll(margin, nullptr, 10);
  }
  return std::nullopt;
}

TEST(Nemesis, LockHoldersNeverOverlapUnderFaults) {
  nemesis_settings settings;
  settings.duration = std::chrono::seconds(env_number("ZKWIRE_NEMESIS_SECONDS", 40));
  settings.margin_ms = margin_from_environment();
  expect_safe_run("nemesis", settings, nemesis_seed());
}

// `zkwire elect` under the same faults: three contenders on one election path, each with another naming (Curator
// LeaderLatch's, LeaderSelector's, Kazoo Election's), each leadership running the critical section. Shorter than the
// lock's, with shorter sections (0.2 to 2.5 s) so that each contender still leads several times: the election's
// acquire and hold are the lock's, which that entry already drives; what this adds is the election's own decision on
// a path of mixed namings and its command runner.
TEST(Nemesis, ElectionLeadersNeverOverlapUnderFaults) {
  nemesis_settings settings;
  settings.kind = contender_kind::elect;
  settings.hold_max_ms = 2500;
  settings.duration = std::chrono::seconds(env_number("ZKWIRE_NEMESIS_ELECTION_SECONDS", 30));
  settings.margin_ms = margin_from_environment();
  expect_safe_run("nemesis election", settings, nemesis_seed());
}

// With --safety-margin 0 a blackholed holder is told of its loss only when the server may expire its session and
// grant the next contender: the 600 ms its command takes to stop (within the default margin) overlap the next holder's
// section. Only holders are blackholed (no server faults), so every fault tests the margin.
TEST(Nemesis, MarginZeroIsUnsafe) {
  const auto seed = nemesis_seed();
  nemesis_settings settings;
  settings.margin_ms = 0;
  settings.holders_only = true;
  settings.hold_min_ms = settings.hold_max_ms = 6000;
  // Still within the default margin: the same command would be safe without --safety-margin 0. Longer than the
  // main entry's, so that a successor slow to start its command (a sanitizer build) still overlaps it.
  settings.stop_time = 600ms;
  settings.duration = std::chrono::seconds(env_number("ZKWIRE_NEMESIS_MARGIN_ZERO_SECONDS", 25));
  const auto began = std::chrono::steady_clock::now();
  nemesis n(settings, seed);
  n.run();
  const auto v = judge(read_sections(n.dir() / "sections"), read_writes(n.dir() / "writes"), n.origin_ns());
  print_summary("nemesis margin 0", seed, v, n,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with ZKWIRE_NEMESIS_SEED=" + std::to_string(seed) + ")");
  std::printf("%s", v.details.c_str());
  EXPECT_GT(v.overlaps + v.stale_accepted, 0U) << "no violation with the safety margin at 0";
}

// The comparison run (not in CI, nothing asserted but that the run took place): the peers' election recipes under
// the faults of a seed, each leadership running the same critical section, judged by the same oracle.
// ZKWIRE_NEMESIS_PEER picks the contenders: latch (Curator's LeaderLatch), selector (LeaderSelector), kazoo (Kazoo's
// Election), or zkwire (`zkwire elect`, as the nemesis_election entry); the seed of one run replays its fault schedule
// for another. ZKWIRE_NEMESIS_HOLDERS_ONLY=1 blackholes only a leader in its critical section, with 6 s sections that
// take 600 ms to stop when told (MarginZeroIsUnsafe's schedule, where every fault meets a running leader).
// ZKWIRE_NEMESIS_KEEP=1 keeps the run's files (the contenders' logs). docs/simulation.md#nemesis has what they did.
//   ZKWIRE_NEMESIS_PEER=kazoo ZKWIRE_NEMESIS_SEED=N build/bin/nemesis_test --gtest_also_run_disabled_tests
//     --gtest_filter=Nemesis.DISABLED_PeersUnderTheSameFaults
TEST(Nemesis, DISABLED_PeersUnderTheSameFaults) {
  const std::string peer = std::getenv("ZKWIRE_NEMESIS_PEER") != nullptr ? std::getenv("ZKWIRE_NEMESIS_PEER") : "kazoo";
  nemesis_settings settings;
  settings.hold_max_ms = 2500;
  settings.duration = std::chrono::seconds(env_number("ZKWIRE_NEMESIS_ELECTION_SECONDS", 30));
  if (env_number("ZKWIRE_NEMESIS_HOLDERS_ONLY", 0) != 0) {
    settings.holders_only = true;
    settings.hold_min_ms = settings.hold_max_ms = 6000;
    settings.stop_time = 600ms;
  }
  if (peer == "zkwire") {
    settings.kind = contender_kind::elect;
  } else if (peer == "kazoo") {
    ZKWIRE_REQUIRE(have_kazoo(), "python3-kazoo for /usr/bin/python3");
    settings.kind = contender_kind::kazoo;
  } else {
    ASSERT_TRUE(peer == "latch" || peer == "selector") << "ZKWIRE_NEMESIS_PEER: zkwire, latch, selector or kazoo";
    ZKWIRE_REQUIRE(!curator_worker_classes().empty(), "javac and Debian's libcurator-*-java");
    settings.kind = peer == "latch" ? contender_kind::curator_latch : contender_kind::curator_selector;
  }
  const auto seed = nemesis_seed();
  const auto began = std::chrono::steady_clock::now();
  nemesis n(settings, seed);
  if (std::getenv("ZKWIRE_NEMESIS_KEEP") != nullptr) n.keep_files();
  n.run();
  const auto left = n.leftovers();
  const auto v = judge(read_sections(n.dir() / "sections"), read_writes(n.dir() / "writes"), n.origin_ns());
  print_summary(("peers " + peer).c_str(), seed, v, n,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  std::printf("%s%zu nodes left in %s\n", v.details.c_str(), left.size(), n.path().c_str());
  EXPECT_FALSE(v.per_contender.empty()) << "no section ran";
}

}  // namespace
}  // namespace zkwire::test

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--critical-section") return zkwire::test::critical_section(argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
