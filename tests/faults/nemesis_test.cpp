// The nemesis (ctest -L nemesis): `zkwire lock` contenders, each through proxies of its own to a real 3-member
// ensemble, while a seeded schedule blackholes contenders beyond the session timeout, kills -9 and restarts members
// (the leader among them) and pauses the leader. Each critical section is this program run again as the lock's
// command (--critical-section): it records its interval on CLOCK_MONOTONIC (shared by every process of the machine)
// and writes its fencing token to a register that refuses a token lower than the highest it has accepted. The
// oracle, over what the sections recorded: no two sections overlap, tokens grow strictly in the order of the
// sections, the register accepted no write of a holder whose successor had already started, every contender kept
// acquiring, and the lock directory is empty at the end.
//
// ZKWIRE_NEMESIS_SEED replays a schedule (the seed is printed on failure); ZKWIRE_NEMESIS_SECONDS sets the length of
// the fault schedule (default 40). ZKWIRE_NEMESIS_MARGIN_MS passes --safety-margin to the contenders: with 0 a holder
// is told of its loss only when the server may already have granted the lock to the next one, and the oracle finds
// two holders at once (MarginZeroIsUnsafe runs that on purpose).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_cluster.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Appends one line with one write(2) (O_APPEND: lines of concurrent processes do not interleave).
void append_line(const std::filesystem::path& file, const std::string& line) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = line + "\n";
  (void)::write(fd, text.data(), text.size());
  ::close(fd);
}

// --- the critical section (this program as the lock's command) ---

std::atomic<bool> sigterm_seen{false};
extern "C" void on_sigterm(int /*signal*/) { sigterm_seen = true; }

// The fenced register: under an exclusive flock, refuses a token lower than the highest accepted so far, else
// stores it. Every attempt is logged with its time (taken under the lock) for the oracle.
bool register_write(const std::filesystem::path& dir, int contender, std::int64_t token) {
  const auto path = dir / "register";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::flock(fd, LOCK_EX);
  std::array<char, 32> buffer{};
  const auto n = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  const std::int64_t highest = n > 0 ? std::strtoll(buffer.data(), nullptr, 10) : 0;
  const bool accepted = token >= highest;
  if (accepted) {
    const auto text = std::to_string(token);
    (void)::ftruncate(fd, 0);
    (void)::pwrite(fd, text.data(), text.size(), 0);
  }
  append_line(dir / "writes", std::to_string(contender) + " " + std::to_string(token) + " " +
                                  std::to_string(monotonic_ns()) + " " + (accepted ? "1" : "0"));
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return accepted;
}

// argv: --critical-section DIR CONTENDER HOLD_MS STOP_MS. Holds for HOLD_MS, writing the register every 100 ms; on
// SIGTERM (the lock was lost) it takes STOP_MS to finish the write in progress, as a real command would.
int critical_section(char** argv) {
  const std::int64_t start = monotonic_ns();
  std::signal(SIGTERM, on_sigterm);
  const std::filesystem::path dir = argv[2];
  const int contender = std::atoi(argv[3]);
  const milliseconds hold{std::atoi(argv[4])};
  const milliseconds stop{std::atoi(argv[5])};
  const char* token_text = std::getenv("ZKWIRE_FENCING_TOKEN");
  const std::int64_t token = token_text == nullptr ? 0 : std::strtoll(token_text, nullptr, 10);
  append_line(dir / ("holder." + std::to_string(contender)), std::to_string(token));
  int refused = register_write(dir, contender, token) ? 0 : 1;
  const auto until = std::chrono::steady_clock::now() + hold;
  auto next_write = std::chrono::steady_clock::now() + 100ms;
  while (!sigterm_seen && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
    if (std::chrono::steady_clock::now() >= next_write) {
      refused += register_write(dir, contender, token) ? 0 : 1;
      next_write += 100ms;
    }
  }
  if (sigterm_seen) {
    std::this_thread::sleep_for(stop);
    refused += register_write(dir, contender, token) ? 0 : 1;
  }
  std::filesystem::remove(dir / ("holder." + std::to_string(contender)));
  append_line(dir / "sections", std::to_string(contender) + " " + std::to_string(token) + " " + std::to_string(start) +
                                    " " + std::to_string(monotonic_ns()) + " " + (sigterm_seen ? "1" : "0") + " " +
                                    std::to_string(refused));
  return 0;
}

// --- the oracle ---

struct section {
  int contender = 0;
  std::int64_t token = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool terminated = false;
  int refused = 0;
};

struct register_write_record {
  int contender = 0;
  std::int64_t token = 0;
  std::int64_t at = 0;
  bool accepted = false;
};

std::vector<section> read_sections(const std::filesystem::path& file) {
  std::vector<section> out;
  std::ifstream in(file);
  section s;
  int terminated = 0;
  while (in >> s.contender >> s.token >> s.start >> s.end >> terminated >> s.refused) {
    s.terminated = terminated != 0;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const section& a, const section& b) { return a.start < b.start; });
  return out;
}

std::vector<register_write_record> read_writes(const std::filesystem::path& file) {
  std::vector<register_write_record> out;
  std::ifstream in(file);
  register_write_record w;
  int accepted = 0;
  while (in >> w.contender >> w.token >> w.at >> accepted) {
    w.accepted = accepted != 0;
    out.push_back(w);
  }
  return out;
}

struct verdict {
  std::size_t overlaps = 0;
  std::size_t token_regressions = 0;
  std::size_t stale_accepted = 0;
  std::size_t refused = 0;
  std::size_t terminated = 0;
  std::map<int, std::size_t> per_contender;
  std::string details;
};

// `origin`: the monotonic time (ns) the fault schedule's seconds count from, so that the details can be read
// against it.
verdict judge(const std::vector<section>& sections, const std::vector<register_write_record>& writes,
              std::int64_t origin) {
  const auto at = [origin](std::int64_t t) { return static_cast<double>(t - origin) / 1e9; };
  verdict v;
  std::ostringstream details;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& a = sections[i];
    ++v.per_contender[a.contender];
    v.terminated += a.terminated ? 1 : 0;
    for (std::size_t j = i + 1; j < sections.size() && sections[j].start < a.end; ++j) {
      ++v.overlaps;
      details << "overlap: contender " << a.contender << " (token " << a.token << ", " << at(a.start) << "–"
              << at(a.end) << " s" << (a.terminated ? ", terminated" : "") << ") still ran "
              << (a.end - sections[j].start) / 1'000'000 << " ms after contender " << sections[j].contender
              << " (token " << sections[j].token << ") started at " << at(sections[j].start) << " s\n";
    }
    if (i > 0 && a.token <= sections[i - 1].token) {
      ++v.token_regressions;
      details << "token " << a.token << " of contender " << a.contender << " after token " << sections[i - 1].token
              << "\n";
    }
  }
  for (const auto& w : writes) {
    if (!w.accepted) {
      ++v.refused;
      continue;
    }
    // Stale: a section with a higher token had started before this write was accepted.
    for (const auto& s : sections) {
      if (s.token > w.token && s.start < w.at) {
        ++v.stale_accepted;
        details << "stale write accepted: token " << w.token << " of contender " << w.contender << ", "
                << (w.at - s.start) / 1'000'000 << " ms after token " << s.token << "'s section started\n";
        break;
      }
    }
  }
  v.details = details.str();
  return v;
}

// --- the run ---

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

struct nemesis_settings {
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
      : settings_(settings), seed_(seed), random_(seed), holds_(~seed) {}

  void run() {
    cluster_options options;
    options.members = 3;
    cluster_ = std::make_unique<zk_cluster>(options);
    for (std::size_t k = 0; k < contender_count; ++k) {
      proxies_.push_back(std::make_unique<proxied_cluster>(loop_.io(), *cluster_, seed_ + 100 * k));
    }
    contenders_.resize(contender_count);
    const auto began = std::chrono::steady_clock::now();
    const auto stop_faults = began + settings_.duration;
    auto next_fault = began + 2s;
    while (std::chrono::steady_clock::now() < stop_faults) {
      keep_contending();
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_fault) next_fault = now + inject_fault();
      std::this_thread::sleep_for(20ms);
    }
    heal();
    // Let every contender finish the attempt it is in (no new ones), then check what is left.
    bool described = false;
    for (std::size_t k = 0; k < contenders_.size(); ++k) {
      auto& c = contenders_[k];
      if (c.process.pid() <= 0) continue;
      // One that is still at it after 30 s is stuck: what the lock directory holds then is the clue.
      if (!described && !c.process.wait_for(30s)) {
        described = true;
        describe_lock_directory();
      }
      const int status = c.process.finish(30s).status;
      count_exit(c, status);
      // Killed because it did not finish: what it was doing (its -v log) is the only clue left.
      if (status == 128 + SIGKILL) faults_log_ << "contender " << k << " killed; its log ends:\n" << log_tail(k, 40);
    }
    faults_log_ << "contenders done after " << seconds_since(began) << " s\n";
  }

  // The lock directory's nodes with their owners' sessions (a contender's -v log names its session), into the
  // failure output.
  void describe_lock_directory() {
    client& c = *loop_.on_loop([&] {
      direct_ = std::make_unique<client>(loop_.io().get_executor(), client_options_for(cluster_->connect_string()));
      return direct_.get();
    });
    blocking_ops ops{loop_, c};
    if (auto connect_ec = ops.connect()) {
      faults_log_ << "stuck contenders; no session to list " << lock_dir << ": " << connect_ec.message() << "\n";
    } else if (auto [ec, listing] = ops.children(lock_dir); ec) {
      faults_log_ << "stuck contenders; listing " << lock_dir << ": " << ec.message() << "\n";
    } else {
      faults_log_ << "stuck contenders; " << lock_dir << " holds " << listing.children.size() << " node(s):\n";
      for (const auto& child : listing.children) {
        auto [stat_ec, st] = ops.exists(std::string(lock_dir) + "/" + child);
        char owner[32] = "?";
        if (!stat_ec && st)
          std::snprintf(owner, sizeof owner, "0x%llx", static_cast<unsigned long long>(st->ephemeral_owner));
        faults_log_ << "  " << child << " owner " << owner << (stat_ec ? " (" + stat_ec.message() + ")" : "") << "\n";
      }
    }
    loop_.on_loop([&] { direct_.reset(); });
  }

  // The children of the lock directory, once they are gone (or the listing after 20 s).
  std::vector<std::string> leftovers() {
    client& c = *loop_.on_loop([&] {
      direct_ = std::make_unique<client>(loop_.io().get_executor(), client_options_for(cluster_->connect_string()));
      return direct_.get();
    });
    blocking_ops ops{loop_, c};
    EXPECT_FALSE(ops.connect());
    std::vector<std::string> children;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    do {
      auto [ec, listing] = ops.children(lock_dir);
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
  [[nodiscard]] std::string faults_log() const { return faults_log_.str(); }
  [[nodiscard]] std::map<int, std::size_t> lost_exits() const {
    std::map<int, std::size_t> out;
    for (std::size_t k = 0; k < contenders_.size(); ++k) out[static_cast<int>(k)] = contenders_[k].lost;
    return out;
  }
  [[nodiscard]] std::string exit_summary() const {
    std::ostringstream out;
    for (std::size_t k = 0; k < contenders_.size(); ++k) {
      out << "contender " << k << ": " << contenders_[k].attempts << " attempts, exits";
      for (const auto& [status, n] : contenders_[k].exits) out << " " << status << "x" << n;
      out << "\n";
    }
    return out.str();
  }

  static constexpr const char* lock_dir = "/nemesis/lock";

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
      std::vector<std::string> argv = {ZKWIRE_CLI_PATH,
                                       "-s",
                                       proxies_[k]->connect_string(),
                                       "-t",
                                       std::to_string(session_timeout.count()),
                                       "--connect-timeout",
                                       "5000",
                                       "-v",
                                       "lock",
                                       "--kill-after",
                                       "5"};
      if (settings_.margin_ms) {
        argv.emplace_back("--safety-margin");
        argv.push_back(std::to_string(*settings_.margin_ms));
      }
      for (std::string word :
           {std::string(lock_dir), std::string("--"), self_path(), std::string("--critical-section"), dir().string(),
            std::to_string(k), std::to_string(hold), std::to_string(settings_.stop_time.count())}) {
        argv.push_back(std::move(word));
      }
      const auto log = dir() / ("contender." + std::to_string(k) + ".log");
      c.process = child_process::spawn(argv, log);
      ++c.attempts;
    }
  }

  // Contenders in their critical section now (their holder file exists).
  std::vector<std::size_t> holders() const {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < contender_count; ++k) {
      if (std::filesystem::exists(dir() / ("holder." + std::to_string(k)))) out.push_back(k);
    }
    return out;
  }

  // Injects one fault and heals it, the contenders going on meanwhile; returns the pause before the next one.
  milliseconds inject_fault() {
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); };
    const int kind = settings_.holders_only ? 0 : pick(0, 3);
    const auto t = seconds_since_start();
    if (kind == 0) {  // blackhole one contender's proxies beyond its session timeout
      // Any contender, a function of the seed alone; with holders_only, one in its critical section now.
      std::size_t k = static_cast<std::size_t>(pick(0, contender_count - 1));
      if (settings_.holders_only) {
        const auto candidates = holders();
        if (candidates.empty()) return 50ms;  // wait for a holder
        k = candidates[k % candidates.size()];
      }
      const milliseconds length{session_timeout.count() + pick(800, 1800)};
      faults_log_ << t << " s: blackhole contender " << k << " for " << length.count() << " ms\n";
      proxies_[k]->add_rule("any action=blackhole");
      proxies_[k]->add_rule("accept action=blackhole");
      wait_keeping_contenders(length);
      proxies_[k]->clear_rules();
    } else if (kind == 1 || kind == 2) {  // kill -9 a member (the leader when kind == 1) and start it again
      const auto leader = cluster_->leader_index();
      const std::size_t m = kind == 1 && leader ? *leader : static_cast<std::size_t>(pick(0, 2));
      const milliseconds down{pick(1000, 3000)};
      faults_log_ << t << " s: kill -9 member " << m << (leader && *leader == m ? " (leader)" : "") << " for "
                  << down.count() << " ms\n";
      cluster_->kill9(m);
      wait_keeping_contenders(down);
      cluster_->start(m);
    } else {  // pause the leader
      const auto leader = cluster_->leader_index();
      if (!leader) return 500ms;
      const milliseconds paused{pick(500, 2500)};
      faults_log_ << t << " s: pause leader " << *leader << " for " << paused.count() << " ms\n";
      cluster_->pause(*leader);
      wait_keeping_contenders(paused);
      cluster_->resume(*leader);
    }
    return milliseconds{pick(500, 2000)};
  }

  void wait_keeping_contenders(milliseconds length) {
    const auto until = std::chrono::steady_clock::now() + length;
    while (std::chrono::steady_clock::now() < until) {
      keep_contending();
      std::this_thread::sleep_for(20ms);
    }
  }

  void heal() {
    for (auto& p : proxies_) p->clear_rules();
    for (std::size_t m = 0; m < cluster_->member_count(); ++m) {
      if (cluster_->paused(m)) cluster_->resume(m);
      if (!cluster_->running(m)) cluster_->start(m);
    }
    EXPECT_TRUE(cluster_->wait_ready(60s)) << "the ensemble did not come back";
  }

  double seconds_since_start() const { return seconds_since(started_); }
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  nemesis_settings settings_;
  std::uint64_t seed_;
  std::mt19937_64 random_;  // the schedule of faults: drawn from the seed alone, so that a replay repeats it
  std::mt19937_64 holds_;   // the hold times (drawn as contenders come and go, which timing decides)
  temp_dir dir_{"nemesis"};
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::unique_ptr<zk_cluster> cluster_;
  loop_thread loop_;
  std::vector<std::unique_ptr<proxied_cluster>> proxies_;
  std::vector<contender> contenders_;
  std::unique_ptr<client> direct_;
  std::ostringstream faults_log_;
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
      "terminated %zu\n%s%s",
      v.overlaps, v.token_regressions, v.stale_accepted, v.refused, v.terminated, n.exit_summary().c_str(),
      n.faults_log().c_str());
  std::fflush(stdout);
}

TEST(Nemesis, LockHoldersNeverOverlapUnderFaults) {
  const auto seed = nemesis_seed();
  nemesis_settings settings;
  settings.duration = std::chrono::seconds(env_number("ZKWIRE_NEMESIS_SECONDS", 40));
  if (const char* margin = std::getenv("ZKWIRE_NEMESIS_MARGIN_MS"); margin != nullptr && *margin != '\0') {
    settings.margin_ms = std::strtoll(margin, nullptr, 10);
  }
  const auto began = std::chrono::steady_clock::now();
  nemesis n(settings, seed);
  n.run();
  const auto left = n.leftovers();
  const auto v = judge(read_sections(n.dir() / "sections"), read_writes(n.dir() / "writes"), n.origin_ns());
  print_summary("nemesis", seed, v, n, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with ZKWIRE_NEMESIS_SEED=" + std::to_string(seed) + ")");
  EXPECT_EQ(v.overlaps, 0U) << v.details;
  EXPECT_EQ(v.token_regressions, 0U) << v.details;
  EXPECT_EQ(v.stale_accepted, 0U) << v.details;
  // Progress floor: every contender held the lock several times despite the faults.
  for (std::size_t k = 0; k < contender_count; ++k) {
    const auto it = v.per_contender.find(static_cast<int>(k));
    EXPECT_GE(it == v.per_contender.end() ? 0U : it->second, 2U) << "contender " << k << " starved";
  }
  EXPECT_TRUE(left.empty()) << left.size() << " nodes left in " << nemesis::lock_dir;
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

}  // namespace
}  // namespace zkwire::test

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--critical-section") return zkwire::test::critical_section(argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
