// `zkwire bench` against a real ZooKeeper server, about a second per run: the closed loop, the open loop (--rate)
// and mixed workloads (--mix). The binary runs as a subprocess; its JSON lines and CSV are checked for consistency:
// counts that add up, ordered percentiles, no errors, an arrival rate that is honoured, a time series that covers
// every completion, and usage errors for bad options.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using test::outcome;
using ::testing::HasSubstr;

// One JSON object of `zkwire bench --json`: its numbers and strings by key (flat objects only).
struct row {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;

  [[nodiscard]] double num(const std::string& key) const {
    const auto it = numbers.find(key);
    if (it == numbers.end()) {
      ADD_FAILURE() << "no number \"" << key << "\"";
      return NAN;
    }
    return it->second;
  }
  [[nodiscard]] std::uint64_t count(const std::string& key) const { return static_cast<std::uint64_t>(num(key)); }
};

std::vector<row> parse_rows(const std::string& out) {
  static const std::regex number(R"re("([a-z_0-9]+)":(-?[0-9][0-9.eE+-]*))re");
  static const std::regex text(R"re("([a-z_0-9]+)":"([^"]*)")re");
  std::vector<row> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_EQ(line.back(), '}') << line;
    row r;
    for (std::sregex_iterator it(line.begin(), line.end(), number), end; it != end; ++it) {
      r.numbers[(*it)[1]] = std::stod((*it)[2]);
    }
    for (std::sregex_iterator it(line.begin(), line.end(), text), end; it != end; ++it) r.strings[(*it)[1]] = (*it)[2];
    rows.push_back(std::move(r));
  }
  return rows;
}

// The percentiles of `prefix` ("" for service time, "corrected_" for the open loop's corrected latency) are
// positive and ordered.
void expect_ordered_percentiles(const row& r, const std::string& prefix) {
  SCOPED_TRACE(r.strings.count("op") != 0U ? r.strings.at("op") + " " + prefix : prefix);
  const double p50 = r.num(prefix + "p50_us");
  EXPECT_GT(p50, 0.0);
  EXPECT_LE(p50, r.num(prefix + "p90_us"));
  EXPECT_LE(r.num(prefix + "p90_us"), r.num(prefix + "p99_us"));
  EXPECT_LE(r.num(prefix + "p99_us"), r.num(prefix + "p99_9_us"));
  EXPECT_LE(r.num(prefix + "p99_9_us"), r.num(prefix + "max_us"));
  EXPECT_LE(r.num(prefix + "mean_us"), r.num(prefix + "max_us"));
}

// An open-loop row: what was due was sent or skipped, what was sent completed or failed, and no request's
// corrected latency (from its due time) is below its service time (from its actual send, which is not earlier), so
// neither is any percentile of it.
void expect_open_loop_consistent(const row& r) {
  SCOPED_TRACE(r.strings.count("op") != 0U ? r.strings.at("op") : "?");
  EXPECT_EQ(r.strings.count("mode") != 0U ? r.strings.at("mode") : "", "open");
  EXPECT_EQ(r.count("sent") + r.count("skipped"), r.count("intended"));
  EXPECT_EQ(r.count("count") + r.count("errors"), r.count("sent"));
  for (const char* p : {"p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"}) {
    EXPECT_GE(r.num(std::string("corrected_") + p), r.num(p)) << p;
  }
  expect_ordered_percentiles(r, "");
  expect_ordered_percentiles(r, "corrected_");
}

// What `zkwire bench --csv` wrote: the counts of its bucket rows and of its per-second rows, by latency kind, and
// how many seconds each kind has (checked to come in order, none missing). Every row is of `op`.
struct csv_counts {
  std::map<std::string, std::uint64_t> buckets;
  std::map<std::string, std::uint64_t> per_second;
  std::map<std::string, std::uint64_t> seconds;
};

csv_counts read_csv(const std::string& csv, const std::string& op) {
  csv_counts counts;
  std::ifstream in(csv);
  std::string line;
  EXPECT_TRUE(std::getline(in, line)) << csv;
  EXPECT_EQ(line,
            "op,server,row,latency,second,low_us,high_us,count,cumulative,errors,p50_us,p99_us,max_us,ops_per_sec");
  while (std::getline(in, line)) {
    // op,"server",row,latency,second,low,high,count,... (the server is quoted and has no comma here)
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    if (f.size() < 8U) {
      ADD_FAILURE() << line;
      continue;
    }
    EXPECT_EQ(f[0], op);
    if (f[2] == "bucket") {
      counts.buckets[f[3]] += std::stoull(f[7]);
    } else {
      EXPECT_EQ(f[2], "second") << line;
      EXPECT_EQ(std::stoull(f[4]), counts.seconds[f[3]]++) << "seconds in order, none missing: " << line;
      counts.per_second[f[3]] += std::stoull(f[7]);
    }
  }
  return counts;
}

class bench_smoke_test : public test::standalone_test {
 protected:
  static outcome bench(std::initializer_list<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000", "bench"};
    argv.insert(argv.end(), args);
    return test::run_process(argv, {}, std::chrono::seconds(120));
  }
  // Runs bench with `args` (which ask for --json) and returns its rows; none (and a failure) if it failed.
  static std::vector<row> bench_rows(std::initializer_list<std::string> args) {
    const auto r = bench(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? parse_rows(r.out) : std::vector<row>{};
  }
};

TEST_F(bench_smoke_test, ClosedLoopCountsAndPercentiles) {
  // A count: exactly that many measured operations per workload.
  auto rows =
      bench_rows({"--ops", "get,set", "-n", "300", "--clients", "2", "--window", "4", "--warmup", "10", "--json"});
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].strings["op"], "get");
  EXPECT_EQ(rows[1].strings["op"], "set");
  for (const auto& row : rows) {
    EXPECT_EQ(row.count("errors"), 0U);
    EXPECT_EQ(row.count("count") + row.count("errors"), 300U);
    EXPECT_EQ(row.count("clients"), 2U);
    EXPECT_EQ(row.count("window"), 4U);
    EXPECT_EQ(row.numbers.count("corrected_p50_us"), 0U) << "the closed loop has service times only";
    expect_ordered_percentiles(row, "");
  }

  // A duration: the measured phase lasts about that long (it stops sending at the end and waits for what is in
  // flight, a few round trips).
  rows = bench_rows({"--ops", "get", "--duration", "1", "--warmup", "10", "--json"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].count("errors"), 0U);
  ASSERT_GT(rows[0].count("count"), 0U);
  const double seconds = rows[0].num("count") / rows[0].num("ops_per_sec");
  EXPECT_GE(seconds, 0.99);
  EXPECT_LE(seconds, 3.0);
  expect_ordered_percentiles(rows[0], "");
}

TEST_F(bench_smoke_test, OpenLoopHonoursTheRate) {
  // 500/s for 1 s: requests k = 0..499 are due (k/500 s < 1 s), every one is sent (far below the outstanding limit).
  auto rows =
      bench_rows({"--ops", "get", "--rate", "500", "--duration", "1", "--clients", "2", "--warmup", "10", "--json"});
  ASSERT_EQ(rows.size(), 1U);
  const row& get = rows[0];
  expect_open_loop_consistent(get);
  EXPECT_EQ(get.count("intended"), 500U);
  EXPECT_EQ(get.count("skipped"), 0U);
  EXPECT_EQ(get.count("errors"), 0U);
  EXPECT_DOUBLE_EQ(get.num("rate"), 500.0);
  // Never faster than the schedule (the last request is not due before 0.998 s, and the rate counts to the last
  // completion); slower only as far as this shared machine lags behind its timers, which the corrected latency
  // then shows: an honest lower bound, not a tight one.
  EXPECT_LE(get.num("ops_per_sec"), 500.0 * 1.01);
  EXPECT_GE(get.num("ops_per_sec"), 500.0 * 0.5);

  // With a count: that many requests at the rate, all sent.
  rows = bench_rows({"--ops", "set", "--rate", "1000", "-n", "300", "--warmup", "0", "--json"});
  ASSERT_EQ(rows.size(), 1U);
  expect_open_loop_consistent(rows[0]);
  EXPECT_EQ(rows[0].count("intended"), 300U);
  EXPECT_EQ(rows[0].count("count"), 300U);
  EXPECT_LE(rows[0].num("ops_per_sec"), 1000.0 * 1.01);
}

TEST_F(bench_smoke_test, OpenLoopHeldBackByTheOutstandingLimit) {
  // One request in flight at most, at a rate no server round trip keeps up with (a request every 20 us): nearly
  // all requests wait behind the schedule, the corrected latency takes the wait, and what is still waiting when the
  // second is over is given up, never sent, and counts in the corrected latency with its lateness then.
  const test::temp_dir dir("bench-held-back");
  const std::string csv = (dir.path() / "out.csv").string();
  const auto rows = bench_rows({"--ops", "get", "--rate", "50000", "--duration", "1", "--max-outstanding", "1",
                                "--warmup", "0", "--csv", csv, "--json"});
  ASSERT_EQ(rows.size(), 1U);
  const row& get = rows[0];
  expect_open_loop_consistent(get);
  EXPECT_EQ(get.count("intended"), 50000U);
  EXPECT_GT(get.count("skipped"), 0U);
  EXPECT_EQ(get.count("given_up"), get.count("skipped")) << "a get is never skipped for want of a node";
  EXPECT_EQ(get.count("max_outstanding"), 1U);
  // One at a time: the service time is a round trip, the corrected latency includes the queue behind it.
  EXPECT_GT(get.num("corrected_p50_us"), 10 * get.num("p50_us"));
  // The corrected histogram holds every request due: the ones sent and the ones given up (those are most of them
  // here, so leaving them out would show the corrected latency of the few that got through).
  const csv_counts counts = read_csv(csv, "get");
  EXPECT_EQ(counts.buckets.at("service"), get.count("count"));
  EXPECT_EQ(counts.buckets.at("corrected"), get.count("count") + get.count("given_up"));
}

TEST_F(bench_smoke_test, MixedWorkloads) {
  // Open loop: the parts add up to the whole, in the proportions of the weights.
  auto rows = bench_rows(
      {"--mix", "get:3,set:1", "--rate", "400", "--duration", "1", "--clients", "2", "--warmup", "10", "--json"});
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].strings["op"], "mix");
  EXPECT_EQ(rows[1].strings["op"], "mix/get");
  EXPECT_EQ(rows[2].strings["op"], "mix/set");
  for (const auto& row : rows) {
    EXPECT_EQ(row.count("errors"), 0U);
    expect_open_loop_consistent(row);
  }
  EXPECT_EQ(rows[0].count("intended"), 400U);
  EXPECT_EQ(rows[1].count("count") + rows[2].count("count"), rows[0].count("count"));
  // 400 draws with p = 3/4: the share of get is 0.75 +- 0.022 (one standard deviation); 0.6..0.9 is 6.8 of them.
  const double get_share = rows[1].num("count") / rows[0].num("count");
  EXPECT_GT(get_share, 0.6);
  EXPECT_LT(get_share, 0.9);

  // Closed loop.
  rows = bench_rows({"--mix", "exists:1,children:1,multi:1", "-n", "300", "--window", "2", "--json"});
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[0].count("count"), 300U);
  EXPECT_EQ(rows[1].count("count") + rows[2].count("count") + rows[3].count("count"), 300U);
  for (const auto& row : rows) {
    EXPECT_EQ(row.count("errors"), 0U);
    expect_ordered_percentiles(row, "");
  }
}

TEST_F(bench_smoke_test, CsvHoldsHistogramsAndATimeSeriesCoveringEveryCompletion) {
  const test::temp_dir dir("bench-csv");
  const std::string csv = (dir.path() / "out.csv").string();
  const auto rows =
      bench_rows({"--ops", "get", "--rate", "300", "--duration", "1.5", "--warmup", "0", "--csv", csv, "--json"});
  ASSERT_EQ(rows.size(), 1U);
  const csv_counts counts = read_csv(csv, "get");
  const auto total = rows[0].count("count");
  EXPECT_EQ(counts.buckets.at("service"), total);
  EXPECT_EQ(counts.buckets.at("corrected"), total);
  EXPECT_EQ(counts.per_second.at("service"), total);
  EXPECT_EQ(counts.per_second.at("corrected"), total);
  EXPECT_GE(counts.seconds.at("service"), 2U);  // 1.5 s: a full second and a partial one
}

TEST_F(bench_smoke_test, UsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--mix", "get:80,set:0"}, "--mix"},
      {{"--mix", "get:80,frob:20"}, "--mix"},
      {{"--mix", "get:x"}, "--mix"},
      {{"--mix", "delete:1"}, "--mix"},
      {{"--mix", "get:1", "--ops", "get"}, "--mix"},
      {{"--rate", "0"}, "--rate"},
      {{"--rate", "10", "--window", "2"}, "--rate"},
      {{"--max-outstanding", "5"}, "--max-outstanding"},
      {{"--rate", "10", "--ops", "lock"}, "--rate"},
      {{"--window", "abc"}, "--window"},
      {{"--bogus"}, "--bogus"},
  };
  for (const auto& [args, option] : cases) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1", "bench"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = test::run_process(argv);
    EXPECT_EQ(r.status, 2) << args.front() << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("zkwire: bench: ")) << args.front();
    EXPECT_THAT(r.err, HasSubstr(option)) << args.front();
  }
  const auto r = test::run_process({ZKWIRE_CLI_PATH, "bench", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("--rate OPS"));
  EXPECT_THAT(r.out, HasSubstr("--mix OP:WEIGHT"));
}

}  // namespace
}  // namespace zkwire
