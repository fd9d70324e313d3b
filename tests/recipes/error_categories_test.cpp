// One name per error category across the layers: each says which library owns it ("zkwire.<library>", the server's
// "zookeeper"), no two share a name, and none is the bare "zkwire" that once named proto's client_error beside the
// client layer's "zkwire.client".

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "zkwire/client/errors.hpp"
#include "zkwire/client/tls_options.hpp"
#include "zkwire/jute/error.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/recipes/errors.hpp"

namespace zkwire {
namespace {

TEST(error_categories, each_has_one_name_that_names_its_library) {
  const std::pair<const std::error_category*, std::string> expected[] = {
      {&proto::server_category(), "zookeeper"},           {&proto::client_error_category(), "zkwire.proto"},
      {&proto::condition_category(), "zkwire.condition"}, {&jute::category(), "zkwire.jute"},
      {&client_errc_category(), "zkwire.client"},         {&tls_category(), "zkwire.tls"},
      {&recipes::recipes_category(), "zkwire.recipes"},
  };
  std::set<std::string> names;
  std::set<const std::error_category*> categories;
  for (const auto& [category, name] : expected) {
    EXPECT_EQ(category->name(), name);
    EXPECT_NE(std::string(category->name()), "zkwire");
    names.insert(category->name());
    categories.insert(category);
  }
  EXPECT_EQ(names.size(), std::size(expected)) << "two categories share a name";
  EXPECT_EQ(categories.size(), std::size(expected));
}

TEST(error_categories, summaries_cut_the_advice_of_every_zkwire_category) {
  // error_summary() recognises the categories whose messages read "<summary>: <advice>"; a renamed category it no
  // longer recognised would print its advice on the CLI's one-line errors.
  for (const std::error_code ec :
       {std::error_code(proto::client_error::connection_loss), std::error_code(client_errc::connect_timeout),
        std::error_code(recipes::lock_errc::invalid_lease_count)}) {
    const std::string summary = proto::error_summary(ec);
    EXPECT_FALSE(summary.empty()) << ec.category().name();
    EXPECT_LT(summary.size(), ec.message().size()) << ec.category().name() << ": " << ec.message();
    EXPECT_EQ(ec.message().rfind(summary + ": ", 0), 0U) << ec.category().name() << ": " << ec.message();
  }
}

}  // namespace
}  // namespace zkwire
