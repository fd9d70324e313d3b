#pragma once
// Options of a test ZooKeeper cluster (see zk_cluster.hpp). Defaults are the fast-test settings of
// docs/protocol.md#test-servers.

#include <chrono>
#include <cstddef>
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
  // The constructor starts every member and waits this long for all of them to report a mode.
  std::chrono::milliseconds start_timeout{60000};
};

}  // namespace zkwire::test
