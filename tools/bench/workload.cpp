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
#include "zkwire_bench/mix.hpp"
#include "zkwire_bench/recorder.hpp"

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
  if (op == op_kind::lock) {
    if (state_->config.rate > 0) {
      throw std::system_error(make_error_code(std::errc::invalid_argument),
                              "the lock workload has no open loop (rate)");
    }
    return lock_workload::run(*this);
  }
  return run(std::vector<mix_entry>{mix_entry{op, 1}});
}

std::vector<op_report> runner::run(const std::vector<mix_entry>& mix) {
  auto& s = *state_;
  if (mix.empty()) throw std::system_error(make_error_code(std::errc::invalid_argument), "an empty mix");
  if (mix.size() == 1 && mix.front().op == op_kind::lock) return run(op_kind::lock);
  for (const auto& e : mix) {
    if (mix.size() > 1 && !mixable(e.op)) {
      throw std::system_error(make_error_code(std::errc::invalid_argument),
                              std::string(op_name(e.op)) + " cannot be mixed");
    }
  }
  const auto& cfg = s.config;
  const bool timed = cfg.duration.count() > 0;
  const bool open = cfg.rate > 0;
  if (mix.front().op == op_kind::remove) {
    // Enough nodes for the run: the count, or with a duration what the rate needs (or, closed, whatever create
    // left or a generous number).
    std::uint64_t wanted = cfg.ops;
    if (timed) {
      wanted =
          open ? static_cast<std::uint64_t>(cfg.rate * std::chrono::duration<double>(cfg.duration).count()) + 1 : 20000;
    }
    s.prepare_delete(cfg.warmup + wanted);
  }
  // Warmup: closed loop, one request at a time per session in the open loop.
  if (cfg.warmup > 0) s.run_phase(mix, cfg.warmup, std::nullopt, open ? 1 : cfg.window, nullptr);

  // Reports: the whole mix first (for a mix of several), then one per operation. Made before the recorders,
  // which point into them.
  const bool several = mix.size() > 1;
  std::vector<op_report> reports(several ? mix.size() + 1 : 1);
  for (std::size_t j = 0; j < reports.size(); ++j) {
    op_report& r = reports[j];
    r.op = !several ? std::string(op_name(mix.front().op))
           : j == 0 ? std::string("mix")
                    : "mix/" + std::string(op_name(mix[j - 1].op));
    r.server = cfg.servers;
    r.clients = cfg.clients;
    r.window = open ? 0 : cfg.window;
    r.open_loop = open;
    r.rate = cfg.rate;
    r.max_outstanding = open ? cfg.max_outstanding : 0;
  }
  cpu_meter meter;
  const auto start = clock::now();
  std::vector<latency_recorder> recorders;
  recorders.reserve(reports.size());
  for (std::size_t j = 0; j < mix.size(); ++j) {
    recorders.emplace_back(reports[several ? j + 1 : 0], start, open, cfg.series);
  }
  if (several) recorders.emplace_back(reports[0], start, open, cfg.series);
  if (open) {
    run_open_loop(s, mix, recorders, reports);
  } else {
    s.run_phase(mix, cfg.ops, timed ? std::optional<clock::duration>(cfg.duration) : std::nullopt, cfg.window,
                &recorders);
  }
  meter.stop();
  const auto end = clock::now();
  for (auto& r : recorders) r.close(end);
  for (auto& r : reports) {
    r.elapsed_ns = meter.elapsed_ns();
    r.cpu_ns = meter.cpu_ns();
    if (open && r.intended == 0) {  // a mix's parts: what was sent or given up of them
      r.skipped = r.given_up;
      r.intended = r.sent() + r.skipped;
    }
  }
  return reports;
}

}  // namespace zkwire::bench
