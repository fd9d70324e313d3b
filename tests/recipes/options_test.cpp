// The recipes' option types are not aggregates (so a braced temporary is constructed and destroyed once, also inside
// co_await on GCC 12), and each named option is the defaults with exactly its own fields set.

#include <gtest/gtest.h>

#include <chrono>
#include <type_traits>

#include "zkwire/recipes/lock_keeper.hpp"
#include "zkwire/recipes/lock_options.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::recipes {
namespace {

using namespace std::chrono_literals;

static_assert(!std::is_aggregate_v<lock_options>);
static_assert(!std::is_aggregate_v<semaphore_options>);
static_assert(!std::is_aggregate_v<keeper_options>);

// The fields a named option must leave as the default constructor sets them.
void expect_lock_defaults_except(const lock_options& o, const char* changed) {
  const lock_options d;
  const std::string_view field = changed;
  if (field != "name_format") EXPECT_EQ(o.name_format, d.name_format) << changed;
  if (field != "data") EXPECT_EQ(o.data, d.data) << changed;
  if (field != "safety_margin") EXPECT_EQ(o.safety_margin, d.safety_margin) << changed;
  if (field != "acl") EXPECT_EQ(o.acl, d.acl) << changed;
  if (field != "reentrant") EXPECT_EQ(o.reentrant, d.reentrant) << changed;
  EXPECT_EQ(o.metrics, nullptr) << changed;
}

TEST(recipe_options, NamedLockOptionsSetOnlyTheirField) {
  const auto kazoo = lock_options::with_naming(naming::kazoo);
  EXPECT_EQ(kazoo.name_format, naming::kazoo);
  EXPECT_NE(lock_options().name_format, naming::kazoo);  // or the check above proves nothing
  expect_lock_defaults_except(kazoo, "name_format");

  const auto data = lock_options::with_data("worker-7");
  EXPECT_EQ(data.data, "worker-7");
  expect_lock_defaults_except(data, "data");

  const auto margin = lock_options::with_safety_margin(750ms);
  EXPECT_EQ(margin.safety_margin, 750ms);
  expect_lock_defaults_except(margin, "safety_margin");

  const auto read_only = lock_options::with_acl(acl_list(acl(perms::read, "world", "anyone")));
  ASSERT_EQ(read_only.acl.size(), 1U);
  EXPECT_EQ(read_only.acl.front().perms, perms::read);
  expect_lock_defaults_except(read_only, "acl");

  const auto reentrant = lock_options::with_reentrancy();
  EXPECT_TRUE(reentrant.reentrant);
  expect_lock_defaults_except(reentrant, "reentrant");
}

TEST(recipe_options, NamedSemaphoreOptionsSetOnlyTheirField) {
  const semaphore_options d;
  const auto data = semaphore_options::with_data("worker-7");
  EXPECT_EQ(data.data, "worker-7");
  EXPECT_EQ(data.safety_margin, d.safety_margin);
  EXPECT_EQ(data.acl, d.acl);

  const auto margin = semaphore_options::with_safety_margin(750ms);
  EXPECT_EQ(margin.safety_margin, 750ms);
  EXPECT_EQ(margin.data, d.data);
  EXPECT_EQ(margin.acl, d.acl);

  const auto read_only = semaphore_options::with_acl(acl_list(acl(perms::read, "world", "anyone")));
  ASSERT_EQ(read_only.acl.size(), 1U);
  EXPECT_EQ(read_only.acl.front().perms, perms::read);
  EXPECT_EQ(read_only.data, d.data);
  EXPECT_EQ(read_only.safety_margin, d.safety_margin);
}

TEST(recipe_options, NamedKeeperOptionsSetOnlyTheirFields) {
  const keeper_options d;
  const auto bounded = keeper_options::with_acquire_timeout(5s);
  EXPECT_EQ(bounded.acquire_timeout, 5s);
  EXPECT_EQ(bounded.retry_delay, d.retry_delay);
  EXPECT_EQ(bounded.max_failures, d.max_failures);

  const auto retries = keeper_options::with_retries(250ms, 3);
  EXPECT_EQ(retries.retry_delay, 250ms);
  EXPECT_EQ(retries.max_failures, 3U);
  EXPECT_EQ(retries.acquire_timeout, d.acquire_timeout);
}

}  // namespace
}  // namespace zkwire::recipes
