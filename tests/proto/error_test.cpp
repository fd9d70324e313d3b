// Error categories, messages, names and the classification helpers.

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <set>
#include <string>

#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

struct named_code {
  std::int32_t value;
  server_error code;
  const char* name;
};

// docs/protocol.md#error-codes, every code.
const named_code server_codes[] = {
    {-1, server_error::system_error, "SYSTEMERROR"},
    {-2, server_error::runtime_inconsistency, "RUNTIMEINCONSISTENCY"},
    {-3, server_error::data_inconsistency, "DATAINCONSISTENCY"},
    {-4, server_error::connection_loss, "CONNECTIONLOSS"},
    {-5, server_error::marshalling_error, "MARSHALLINGERROR"},
    {-6, server_error::unimplemented, "UNIMPLEMENTED"},
    {-7, server_error::operation_timeout, "OPERATIONTIMEOUT"},
    {-8, server_error::bad_arguments, "BADARGUMENTS"},
    {-12, server_error::unknown_session, "UNKNOWNSESSION"},
    {-13, server_error::new_config_no_quorum, "NEWCONFIGNOQUORUM"},
    {-14, server_error::reconfig_in_progress, "RECONFIGINPROGRESS"},
    {-100, server_error::api_error, "APIERROR"},
    {-101, server_error::no_node, "NONODE"},
    {-102, server_error::no_auth, "NOAUTH"},
    {-103, server_error::bad_version, "BADVERSION"},
    {-108, server_error::no_children_for_ephemerals, "NOCHILDRENFOREPHEMERALS"},
    {-110, server_error::node_exists, "NODEEXISTS"},
    {-111, server_error::not_empty, "NOTEMPTY"},
    {-112, server_error::session_expired, "SESSIONEXPIRED"},
    {-113, server_error::invalid_callback, "INVALIDCALLBACK"},
    {-114, server_error::invalid_acl, "INVALIDACL"},
    {-115, server_error::auth_failed, "AUTHFAILED"},
    {-118, server_error::session_moved, "SESSIONMOVED"},
    {-119, server_error::not_read_only, "NOTREADONLY"},
    {-120, server_error::ephemeral_on_local_session, "EPHEMERALONLOCALSESSION"},
    {-121, server_error::no_watcher, "NOWATCHER"},
    {-122, server_error::request_timeout, "REQUESTTIMEOUT"},
    {-123, server_error::reconfig_disabled, "RECONFIGDISABLED"},
    {-124, server_error::session_closed_require_sasl_auth, "SESSIONCLOSEDREQUIRESASLAUTH"},
    {-125, server_error::quota_exceeded, "QUOTAEXCEEDED"},
    {-127, server_error::throttled_op, "THROTTLEDOP"},
};

TEST(server_errors, wire_values_names_and_messages) {
  for (const auto& c : server_codes) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(static_cast<std::int32_t>(c.code), c.value);
    const std::error_code ec = error_from_wire(c.value);
    EXPECT_EQ(ec, c.code);
    EXPECT_EQ(ec.value(), c.value);
    EXPECT_STREQ(ec.category().name(), "zookeeper");
    EXPECT_EQ(server_error_name(c.value), c.name);
    // The message names the code the way the CLI prints it.
    EXPECT_NE(ec.message().find(std::string("(") + c.name + ")"), std::string::npos) << ec.message();
  }
}

TEST(server_errors, zero_is_no_error) {
  EXPECT_FALSE(error_from_wire(0));
  EXPECT_EQ(server_error_name(0), "OK");
}

TEST(server_errors, unknown_codes_still_convert) {
  const std::error_code ec = error_from_wire(-126);
  EXPECT_TRUE(ec);
  EXPECT_EQ(ec.value(), -126);
  EXPECT_EQ(ec.message(), "unknown ZooKeeper error -126");
  EXPECT_EQ(server_error_name(-126), "UNKNOWN");
  EXPECT_EQ(error_from_wire(42).message(), "unknown ZooKeeper error 42");
}

TEST(server_errors, messages_say_what_to_do) {
  EXPECT_EQ(error_from_wire(-4).message(),
            "connection lost (CONNECTIONLOSS): the outcome of the request is unknown; read back or retry");
  EXPECT_NE(error_from_wire(-103).message().find("read it again"), std::string::npos);
}

TEST(client_errors, category_and_messages) {
  const client_error all[] = {
      client_error::connection_loss,   client_error::session_expired,    client_error::closed,
      client_error::operation_timeout, client_error::cancelled,          client_error::frame_too_large,
      client_error::request_too_large, client_error::protocol_violation, client_error::truncated_frame,
      client_error::invalid_path,      client_error::invalid_argument};
  for (client_error e : all) {
    const std::error_code ec = e;
    EXPECT_STREQ(ec.category().name(), "zkwire.proto");
    EXPECT_FALSE(ec.message().empty());
    EXPECT_EQ(ec.message().find("unknown zkwire.proto error"), std::string::npos) << ec.message();
  }
  EXPECT_EQ(std::error_code(client_error::connection_loss).message(),
            "connection lost, outcome unknown: the request may or may not have been applied; read back or retry");
  EXPECT_EQ(std::error_code(99, client_error_category()).message(), "unknown zkwire.proto error 99");
}

// A message is "<summary>: <advice>" (a server code's with its name after the summary); error_summary() is the
// summary alone, the one-line report the command line prints before the name in parentheses.
TEST(client_errors, summaries_open_the_messages) {
  EXPECT_EQ(error_summary(server_error::no_node), "node does not exist");
  EXPECT_EQ(error_summary(server_error::bad_version), "version does not match");
  EXPECT_EQ(error_summary(client_error::connection_loss), "connection lost, outcome unknown");
  EXPECT_EQ(error_summary(client_error::operation_timeout), "no reply in time, outcome unknown");
  EXPECT_EQ(error_summary(client_error::frame_too_large),
            "reply larger than the client accepts (client_options::max_frame_size, 64 MiB by default; the CLI's "
            "--max-frame-size)");
  EXPECT_EQ(error_summary(std::error_code(-999, server_category())), "unknown ZooKeeper error -999");
  // Other categories keep their whole message.
  const std::error_code foreign = std::make_error_code(std::errc::connection_refused);
  EXPECT_EQ(error_summary(foreign), foreign.message());
}

TEST(client_errors, categories_are_distinct) {
  EXPECT_NE(std::error_code(client_error::connection_loss), std::error_code(server_error::connection_loss));
  EXPECT_NE(&server_category(), &client_error_category());
  EXPECT_EQ(&server_category(), &error_from_wire(-101).category());
}

TEST(classification, session_fatal) {
  EXPECT_TRUE(is_session_fatal(server_error::session_expired));
  EXPECT_TRUE(is_session_fatal(server_error::auth_failed));
  EXPECT_TRUE(is_session_fatal(server_error::session_closed_require_sasl_auth));
  EXPECT_TRUE(is_session_fatal(client_error::session_expired));
  EXPECT_TRUE(is_session_fatal(client_error::closed));
  EXPECT_FALSE(is_session_fatal(server_error::no_node));
  EXPECT_FALSE(is_session_fatal(server_error::connection_loss));
  EXPECT_FALSE(is_session_fatal(client_error::connection_loss));
  EXPECT_FALSE(is_session_fatal({}));
  EXPECT_FALSE(is_session_fatal(std::make_error_code(std::errc::connection_reset)));
}

TEST(classification, connection_loss_means_outcome_unknown) {
  EXPECT_TRUE(is_connection_loss(server_error::connection_loss));
  EXPECT_TRUE(is_connection_loss(server_error::operation_timeout));
  EXPECT_TRUE(is_connection_loss(client_error::connection_loss));
  EXPECT_TRUE(is_connection_loss(client_error::operation_timeout));
  EXPECT_FALSE(is_connection_loss(server_error::session_expired));
  EXPECT_FALSE(is_connection_loss(client_error::cancelled));
  EXPECT_FALSE(is_connection_loss({}));
  // Same numeric value in another category is not a match.
  EXPECT_FALSE(is_connection_loss(std::error_code(-4, std::generic_category())));
  EXPECT_FALSE(is_connection_loss(std::error_code(1, std::generic_category())));
}

TEST(classification, protocol_violation) {
  EXPECT_TRUE(is_protocol_violation(client_error::protocol_violation));
  EXPECT_TRUE(is_protocol_violation(client_error::truncated_frame));
  EXPECT_FALSE(is_protocol_violation(client_error::frame_too_large));  // fails one request only
  EXPECT_TRUE(is_protocol_violation(jute::error::invalid_boolean));
  EXPECT_FALSE(is_protocol_violation(client_error::request_too_large));
  EXPECT_FALSE(is_protocol_violation(server_error::marshalling_error));
  EXPECT_FALSE(is_protocol_violation({}));
}

// --- conditions: every code of every category against every condition ---------------------------------------

const condition all_conditions[] = {condition::connection_loss, condition::timeout,   condition::session_ended,
                                    condition::session_expired, condition::cancelled, condition::protocol_violation,
                                    condition::invalid_argument};

std::set<condition> conditions_of(const std::error_code& ec) {
  std::set<condition> out;
  for (const condition c : all_conditions) {
    if (ec == c) out.insert(c);
  }
  return out;
}

TEST(conditions, every_server_code) {
  using c = condition;
  const std::map<server_error, std::set<condition>> expected = {
      {server_error::connection_loss, {c::connection_loss}},
      {server_error::operation_timeout, {c::connection_loss, c::timeout}},
      {server_error::request_timeout, {c::timeout}},
      {server_error::session_expired, {c::session_ended, c::session_expired}},
      {server_error::auth_failed, {c::session_ended}},
      {server_error::session_closed_require_sasl_auth, {c::session_ended}},
      {server_error::bad_arguments, {c::invalid_argument}},
  };
  for (const auto& code : server_codes) {
    const auto it = expected.find(code.code);
    EXPECT_EQ(conditions_of(code.code), it == expected.end() ? std::set<condition>{} : it->second) << code.name;
  }
  EXPECT_TRUE(conditions_of(error_from_wire(-126)).empty()) << "an unknown server code matches nothing";
}

TEST(conditions, every_client_error) {
  using c = condition;
  const std::map<client_error, std::set<condition>> expected = {
      {client_error::connection_loss, {c::connection_loss}},
      {client_error::session_expired, {c::session_ended, c::session_expired}},
      {client_error::closed, {c::session_ended}},
      {client_error::operation_timeout, {c::connection_loss, c::timeout}},
      {client_error::cancelled, {c::cancelled}},
      {client_error::frame_too_large, {}},
      {client_error::request_too_large, {}},
      {client_error::protocol_violation, {c::protocol_violation}},
      {client_error::truncated_frame, {c::protocol_violation}},
      {client_error::invalid_path, {c::invalid_argument}},
      {client_error::invalid_argument, {c::invalid_argument}},
  };
  for (int v = 1; v <= static_cast<int>(client_error::invalid_argument); ++v) {
    const auto e = static_cast<client_error>(v);
    ASSERT_EQ(expected.count(e), 1U) << "a client_error without an expected mapping: " << v;
    EXPECT_EQ(conditions_of(e), expected.at(e)) << std::error_code(e).message();
  }
  EXPECT_TRUE(conditions_of(std::error_code(99, client_error_category())).empty());
}

TEST(conditions, jute_errors_are_protocol_violations_except_the_writers) {
  for (int v = 1; v <= static_cast<int>(jute::error::invalid_value); ++v) {
    const auto e = static_cast<jute::error>(v);
    const std::set<condition> expected =
        e == jute::error::value_too_large ? std::set<condition>{} : std::set<condition>{condition::protocol_violation};
    EXPECT_EQ(conditions_of(e), expected) << v;
  }
}

TEST(conditions, other_categories) {
  EXPECT_EQ(conditions_of(std::make_error_code(std::errc::operation_canceled)),
            std::set<condition>{condition::cancelled});
  EXPECT_EQ(conditions_of(std::error_code(ECANCELED, std::system_category())),
            std::set<condition>{condition::cancelled})
      << "Asio's operation_aborted";
  EXPECT_TRUE(conditions_of(std::make_error_code(std::errc::connection_reset)).empty());
  EXPECT_TRUE(conditions_of(std::make_error_code(std::errc::timed_out)).empty());
  EXPECT_TRUE(conditions_of(std::error_code(-4, std::generic_category())).empty());
  EXPECT_TRUE(conditions_of({}).empty());
}

TEST(conditions, category_and_messages) {
  for (const condition c : all_conditions) {
    const std::error_condition cond = c;
    EXPECT_STREQ(cond.category().name(), "zkwire.condition");
    EXPECT_EQ(cond.message().find("unknown zkwire condition"), std::string::npos) << cond.message();
  }
  EXPECT_NE(&condition_category(), &client_error_category());
  EXPECT_NE(&condition_category(), &server_category());
}

TEST(conditions, predicates_agree) {
  for (int v = -130; v <= 12; ++v) {
    for (const std::error_code ec : {error_from_wire(v), std::error_code(v, client_error_category())}) {
      EXPECT_EQ(is_connection_loss(ec), ec == condition::connection_loss) << ec.message();
      EXPECT_EQ(is_session_fatal(ec), ec == condition::session_ended) << ec.message();
      EXPECT_EQ(is_protocol_violation(ec), ec == condition::protocol_violation) << ec.message();
    }
  }
}

}  // namespace
}  // namespace zkwire::proto
