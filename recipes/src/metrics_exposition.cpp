// prometheus_text: lock_metrics snapshots in Prometheus' text exposition format.

#include "zkwire/recipes/metrics_exposition.hpp"

#include <array>
#include <charconv>
#include <cstdint>

namespace zkwire::recipes {
namespace {

std::string number(double v) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("NaN");
}

// A label value between double quotes: backslash, double quote and line feed escaped.
std::string escaped(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

class writer {
 public:
  writer(std::string_view prefix, const std::vector<labelled_snapshot>& series) : prefix_(prefix), series_(series) {}

  template <class Get>
  void counter(std::string_view name, std::string_view help, Get get) {
    header(std::string(name) + "_total", help, "counter");
    for (const auto& [label, s] : series_) {
      sample(std::string(name) + "_total", label, {}, std::to_string(get(s)));
    }
  }

  void losses() {
    header("losses_total", "Held locks lost, by reason.", "counter");
    for (const auto& [label, s] : series_) {
      for (std::size_t r = 0; r < loss_reason_count; ++r) {
        const std::string extra = "reason=\"" + std::string(loss_reason_name(static_cast<loss_reason>(r))) + "\"";
        sample("losses_total", label, extra, std::to_string(s.losses.at(r)));
      }
    }
  }

  template <std::size_t Bounds, class Get>
  void histogram(std::string_view name, std::string_view help, const std::array<double, Bounds>& bounds, Get get) {
    header(std::string(name), help, "histogram");
    const std::string bucket = std::string(name) + "_bucket";
    for (const auto& [label, s] : series_) {
      const fixed_histogram<Bounds>& h = get(s);
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < Bounds; ++i) {
        cumulative += h.counts.at(i);
        sample(bucket, label, "le=\"" + number(bounds.at(i)) + "\"", std::to_string(cumulative));
      }
      sample(bucket, label, "le=\"+Inf\"", std::to_string(h.count));
      sample(std::string(name) + "_sum", label, {}, number(h.sum));
      sample(std::string(name) + "_count", label, {}, std::to_string(h.count));
    }
  }

  std::string take() { return std::move(out_); }

 private:
  void header(const std::string& name, std::string_view help, std::string_view type) {
    out_ += "# HELP " + prefix_ + "_" + name + " " + std::string(help) + "\n";
    out_ += "# TYPE " + prefix_ + "_" + name + " " + std::string(type) + "\n";
  }
  void sample(const std::string& name, const std::string& label, const std::string& extra, const std::string& value) {
    out_ += prefix_ + "_" + name + "{lock=\"" + escaped(label) + "\"";
    if (!extra.empty()) out_ += "," + extra;
    out_ += "} " + value + "\n";
  }

  std::string prefix_;
  const std::vector<labelled_snapshot>& series_;
  std::string out_;
};

}  // namespace

std::string prometheus_text(const std::vector<labelled_snapshot>& series, std::string_view prefix) {
  writer w(prefix, series);
  using snap = lock_metrics_snapshot;
  w.counter("acquisitions", "Acquires that were granted.", [](const snap& s) { return s.acquisitions; });
  w.counter("timeouts", "Acquires that timed out (also failed try-once acquires).",
            [](const snap& s) { return s.timeouts; });
  w.counter("cancellations", "Acquires that were cancelled.", [](const snap& s) { return s.cancellations; });
  w.counter("failures", "Acquires that ended with another error.", [](const snap& s) { return s.failures; });
  w.counter("releases", "Holds ended by a release.", [](const snap& s) { return s.releases; });
  w.losses();
  w.counter("wakeups", "Waiters woken by a change of the contender they watched.",
            [](const snap& s) { return s.wakeups; });
  w.histogram("wait_seconds", "Time from the acquire call to the grant.", duration_bounds,
              [](const snap& s) -> const duration_histogram& { return s.wait_time; });
  w.histogram("hold_seconds", "Time from the grant to the release or the loss.", duration_bounds,
              [](const snap& s) -> const duration_histogram& { return s.hold_time; });
  w.histogram("queue_position", "Contenders ahead of a new contender when it enqueued.", position_bounds,
              [](const snap& s) -> const position_histogram& { return s.queue_position; });
  return w.take();
}

}  // namespace zkwire::recipes
