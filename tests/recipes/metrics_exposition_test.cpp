// prometheus_text (metrics_exposition.hpp) for known snapshots: the exact lines of a counter family, the loss
// family and a histogram; one HELP and one TYPE line per family before its samples; cumulative buckets ending in
// +Inf == _count; escaped label values.

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/metrics_exposition.hpp"

namespace zkwire {
namespace {

using recipes::duration_bounds;
using recipes::lock_metrics_snapshot;
using recipes::loss_reason;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of `text` from the one starting with `first` on, `count` of them.
std::vector<std::string> block(const std::string& text, const std::string& first, std::size_t count) {
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == first) {
      return {lines.begin() + static_cast<std::ptrdiff_t>(i),
              lines.begin() + static_cast<std::ptrdiff_t>(std::min(lines.size(), i + count))};
    }
  }
  return {};
}

// A snapshot built through the public recording path.
lock_metrics_snapshot known_snapshot() {
  recipes::lock_metrics m;
  recipes::lock_metric_record r;
  r.event = recipes::lock_metric_event::acquired;
  r.duration = std::chrono::milliseconds(2);  // le 0.0025
  m.record(r);
  r.duration = std::chrono::milliseconds(300);  // le 0.5
  m.record(r);
  r.event = recipes::lock_metric_event::released;
  r.duration = std::chrono::seconds(200);  // above 100: +Inf only
  m.record(r);
  r.event = recipes::lock_metric_event::timeout;
  m.record(r);
  r.event = recipes::lock_metric_event::lost;
  r.loss = loss_reason::safety_margin;
  r.duration = std::chrono::seconds(1);
  m.record(r);
  m.record_enqueued(0);
  m.record_enqueued(3);
  m.record_wakeup();
  return m.snapshot();
}

TEST(metrics_exposition, CountersHaveHelpTypeAndTotalSamples) {
  const auto text = recipes::prometheus_text({{"/locks/job", known_snapshot()}});
  EXPECT_EQ(block(text, "# HELP zkwire_lock_acquisitions_total Acquires that were granted.", 3),
            (std::vector<std::string>{"# HELP zkwire_lock_acquisitions_total Acquires that were granted.",
                                      "# TYPE zkwire_lock_acquisitions_total counter",
                                      "zkwire_lock_acquisitions_total{lock=\"/locks/job\"} 2"}));
  EXPECT_EQ(block(text, "# TYPE zkwire_lock_timeouts_total counter", 2),
            (std::vector<std::string>{"# TYPE zkwire_lock_timeouts_total counter",
                                      "zkwire_lock_timeouts_total{lock=\"/locks/job\"} 1"}));
  EXPECT_EQ(block(text, "# TYPE zkwire_lock_wakeups_total counter", 2),
            (std::vector<std::string>{"# TYPE zkwire_lock_wakeups_total counter",
                                      "zkwire_lock_wakeups_total{lock=\"/locks/job\"} 1"}));
  EXPECT_EQ(block(text, "# TYPE zkwire_lock_losses_total counter", 9),
            (std::vector<std::string>{
                "# TYPE zkwire_lock_losses_total counter",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"session_expired\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"session_closed\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"node_deleted\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"safety_margin\"} 1",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"session_changed\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"connection_lost\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"auth_failed\"} 0",
                "zkwire_lock_losses_total{lock=\"/locks/job\",reason=\"other\"} 0",
            }));
}

TEST(metrics_exposition, HistogramsHaveCumulativeBucketsSumAndCount) {
  const auto text = recipes::prometheus_text({{"/locks/job", known_snapshot()}});
  const std::string l = "{lock=\"/locks/job\",le=";
  EXPECT_EQ(block(text, "# HELP zkwire_lock_wait_seconds Time from the acquire call to the grant.", 21),
            (std::vector<std::string>{
                "# HELP zkwire_lock_wait_seconds Time from the acquire call to the grant.",
                "# TYPE zkwire_lock_wait_seconds histogram",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.001\"} 0",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.0025\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.005\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.01\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.025\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.05\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.1\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.25\"} 1",
                "zkwire_lock_wait_seconds_bucket" + l + "\"0.5\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"1\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"2.5\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"5\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"10\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"25\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"50\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"100\"} 2",
                "zkwire_lock_wait_seconds_bucket" + l + "\"+Inf\"} 2",
                "zkwire_lock_wait_seconds_sum{lock=\"/locks/job\"} 0.302",
                "zkwire_lock_wait_seconds_count{lock=\"/locks/job\"} 2",
            }));
  // Hold: the 200 s release is above every bound, the 1 s loss in le="1".
  const auto hold = block(text, "zkwire_lock_hold_seconds_bucket" + l + "\"0.5\"} 0", 11);
  ASSERT_EQ(hold.size(), 11U) << text;
  EXPECT_EQ(hold[1], "zkwire_lock_hold_seconds_bucket" + l + "\"1\"} 1");
  EXPECT_EQ(hold[7], "zkwire_lock_hold_seconds_bucket" + l + "\"100\"} 1");
  EXPECT_EQ(hold[8], "zkwire_lock_hold_seconds_bucket" + l + "\"+Inf\"} 2");
  EXPECT_EQ(hold[9], "zkwire_lock_hold_seconds_sum{lock=\"/locks/job\"} 201");
  EXPECT_EQ(hold[10], "zkwire_lock_hold_seconds_count{lock=\"/locks/job\"} 2");
  // Queue positions 0 and 3.
  const auto position = block(text, "zkwire_lock_queue_position_bucket" + l + "\"0\"} 1", 4);
  EXPECT_EQ(position, (std::vector<std::string>{"zkwire_lock_queue_position_bucket" + l + "\"0\"} 1",
                                                "zkwire_lock_queue_position_bucket" + l + "\"1\"} 1",
                                                "zkwire_lock_queue_position_bucket" + l + "\"2\"} 1",
                                                "zkwire_lock_queue_position_bucket" + l + "\"4\"} 2"}));
}

TEST(metrics_exposition, EachFamilyIsDescribedOnceBeforeItsSamplesOfEverySeries) {
  const auto text = recipes::prometheus_text({{"a", known_snapshot()}, {"b", lock_metrics_snapshot{}}}, "app_lock");
  std::map<std::string, int> help;
  std::map<std::string, int> type;
  std::string family;  // the family of the last TYPE line
  for (const auto& line : lines_of(text)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      ++help[line.substr(7, line.find(' ', 7) - 7)];
    } else if (line.rfind("# TYPE ", 0) == 0) {
      family = line.substr(7, line.find(' ', 7) - 7);
      ++type[family];
      EXPECT_EQ(help[family], 1) << "HELP before TYPE: " << line;
    } else {
      ASSERT_FALSE(family.empty()) << line;
      EXPECT_EQ(line.rfind(family, 0), 0U) << "a sample outside its family: " << line;
      EXPECT_EQ(line.rfind("app_lock_", 0), 0U) << line;
    }
  }
  EXPECT_EQ(type.size(), 10U);
  for (const auto& [name, n] : type) EXPECT_EQ(n, 1) << name;
  for (const auto& [name, n] : help) EXPECT_EQ(n, 1) << name;
  EXPECT_NE(text.find("app_lock_acquisitions_total{lock=\"a\"} 2\napp_lock_acquisitions_total{lock=\"b\"} 0\n"),
            std::string::npos);
}

TEST(metrics_exposition, EscapesLabelValues) {
  const auto text = recipes::prometheus_text({{"a\"b\\c\nd", lock_metrics_snapshot{}}});
  EXPECT_NE(text.find("zkwire_lock_releases_total{lock=\"a\\\"b\\\\c\\nd\"} 0\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace zkwire
