#include "zkwire_bench/recorder.hpp"

#include <algorithm>

namespace zkwire::bench {
namespace {

std::uint64_t ns_between(latency_recorder::clock::time_point from, latency_recorder::clock::time_point to) noexcept {
  return to <= from
             ? 0
             : static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count());
}

}  // namespace

latency_recorder::latency_recorder(op_report& report, clock::time_point start, bool corrected, bool series)
    : report_(&report), start_(start), corrected_(corrected), series_(series) {}

std::uint64_t latency_recorder::second_of(clock::time_point t) const noexcept {
  return ns_between(start_, t) / 1'000'000'000U;
}

void latency_recorder::success(clock::time_point intended, clock::time_point sent, clock::time_point now) noexcept {
  const std::uint64_t service = ns_between(sent, now);
  report_->latency.record(service);
  const std::uint64_t corrected = ns_between(intended, now);
  if (corrected_) report_->corrected.record(corrected);
  if (!series_) return;
  advance_to(second_of(now));
  service_.record(service);
  if (corrected_) corrected_latency_.record(corrected);
}

void latency_recorder::given_up(clock::time_point intended, clock::time_point now) noexcept {
  ++report_->given_up;
  if (!corrected_) return;
  const std::uint64_t corrected = ns_between(intended, now);
  report_->corrected.record(corrected);
  if (!series_) return;
  advance_to(second_of(now));
  corrected_latency_.record(corrected);
}

void latency_recorder::failure(clock::time_point now) noexcept {
  ++report_->errors;
  if (!series_) return;
  advance_to(second_of(now));
  ++errors_;
}

void latency_recorder::advance_to(std::uint64_t second) {
  while (second_ < second) {
    emit(1.0);
    ++second_;
  }
}

void latency_recorder::emit(double length_s) {
  second_row row;
  row.second = second_;
  row.length_s = length_s;
  row.count = service_.count();
  row.errors = errors_;
  row.service_p50 = service_.value_at_percentile(50);
  row.service_p99 = service_.value_at_percentile(99);
  row.service_max = service_.max();
  if (corrected_) {
    row.corrected_p50 = corrected_latency_.value_at_percentile(50);
    row.corrected_p99 = corrected_latency_.value_at_percentile(99);
    row.corrected_max = corrected_latency_.max();
  }
  report_->series.push_back(row);
  service_.clear();
  corrected_latency_.clear();
  errors_ = 0;
}

void latency_recorder::close(clock::time_point end) {
  if (!series_) return;
  const std::uint64_t elapsed = ns_between(start_, end);
  advance_to(elapsed / 1'000'000'000U);
  const double rest = static_cast<double>(elapsed % 1'000'000'000U) / 1e9;
  // A last second shorter than a millisecond holds nothing worth a row (unless something completed in it).
  if (rest >= 0.001 || service_.count() + errors_ + corrected_latency_.count() > 0) emit(std::max(rest, 0.001));
}

}  // namespace zkwire::bench
