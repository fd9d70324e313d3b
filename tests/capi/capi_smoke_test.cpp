// capi_smoke (a C program built against Debian's header and library) run as the same binary on Debian's
// libzookeeper_mt.so.2 and on zkwire's (LD_LIBRARY_PATH), against the suite's server: both runs must pass every
// check of the program and report the library they ran on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using ::testing::HasSubstr;

class capi_smoke_test : public test::standalone_test {
 protected:
  // Runs the program with `env` (NAME=value entries) added to its environment.
  test::outcome run(const std::vector<std::string>& env) {
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "LD_LIBRARY_PATH", "-u", "LD_PRELOAD"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {ZKWIRE_CAPI_SMOKE, connect_string(), root()});
    return test::run_process(argv, {}, std::chrono::seconds(120));
  }
};

TEST_F(capi_smoke_test, passes_on_debians_library) {
  const auto result = run({});
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("library /"));
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr(ZKWIRE_CAPI_LIBDIR)));
  EXPECT_THAT(result.out, HasSubstr("\nok\n"));
}

TEST_F(capi_smoke_test, passes_on_zkwires_library) {
  std::vector<std::string> env = {"LD_LIBRARY_PATH=" ZKWIRE_CAPI_LIBDIR};
  // A library built with ASan in a program without it: the runtime must be loaded first (docs/libzookeeper.md).
  if (std::string(ZKWIRE_CAPI_PRELOAD).size() > 0) env.emplace_back("LD_PRELOAD=" ZKWIRE_CAPI_PRELOAD);
  const auto result = run(env);
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("library " ZKWIRE_CAPI_LIBDIR "/libzookeeper_mt.so.2"));
  // Every call cut short by zookeeper_close completes, once (the C client may drop some).
  EXPECT_THAT(result.out, HasSubstr("\n100 completions after close (100 right when it returned)"));
  EXPECT_THAT(result.out, HasSubstr("\nok\n"));
}

}  // namespace
}  // namespace zkwire
