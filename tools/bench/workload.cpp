#include "zkwire_bench/workload.hpp"

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <cstdio>
#include <random>
#include <system_error>
#include <utility>

#include "workload_state.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire_bench/cpu_time.hpp"

namespace zkwire::bench {
std::string_view op_name(op_kind op) noexcept {
  switch (op) {
    case op_kind::get:
      return "get";
    case op_kind::exists:
      return "exists";
    case op_kind::set:
      return "set";
    case op_kind::create:
      return "create";
    case op_kind::remove:
      return "delete";
    case op_kind::children:
      return "children";
    case op_kind::multi:
      return "multi";
    case op_kind::lock:
      return "lock";
  }
  return "?";
}

std::optional<op_kind> parse_op(std::string_view name) noexcept {
  for (const op_kind op : {op_kind::get, op_kind::exists, op_kind::set, op_kind::create, op_kind::remove,
                           op_kind::children, op_kind::multi, op_kind::lock}) {
    if (op_name(op) == name) return op;
  }
  return std::nullopt;
}

runner::runner(run_config config, progress_function progress)
    : state_(std::make_unique<state>(std::move(config), std::move(progress))) {
  if (state_->config.clients == 0 || state_->config.window == 0) {
    throw std::system_error(make_error_code(std::errc::invalid_argument), "clients and window must be positive");
  }
  state_->connect();
  state_->create_scratch();
}

runner::~runner() {
  try {
    state_->remove_tree(state_->scratch);
    for (auto& s : state_->sessions) {
      state_->call([&](auto h) { s.client->async_close(std::move(h)); });
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): best effort; the sessions' ephemeral-free nodes stay otherwise
  }
}

run_config& runner::config() noexcept { return state_->config; }
const std::string& runner::scratch() const noexcept { return state_->scratch; }
std::string runner::node_of(std::size_t client) const { return state_->sessions.at(client).node; }

std::vector<op_report> runner::run(op_kind op) {
  auto& s = *state_;
  if (op == op_kind::lock) return lock_workload::run(*this);
  const auto& cfg = s.config;
  const bool timed = cfg.duration.count() > 0;
  if (op == op_kind::remove) {
    // With a duration: whatever create left, or enough for a generous run.
    s.prepare_delete(cfg.warmup + (timed ? 20000 : cfg.ops));
  }
  if (cfg.warmup > 0) s.run_phase(op, cfg.warmup, std::nullopt, cfg.window, nullptr);

  op_report report;
  report.op = std::string(op_name(op));
  report.server = cfg.servers;
  report.clients = cfg.clients;
  report.window = cfg.window;
  cpu_meter meter;
  s.run_phase(op, cfg.ops, timed ? std::optional<clock::duration>(cfg.duration) : std::nullopt, cfg.window,
              &report.latency);
  meter.stop();
  report.errors = s.current.errors;
  report.elapsed_ns = meter.elapsed_ns();
  report.cpu_ns = meter.cpu_ns();
  return {std::move(report)};
}

}  // namespace zkwire::bench
