#pragma once
// Apache Curator's own recipes (Debian's libcurator-*-java) as Java programs of ours (tests/recipes/curator/),
// compiled with javac once per test program run, for the interop tests (lock_curator_test.cpp,
// election_interop_test.cpp, election_peers_test.cpp) and the nemesis's comparison run (tests/faults).

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace zkwire::test {

inline constexpr const char* curator_classpath =
    "/usr/share/java/curator-recipes.jar:/usr/share/java/curator-framework.jar:/usr/share/java/curator-client.jar:"
    "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:/usr/share/java/guava.jar:"
    "/usr/share/java/slf4j-simple.jar";

// The directory of every worker class (CuratorLockWorker, CuratorSemaphoreWorker, CuratorElectionWorker,
// CuratorElectionPeer), compiled on the first call; empty when javac or Curator is missing (a failed compile also
// fails the test).
inline const std::filesystem::path& curator_worker_classes() {
  static temp_dir classes("zkwire-curator-");
  static const std::filesystem::path compiled = [] {
    const std::string javac = find_on_path("javac");  // the bare name when it is not on PATH
    if (javac.find('/') == std::string::npos || !std::filesystem::exists("/usr/share/java/curator-recipes.jar")) {
      return std::filesystem::path();
    }
    const auto out = run_process({javac, "-d", classes.path().string(), "-cp", curator_classpath,
                                  ZKWIRE_CURATOR_WORKER_SOURCE, ZKWIRE_CURATOR_SEMAPHORE_WORKER_SOURCE,
                                  ZKWIRE_CURATOR_ELECTION_WORKER_SOURCE, ZKWIRE_CURATOR_ELECTION_PEER_SOURCE},
                                 {}, std::chrono::seconds(180));
    EXPECT_EQ(out.status, 0) << out.err;
    return out.status == 0 ? classes.path() : std::filesystem::path();
  }();
  return compiled;
}

// The java command line of worker class `worker`: the JVM, a small heap, the classpath, the class. Like the test
// servers (member_config.cpp), the quick compiler alone and the serial collector: a worker lives seconds.
inline std::vector<std::string> curator_worker_command(const std::string& worker) {
  return {find_on_path("java"),
          "-Xmx128m",
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-cp",
          curator_worker_classes().string() + ":" + curator_classpath,
          worker};
}

}  // namespace zkwire::test
