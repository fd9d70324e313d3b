// zkwire_capi_launch: runs one program of the C API conformance suite (or a consumer comparison) against a real
// ZooKeeper it starts with the project's test servers (tests/support/zk_cluster.hpp), on a chosen
// libzookeeper_mt.so.2.
//
//   zkwire_capi_launch --library debian|zkwire --expect-lib FILE [--lib-dir DIR] [--preload FILE] [--timeout S]
//                      -- PROGRAM ARGS...
//
// PROGRAM (an absolute path) gets ZKWIRE_CAPI_HOSTS (the connect string), ZKWIRE_CAPI_LIBRARY (debian or zkwire)
// and ZKWIRE_CAPI_EXPECT_LIB=FILE in its environment, LD_LIBRARY_PATH=DIR with --lib-dir, and LD_PRELOAD=FILE with
// --preload (the sanitizer runtime an instrumented library needs in our uninstrumented programs); it checks itself
// that FILE is what the loader mapped (capi_test.c). Its stdout and stderr are copied to ours once it ends; the exit
// status is PROGRAM's, 124 if it ran past --timeout (it is then killed), 2 on a usage error, 3 if the server does not
// start.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_cluster.hpp"

namespace {

struct launch_options {
  std::string library;
  std::string expect_lib;
  std::string lib_dir;
  std::string preload;
  int timeout_s = 240;
  std::vector<std::string> argv;
};

bool parse(int argc, char** argv, launch_options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      options.argv.assign(argv + i + 1, argv + argc);
      break;
    }
    if (i + 1 >= argc) return false;
    if (arg == "--library") {
      options.library = argv[++i];
    } else if (arg == "--expect-lib") {
      options.expect_lib = argv[++i];
    } else if (arg == "--preload") {
      options.preload = argv[++i];
    } else if (arg == "--lib-dir") {
      options.lib_dir = argv[++i];
    } else if (arg == "--timeout") {
      char* end = nullptr;
      const long seconds = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || seconds <= 0 || seconds > 86400) return false;
      options.timeout_s = static_cast<int>(seconds);
    } else {
      return false;
    }
  }
  return (options.library == "debian" || options.library == "zkwire") && !options.expect_lib.empty() &&
         !options.argv.empty() && options.timeout_s > 0;
}

}  // namespace

int main(int argc, char** argv) {
  launch_options options;
  if (!parse(argc, argv, options)) {
    std::cerr << "usage: zkwire_capi_launch --library debian|zkwire --expect-lib FILE [--lib-dir DIR] [--preload FILE] "
                 "[--timeout S] "
                 "-- PROGRAM ARGS...\n";
    return 2;
  }
  try {
    const zkwire::test::zk_cluster cluster;
    ::setenv("ZKWIRE_CAPI_HOSTS", cluster.connect_string().c_str(), 1);
    ::setenv("ZKWIRE_CAPI_LIBRARY", options.library.c_str(), 1);
    ::setenv("ZKWIRE_CAPI_EXPECT_LIB", options.expect_lib.c_str(), 1);
    if (!options.preload.empty()) {
      ::setenv("LD_PRELOAD", options.preload.c_str(), 1);
      ::setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1);
    }
    if (options.lib_dir.empty()) {
      ::unsetenv("LD_LIBRARY_PATH");
    } else {
      ::setenv("LD_LIBRARY_PATH", options.lib_dir.c_str(), 1);
    }
    const zkwire::test::temp_dir scratch("zkwire-capi-launch-");
    const zkwire::test::child_stdio stdio{scratch.path() / "out", scratch.path() / "err", {}};
    auto child = zkwire::test::child_process::spawn(options.argv, stdio);
    const bool finished = child.wait_for(std::chrono::seconds(options.timeout_s));
    if (!finished) child.kill();
    std::cout << child.out() << std::flush;
    std::cerr << child.err() << std::flush;
    if (!finished) {
      std::cerr << "zkwire_capi_launch: " << options.argv.front() << " ran past " << options.timeout_s
                << " s; killed\n";
      return 124;
    }
    return child.exit_status().value_or(1);
  } catch (const std::exception& error) {
    std::cerr << "zkwire_capi_launch: " << error.what() << '\n';
    return 3;
  }
}
