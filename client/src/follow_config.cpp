// client_options::follow_config: the driver reads /zookeeper/config with a watch, and every new configuration
// becomes the host list, with a move to another server when rebalancing asks for one
// (docs/protocol.md#dynamic-reconfiguration).

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "client_impl.hpp"
#include "zkwire/client/ensemble_config.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire::detail {

namespace {

// The completion of follow_config's read: back to the client, if it still exists.
class config_read_op final : public pending_op {
 public:
  explicit config_read_op(std::weak_ptr<client_impl> owner, std::function<void(proto::completion&&)> done)
      : owner_(std::move(owner)), done_(std::move(done)) {}
  void complete(proto::completion&& c) override {
    if (auto owner = owner_.lock()) done_(std::move(c));
  }
  void fail(std::error_code /*ec*/, bool /*post*/) override {}  // only at shutdown: nothing to follow any more

 private:
  std::weak_ptr<client_impl> owner_;
  std::function<void(proto::completion&&)> done_;
};

}  // namespace

void client_impl::read_config() {
  config_reading_ = true;
  const std::weak_ptr<client_impl> weak = weak_from_this();
  // `this` is safe in `done`: config_read_op calls it only while the client exists.
  auto op = std::make_unique<config_read_op>(weak, [this](proto::completion&& c) { on_config(std::move(c)); });
  watch_registration watch{[weak](const watch_event& event) {
                             if (auto self = weak.lock()) self->on_config_event(event);
                           },
                           nullptr, std::nullopt};
  start_request(proto::op_code::get_data, proto::get_data_request{std::string(client::config_path), true},
                std::move(watch), std::move(op), std::nullopt, true);
}

void client_impl::on_config(proto::completion&& c) {
  config_reading_ = false;
  config_watched_ = c.watch_registered;
  get_result result;
  if (const auto ec = convert(std::move(c), result)) {
    log(log_level::warning, [&] { return "reading the ensemble configuration failed: " + ec.message(); });
    return;
  }
  apply_config(result.data);
}

void client_impl::on_config_event(const watch_event& event) {
  config_watched_ = false;
  if (event.error || life_ != lifecycle::running) return;  // the session ended: the next one reads it again
  const auto state = engine_.state();
  if (!config_reading_ && (state == session_state::connected || state == session_state::connected_read_only)) {
    read_config();
  }
}

std::optional<host_port> client_impl::current_host_port() const {
  const auto index = engine_.current_host();
  if (!index || *index >= servers_.hosts.size()) return std::nullopt;
  return servers_.hosts[*index];
}

void client_impl::apply_config(const std::string& text) {
  ensemble_config config;
  std::string reason;
  if (parse_ensemble_config(text, config, &reason)) {
    log(log_level::warning, [&] { return "ignoring the ensemble configuration: " + reason; });
    return;
  }
  std::vector<host_port> hosts = config.client_hosts();
  if (hosts.empty()) {
    log(log_level::warning, [] { return std::string("ignoring an ensemble configuration without client addresses"); });
    return;
  }
  std::string version;
  if (config.version) version = " version " + hex_session(*config.version);
  replace_hosts(std::move(hosts), "ensemble configuration" + version, client_errc::ensemble_changed);
}

void client_impl::replace_hosts(std::vector<host_port> hosts, const std::string& what, std::error_code reason) {
  if (hosts.empty() || hosts == servers_.hosts || life_ == lifecycle::shut_down) return;
  const auto current = current_host_port();
  // follow_config's choices are drawn from std::mt19937_64(seed) (documented in client_options): the engine's seed,
  // options.seed or the random one it drew for 0.
  if (!rebalance_rng_) rebalance_rng_ = std::make_unique<std::mt19937_64>(engine_.seed());
  const rebalance_choice choice = choose_host_after_reconfig(servers_.hosts, hosts, current, *rebalance_rng_);
  servers_.hosts = std::move(hosts);
  log(log_level::info, [&] {
    std::string line = what + ": hosts ";
    for (std::size_t i = 0; i < servers_.hosts.size(); ++i) {
      if (i > 0) line += ',';
      line += to_string(servers_.hosts[i]);
    }
    if (choice.move_to) line += "; moving to " + to_string(servers_.hosts[*choice.move_to]);
    return line;
  });
  engine_.update_hosts(servers_.hosts.size(), choice.current);
  if (choice.move_to) {
    engine_.switch_host(now(), *choice.move_to, reason);
  } else if (probe_ && probe_->running() && choice.current) {
    probe_->start(servers_.hosts, *choice.current);
  }
  schedule_pump();
}

}  // namespace zkwire::detail
