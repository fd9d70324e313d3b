#include "support/zk_cluster.hpp"

#include <cstdlib>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/child_process.hpp"
#include "support/member_config.hpp"
#include "support/net.hpp"
#include "support/temp_dir.hpp"

namespace zkwire::test {

struct zk_cluster::member {
  member_paths paths;
  member_ports ports;
  child_process process;
  bool wanted = false;  // started and not stopped on purpose since
};

namespace {

constexpr int max_start_attempts = 3;
constexpr auto poll_interval = std::chrono::milliseconds(50);

std::vector<member_ports> pick_ports(std::size_t members, bool secure, bool reconfig) {
  const bool quorum = members > 1 || reconfig;
  const std::size_t per_member = (quorum ? 3U : 1U) + (secure ? 1U : 0U);
  const auto ports = pick_free_ports(members * per_member);
  std::vector<member_ports> result(members);
  for (std::size_t i = 0; i < members; ++i) {
    std::size_t next = i * per_member;
    result[i].client = ports[next++];
    if (quorum) {
      result[i].quorum = ports[next++];
      result[i].election = ports[next++];
    }
    if (secure) result[i].secure = ports[next];
  }
  return result;
}

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

// True if a startup failure looks like a port taken between picking and binding (worth retrying elsewhere).
bool is_port_clash(const std::string& log) {
  return log.find("BindException") != std::string::npos || log.find("Address already in use") != std::string::npos;
}

}  // namespace

zk_cluster::zk_cluster(cluster_options options)
    : options_(std::move(options)), dir_(std::make_unique<temp_dir>("zkwire-zk-")) {
  if (options_.members == 0) throw std::invalid_argument("zk_cluster: members must be at least 1");
  if (env_flag("ZKWIRE_KEEP_ZK_DIR")) dir_->keep();
  if (options_.spare_members > 0 && !options_.reconfig) {
    throw std::invalid_argument("zk_cluster: spare members need cluster_options::reconfig");
  }
  const std::size_t total = options_.members + options_.spare_members;
  members_.reserve(total);
  for (std::size_t i = 0; i < total; ++i) {
    members_.push_back(member{member_paths(dir_->path() / ("member" + std::to_string(i + 1))), {}, {}, false});
  }
  std::string failure;
  for (int attempt = 1; attempt <= max_start_attempts; ++attempt) {
    if (start_all(failure)) return;
    bool clash = false;
    for (std::size_t i = 0; i < members_.size(); ++i) clash = clash || is_port_clash(log_tail(i, 200));
    if (!clash) break;
  }
  members_.clear();  // kills and reaps whatever is left
  throw std::runtime_error("zk_cluster: ZooKeeper did not start in " + dir_->path().string() + "\n" + failure);
}

bool zk_cluster::start_all(std::string& failure) {
  for (auto& m : members_) m.process.kill();
  const auto ports = pick_ports(members_.size(), options_.secure_port.has_value(), options_.reconfig);
  for (std::size_t i = 0; i < members_.size(); ++i) {
    members_[i].ports = ports[i];
    std::error_code ignored;  // a retry starts from scratch: empty data, a log of its own attempt only
    std::filesystem::remove_all(members_[i].paths.data, ignored);
    std::filesystem::remove(members_[i].paths.log, ignored);
    write_member_config(members_[i].paths, i, ports, options_);
  }
  for (std::size_t i = 0; i < options_.members; ++i) start(i);
  if (wait_ready(options_.start_timeout)) return true;
  failure.clear();
  for (std::size_t i = 0; i < members_.size(); ++i) {
    failure += "---- member " + std::to_string(i) + " (port " + std::to_string(members_[i].ports.client) + ", " +
               (running(i) ? "running" : "exited") + ", mode '" + mode(i) + "'), log " +
               members_[i].paths.log.string() + ":\n" + log_tail(i, 30) + "\n";
  }
  return false;
}

zk_cluster::~zk_cluster() {
  for (auto& m : members_) m.process.kill();
}

zk_cluster::member& zk_cluster::at(std::size_t i) {
  if (i >= members_.size()) throw std::out_of_range("zk_cluster: no member " + std::to_string(i));
  return members_[i];
}

const zk_cluster::member& zk_cluster::at(std::size_t i) const {
  if (i >= members_.size()) throw std::out_of_range("zk_cluster: no member " + std::to_string(i));
  return members_[i];
}

std::size_t zk_cluster::member_count() const noexcept { return members_.size(); }

std::uint16_t zk_cluster::client_port(std::size_t i) const { return at(i).ports.client; }

std::string zk_cluster::server_line(std::size_t i) const { return dynamic_server_line(i, at(i).ports); }

std::string zk_cluster::address(std::size_t i) const { return "127.0.0.1:" + std::to_string(client_port(i)); }

std::string zk_cluster::connect_string(std::string_view chroot) const {
  if (!chroot.empty() && chroot.front() != '/') throw std::invalid_argument("zk_cluster: chroot must start with '/'");
  std::string result;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) result += ',';
    result += address(i);
  }
  result += chroot;
  return result;
}

std::uint16_t zk_cluster::secure_client_port(std::size_t i) const {
  if (!options_.secure_port) throw std::logic_error("zk_cluster: no secure port (cluster_options::secure_port)");
  return at(i).ports.secure;
}

std::string zk_cluster::secure_connect_string(std::string_view host) const {
  std::string result;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) result += ',';
    result += std::string(host) + ":" + std::to_string(secure_client_port(i));
  }
  return result;
}

const cluster_options& zk_cluster::options() const noexcept { return options_; }

const std::filesystem::path& zk_cluster::directory() const noexcept { return dir_->path(); }

std::filesystem::path zk_cluster::log_file(std::size_t i) const { return at(i).paths.log; }

std::string zk_cluster::log_tail(std::size_t i, std::size_t lines) const {
  std::ifstream in(at(i).paths.log);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(std::move(line));
    if (tail.size() > lines) tail.pop_front();
  }
  std::string result;
  for (const auto& line : tail) result += line + '\n';
  return result;
}

void zk_cluster::start(std::size_t i) {
  member& m = at(i);
  m.wanted = true;
  if (m.process.running()) return;
  m.process = child_process::spawn(member_command(m.paths, options_), m.paths.log);
}

void zk_cluster::stop(std::size_t i, std::chrono::milliseconds grace) {
  member& m = at(i);
  m.wanted = false;
  m.process.terminate(grace);
}

void zk_cluster::kill9(std::size_t i) {
  member& m = at(i);
  m.wanted = false;
  m.process.kill();
}

void zk_cluster::restart(std::size_t i) {
  stop(i);
  start(i);
}

void zk_cluster::pause(std::size_t i) { at(i).process.pause(); }

void zk_cluster::resume(std::size_t i) { at(i).process.resume(); }

bool zk_cluster::running(std::size_t i) { return at(i).process.running(); }

bool zk_cluster::paused(std::size_t i) const { return at(i).process.stopped(); }

pid_t zk_cluster::pid(std::size_t i) const { return at(i).process.pid(); }

bool zk_cluster::wait_ready(std::size_t i, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (!running(i)) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left <= std::chrono::milliseconds::zero()) return false;
    if (!parse_srvr_mode(four_letter(i, "srvr", std::min(left, default_four_letter_timeout))).empty()) return true;
    std::this_thread::sleep_for(std::min(left, poll_interval));
  }
}

bool zk_cluster::wait_ready(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (!members_[i].wanted) continue;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!wait_ready(i, std::max(left, std::chrono::milliseconds::zero()))) return false;
  }
  return true;
}

std::string zk_cluster::four_letter(std::size_t i, std::string_view word, std::chrono::milliseconds timeout) const {
  return four_letter_word(client_port(i), word, timeout);
}

std::string zk_cluster::mode(std::size_t i) const { return parse_srvr_mode(four_letter(i, "srvr")); }

std::optional<std::size_t> zk_cluster::leader_index() const {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const std::string m = mode(i);
    if (m == "leader" || m == "standalone") return i;
  }
  return std::nullopt;
}

}  // namespace zkwire::test
