// The Asio layer's error codes: category, messages, and their conditions.

#include "zkwire/client/errors.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace zkwire {
namespace {

std::set<condition> conditions_of(const std::error_code& ec) {
  std::set<condition> out;
  for (const condition c :
       {condition::connection_loss, condition::timeout, condition::session_ended, condition::session_expired,
        condition::cancelled, condition::protocol_violation, condition::invalid_argument}) {
    if (ec == c) out.insert(c);
  }
  return out;
}

TEST(client_errc, every_code_has_its_category_message_and_conditions) {
  struct row {
    client_errc code;
    std::set<condition> conditions;
  };
  const row rows[] = {
      {client_errc::connect_timeout, {condition::timeout}},
      {client_errc::invalid_connect_string, {condition::invalid_argument}},
      {client_errc::already_waiting, {}},
      {client_errc::no_watch, {}},
      {client_errc::host_not_found, {condition::timeout}},
      {client_errc::closed_before_handshake, {condition::timeout}},
  };
  for (const auto& r : rows) {
    const std::error_code ec = r.code;
    EXPECT_EQ(&ec.category(), &client_errc_category());
    EXPECT_STREQ(ec.category().name(), "zkwire.client");
    EXPECT_EQ(ec.message().find("unknown zkwire.client error"), std::string::npos) << ec.message();
    EXPECT_EQ(conditions_of(ec), r.conditions) << ec.message();
  }
  EXPECT_TRUE(conditions_of(std::error_code(99, client_errc_category())).empty());
  EXPECT_EQ(std::error_code(99, client_errc_category()).message(), "unknown zkwire.client error 99");
}

TEST(client_errc, categories_are_distinct) {
  EXPECT_NE(&client_errc_category(), &proto::client_error_category());
  EXPECT_NE(std::error_code(client_errc::connect_timeout), std::error_code(client_error::connection_loss));
  // The same value in the other category is another error.
  EXPECT_NE(std::error_code(client_errc::connect_timeout), std::error_code(1, proto::client_error_category()));
}

}  // namespace
}  // namespace zkwire
