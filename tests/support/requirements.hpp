#pragma once
// Tests that need something outside the build (Kazoo, the Java zkCli): under CI (CI=true) a missing dependency
// fails the test, so a broken runner image cannot turn a suite green by skipping it; elsewhere the test is
// skipped with the reason, so a developer without the package can still run the rest.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace zkwire::test {

// True when the environment says this is a CI run (CI=true, as GitHub Actions and most CI systems set it).
inline bool running_under_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

}  // namespace zkwire::test

// ZKWIRE_REQUIRE(available, what): leaves the test when `available` is false, failing under CI and skipping
// elsewhere; `what` names the missing dependency. Use at the top of a TEST body (it returns from the function).
#define ZKWIRE_REQUIRE(available, what)                                                       \
  do {                                                                                        \
    if (!(available)) {                                                                       \
      if (::zkwire::test::running_under_ci()) GTEST_FAIL() << "missing under CI: " << (what); \
      GTEST_SKIP() << "missing: " << (what) << " (under CI=true this fails instead)";         \
    }                                                                                         \
  } while (false)
