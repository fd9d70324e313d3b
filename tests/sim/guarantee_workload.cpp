#include "guarantee_workload.hpp"

#include "text.hpp"

namespace zkwire::sim {

guarantee_workload::guarantee_workload(world& w, std::uint64_t seed)
    : ledger_(w), recorder_([&w] { return static_cast<double>(w.now().count()) / 1000.0; }) {
  history::register_options options;
  options.paths = {"/r0", "/r1", "/r2"};
  options.in_flight = 2;
  options.max_pause = std::chrono::milliseconds(40);
  options.short_deadline = std::chrono::milliseconds(150);
  for (std::size_t p = 0; p < w.processes(); ++p) {
    clients_.push_back(std::make_unique<history::register_client>(w.client(p), p, recorder_,
                                                                  (seed << 8U) ^ (0x51ed270b27aeb4f1ULL + p), options));
  }
}

guarantee_workload::~guarantee_workload() { clients_.clear(); }

void guarantee_workload::start() {
  for (auto& c : clients_) c->start();
}

void guarantee_workload::stop() {
  for (auto& c : clients_) c->stop();
}

bool guarantee_workload::quiescent() const {
  for (const auto& c : clients_) {
    if (!c->finished()) return false;
  }
  return true;
}

void guarantee_workload::check_end() {
  report_ = history::check(recorder_.result());
  if (recorder_.completed_twice() > 0)
    ledger_.fail(cat(recorder_.completed_twice(), " completions of a request ran twice"));
  if (!report_.passed()) ledger_.fail(cat(report_.summary(), "\n", report_.details()));
}

std::string guarantee_workload::status() const {
  std::string out = ledger_.status({});
  for (std::size_t p = 0; p < clients_.size(); ++p) {
    out += cat("process ", p, ": ", clients_[p]->sent(), " requests sent, ", clients_[p]->in_flight(), " in flight",
               clients_[p]->finished() ? ", closing reads done" : "", "\n");
  }
  return out;
}

}  // namespace zkwire::sim
