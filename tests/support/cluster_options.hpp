#pragma once
// Options of a test ZooKeeper cluster (see zk_cluster.hpp). Defaults are the fast-test settings of
// docs/protocol.md#test-servers.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zkwire::test {

struct cluster_options {
  std::size_t members = 1;  // 1 (standalone) or 3 (ensemble)
  std::chrono::milliseconds tick_time{200};
  std::chrono::milliseconds min_session_timeout{400};
  std::chrono::milliseconds max_session_timeout{60000};
  // Added after the default JVM flags (-Xmx256m -Dzookeeper.extendedTypesEnabled=true
  // -Dznode.container.checkIntervalMs=500), e.g. "-Djute.maxbuffer=2097152" or "-Dreadonlymode.enabled=true".
  std::vector<std::string> jvm_flags;
  // Extra zoo.cfg lines ("key=value"), appended after the generated ones.
  std::vector<std::string> extra_config;
  // --- TLS ---
  // Set: every member also serves TLS on a secureClientPort (zk_cluster::secure_client_port) through Netty
  // (serverCnxnFactory=NettyServerCnxnFactory, which then serves the plain client port too). test_pki.hpp makes
  // the stores.
  struct secure_port_options {
    std::filesystem::path key_store;            // PKCS12: the server's certificate and key
    std::filesystem::path trust_store;          // PKCS12: the CAs whose client certificates are accepted
    std::string password;                       // of both stores
    std::string client_auth = "need";           // ssl.clientAuth: "need", "want" or "none"
    std::string protocols = "TLSv1.3,TLSv1.2";  // ssl.enabledProtocols
  };
  std::optional<secure_port_options> secure_port;
  // --- end TLS ---
  // --- dynamic reconfiguration ---
  // True: an ensemble with reconfigEnabled=true, standaloneEnabled=false and skipACL=yes (so any client may
  // reconfig), its members in a dynamicConfigFile (zoo.cfg.dynamic) whose server lines carry the client address
  // ("server.N=127.0.0.1:q:e:participant;127.0.0.1:c"). The servers rewrite these files as the ensemble changes.
  bool reconfig = false;
  // With `reconfig`: members configured but not started (indices members..members+spare_members-1). Each one's
  // dynamic file lists the initial members and itself, so once started it can join through a reconfig that adds
  // zk_cluster::server_line(i).
  std::size_t spare_members = 0;
  // The constructor starts every member and waits this long for all of them to report a mode.
  std::chrono::milliseconds start_timeout{60000};
};

}  // namespace zkwire::test
