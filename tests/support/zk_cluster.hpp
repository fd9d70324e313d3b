#pragma once
// A real ZooKeeper 3.8 (Debian's package) for integration tests: a standalone server or an ensemble, each member
// a `java ... QuorumPeerMain` child process of the test, on free 127.0.0.1 ports, in a fresh temporary directory.
//
// Members are indexed 0..member_count()-1 (member i has myid i+1). Every member keeps its ports, zoo.cfg and data
// directory for the cluster's lifetime, so stop/kill9 followed by start brings back the same server.
//
// Thread safety: none. Use one zk_cluster from one thread, and create/start members from a thread that outlives
// them (the main test thread): members are started with PR_SET_PDEATHSIG=SIGKILL, which fires when the starting
// thread ends, so an aborted test process never leaves servers behind.
//
// Set ZKWIRE_KEEP_ZK_DIR=1 in the environment to keep the temporary directory (configs, data, logs).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/cluster_options.hpp"

namespace zkwire::test {

class temp_dir;

class zk_cluster {
 public:
  static constexpr std::chrono::milliseconds default_ready_timeout{30000};
  static constexpr std::chrono::milliseconds default_stop_grace{10000};
  static constexpr std::chrono::milliseconds default_four_letter_timeout{2000};

  // Writes the configs, starts every member and waits (options.start_timeout) until all report a mode.
  // Throws std::runtime_error, with the members' log tails in what(), if they do not come up.
  explicit zk_cluster(cluster_options options = {});
  // SIGKILLs (after SIGCONT) and reaps every member still running, then removes the temporary directory.
  ~zk_cluster();
  zk_cluster(const zk_cluster&) = delete;
  zk_cluster& operator=(const zk_cluster&) = delete;
  zk_cluster(zk_cluster&&) = delete;
  zk_cluster& operator=(zk_cluster&&) = delete;

  // --- addresses ---
  // Every configured member, spare members (cluster_options::spare_members) included.
  [[nodiscard]] std::size_t member_count() const noexcept;
  [[nodiscard]] std::uint16_t client_port(std::size_t i) const;
  // "127.0.0.1:<client port of i>".
  [[nodiscard]] std::string address(std::size_t i) const;
  // "127.0.0.1:p1,127.0.0.1:p2,..." followed by `chroot` (e.g. "/my/root"; must start with '/' if not empty).
  [[nodiscard]] std::string connect_string(std::string_view chroot = {}) const;
  // --- TLS (cluster_options::secure_port; throw std::logic_error without it) ---
  [[nodiscard]] std::uint16_t secure_client_port(std::size_t i) const;
  // "<host>:<secure port 1>,<host>:<secure port 2>,...": host "localhost" checks DNS-name verification.
  [[nodiscard]] std::string secure_connect_string(std::string_view host = "127.0.0.1") const;
  // --- end TLS ---
  // --- dynamic reconfiguration (cluster_options::reconfig) ---
  // Member i's line for a reconfig's joining servers: "server.<i+1>=127.0.0.1:q:e:participant;127.0.0.1:c".
  [[nodiscard]] std::string server_line(std::size_t i) const;
  // The ZooKeeper id (myid) of member i: i + 1.
  [[nodiscard]] static std::size_t server_id(std::size_t i) noexcept { return i + 1; }
  [[nodiscard]] const cluster_options& options() const noexcept;
  // The temporary directory: member<i+1>/{zoo.cfg,data/,zookeeper.log}.
  [[nodiscard]] const std::filesystem::path& directory() const noexcept;
  [[nodiscard]] std::filesystem::path log_file(std::size_t i) const;
  // The last `lines` lines of member i's log (ZooKeeper logs at INFO to it).
  [[nodiscard]] std::string log_tail(std::size_t i, std::size_t lines = 40) const;

  // --- process control (none of these wait for readiness; use wait_ready) ---
  // Starts member i with its config and data. No-op if it is running.
  void start(std::size_t i);
  // SIGTERM (SIGCONT first if paused), wait up to `grace`, then SIGKILL; returns once the process is reaped.
  void stop(std::size_t i, std::chrono::milliseconds grace = default_stop_grace);
  // SIGKILL and reap: a crash without any shutdown.
  void kill9(std::size_t i);
  // stop(i) if running, then start(i).
  void restart(std::size_t i);
  // SIGSTOP / SIGCONT: the process keeps its sockets but stops answering (clients and peers see a hang).
  void pause(std::size_t i);
  void resume(std::size_t i);
  // True if member i's process is alive (also when paused). Reaps it if it exited.
  [[nodiscard]] bool running(std::size_t i);
  [[nodiscard]] bool paused(std::size_t i) const;
  // The process id, or -1 if not running.
  [[nodiscard]] pid_t pid(std::size_t i) const;

  // --- server state (four-letter words over plain TCP) ---
  // Until member i reports a mode in srvr. False on timeout, if it is not started, or if its process exits.
  bool wait_ready(std::size_t i, std::chrono::milliseconds timeout = default_ready_timeout);
  // Until every member that was started (and not stopped/killed since) reports a mode; members stopped on
  // purpose are skipped. False on timeout or if one of them exits.
  bool wait_ready(std::chrono::milliseconds timeout = default_ready_timeout);
  // The text reply to a four-letter word ("srvr", "mntr", "wchp", "cons", ...); "" if there is no complete reply
  // within `timeout` (e.g. the member is down or paused).
  [[nodiscard]] std::string four_letter(std::size_t i, std::string_view word,
                                        std::chrono::milliseconds timeout = default_four_letter_timeout) const;
  // "standalone", "leader", "follower" (from srvr), or "" if it does not answer or is not serving.
  [[nodiscard]] std::string mode(std::size_t i) const;
  // The member whose mode is "leader" (or "standalone"), if any answers so right now.
  [[nodiscard]] std::optional<std::size_t> leader_index() const;

 private:
  struct member;
  member& at(std::size_t i);
  [[nodiscard]] const member& at(std::size_t i) const;
  bool start_all(std::string& failure);

  cluster_options options_;
  std::unique_ptr<temp_dir> dir_;
  std::vector<member> members_;  // destroyed (killed) before dir_ is removed
};

}  // namespace zkwire::test
