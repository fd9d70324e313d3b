#pragma once
// Lock metrics in Prometheus' text exposition format (version 0.0.4), for a /metrics endpoint or a file read by
// node_exporter's textfile collector. Pure functions, no I/O.
//
//   std::string text = zkwire::recipes::prometheus_text({{"/locks/job", l.metrics()->snapshot()}});
//
// Families (PREFIX defaults to "zkwire_lock"), every sample labelled lock="<label>":
//   PREFIX_acquisitions_total, PREFIX_timeouts_total, PREFIX_cancellations_total, PREFIX_failures_total,
//   PREFIX_releases_total, PREFIX_wakeups_total                               counters
//   PREFIX_losses_total{reason="session_expired|node_deleted|..."}            counter, one sample per loss_reason
//   PREFIX_wait_seconds, PREFIX_hold_seconds                                  histograms (duration_bounds)
//   PREFIX_queue_position                                                     histogram (position_bounds)
// Each family has one # HELP and one # TYPE line, then the samples of every series; histogram buckets are
// cumulative, with le="+Inf" equal to _count. Label values are escaped (backslash, double quote, newline).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zkwire/recipes/lock_metrics.hpp"

namespace zkwire::recipes {

// One series: the value of the `lock` label (a directory, "client", ...) and its snapshot.
using labelled_snapshot = std::pair<std::string, lock_metrics_snapshot>;

std::string prometheus_text(const std::vector<labelled_snapshot>& series, std::string_view prefix = "zkwire_lock");

}  // namespace zkwire::recipes
