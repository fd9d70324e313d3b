#pragma once
// Files of one ZooKeeper server (member) of a test cluster: zoo.cfg, dataDir and myid, and the java command line.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cluster_options.hpp"

namespace zkwire::test {

struct member_ports {
  std::uint16_t client = 0;
  std::uint16_t quorum = 0;    // follower-to-leader port (ensembles only)
  std::uint16_t election = 0;  // leader election port (ensembles only)
  std::uint16_t secure = 0;    // secureClientPort (only with cluster_options::secure_port)
};

// Layout of member directory `dir`: zoo.cfg, data/ (the dataDir, with myid for ensembles), zookeeper.log.
struct member_paths {
  explicit member_paths(std::filesystem::path member_dir);
  std::filesystem::path dir;
  std::filesystem::path config;
  std::filesystem::path data;
  std::filesystem::path log;
};

// Writes zoo.cfg (and myid when there is more than one member) for member `index` (0-based) of `all`.
// With options.reconfig the membership goes to zoo.cfg.dynamic instead: the first options.members members, plus
// `index` itself when it is a spare. Creates the directories. Throws std::runtime_error on I/O failure.
void write_member_config(const member_paths& paths, std::size_t index, const std::vector<member_ports>& all,
                         const cluster_options& options);

// "server.<index+1>=127.0.0.1:<quorum>:<election>:participant;127.0.0.1:<client>", as in a dynamic config.
std::string dynamic_server_line(std::size_t index, const member_ports& ports);

// argv for running the member: java [flags] -cp <zookeeper + slf4j-simple + Netty's codec> QuorumPeerMain
// <zoo.cfg>.
std::vector<std::string> member_command(const member_paths& paths, const cluster_options& options);

}  // namespace zkwire::test
