#include "support/kazoo.hpp"

#include <chrono>
#include <filesystem>

namespace zkwire::test {

bool have_kazoo() {
  if (!std::filesystem::exists(system_python)) return false;
  // Quiet: a missing module is an answer here, not an error to show.
  return run_process({system_python, "-c", "import kazoo"}, {}, std::chrono::seconds(60)).status == 0;
}

outcome run_kazoo(const std::string& connect_string, const std::string& body) {
  const std::string program =
      "import sys\n"
      "from kazoo.client import KazooClient\n"
      "zk = KazooClient(hosts=sys.argv[1])\n"
      "zk.start(timeout=30)\n"
      "try:\n" +
      body +
      "finally:\n"
      "    zk.stop()\n";
  return run_process({system_python, "-c", program, connect_string});
}

}  // namespace zkwire::test
