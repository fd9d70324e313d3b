// The pure helpers of the zkwire command line: argument parsing, JSON strings, base64, exit statuses and error
// lines (docs/cli.md).

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "args.hpp"
#include "base64.hpp"
#include "errors.hpp"
#include "global_options.hpp"
#include "json.hpp"
#include "util.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<option_spec, 4> specs = {{
    {'e', "ephemeral", false},
    {'s', "sequential", false},
    {'n', "count", true},
    {0, "mode", true},
}};

parsed_args parse(std::vector<std::string> args) { return parse_args(args, specs); }

TEST(CliArgs, FlagsValuesAndPositionals) {
  const auto a = parse({"-e", "--count", "3", "--mode=once", "/a", "data"});
  EXPECT_TRUE(a.has("ephemeral"));
  EXPECT_FALSE(a.has("sequential"));
  EXPECT_EQ(a.value("count"), "3");
  EXPECT_EQ(a.value("mode"), "once");
  EXPECT_EQ(a.positional, (std::vector<std::string>{"/a", "data"}));
  EXPECT_FALSE(a.help);
}

TEST(CliArgs, BundledShortFlagsAndAttachedValues) {
  const auto a = parse({"-es", "-n7", "/a"});
  EXPECT_TRUE(a.has("ephemeral"));
  EXPECT_TRUE(a.has("sequential"));
  EXPECT_EQ(a.value("count"), "7");
  const auto b = parse({"-en", "2", "/a"});
  EXPECT_TRUE(b.has("ephemeral"));
  EXPECT_EQ(b.value("count"), "2");
}

TEST(CliArgs, OptionsEndAtTheFirstPositionalDashAndDoubleDash) {
  // DATA may start with '-' after PATH; "-" alone is stdin.
  EXPECT_EQ(parse({"/a", "-e"}).positional, (std::vector<std::string>{"/a", "-e"}));
  EXPECT_EQ(parse({"-", "-e"}).positional, (std::vector<std::string>{"-", "-e"}));
  const auto a = parse({"-e", "--", "-s", "x"});
  EXPECT_TRUE(a.has("ephemeral"));
  EXPECT_FALSE(a.has("sequential"));
  EXPECT_EQ(a.positional, (std::vector<std::string>{"-s", "x"}));
  // A negative value is a value.
  EXPECT_EQ(parse({"-n", "-1", "/a"}).value("count"), "-1");
  // The last value wins.
  EXPECT_EQ(parse({"-n", "1", "-n", "2"}).value("count"), "2");
}

TEST(CliArgs, Help) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-e", "-h", "/a"}).help);
  EXPECT_FALSE(parse({"/a", "-h"}).help);  // after PATH it is DATA
}

TEST(CliArgs, Errors) {
  EXPECT_THROW(parse({"-x"}), usage_error);
  EXPECT_THROW(parse({"--nope"}), usage_error);
  EXPECT_THROW(parse({"--count"}), usage_error);        // needs a value
  EXPECT_THROW(parse({"-n"}), usage_error);             // needs a value
  EXPECT_THROW(parse({"--ephemeral=1"}), usage_error);  // takes none
  EXPECT_THROW(parse({"-ex"}), usage_error);
}

TEST(CliArgs, Numbers) {
  EXPECT_EQ(parse_integer("42", 0, 100, "n"), 42);
  EXPECT_EQ(parse_integer("-1", -1, 100, "n"), -1);
  EXPECT_EQ(parse_integer("+5", 0, 100, "n"), 5);
  for (const char* bad : {"", "x", "1x", "101", "-2", " 1", "1.5"}) {
    EXPECT_THROW(parse_integer(bad, -1, 100, "n"), usage_error) << bad;
  }
  EXPECT_DOUBLE_EQ(parse_seconds("0.5", "t"), 0.5);
  EXPECT_DOUBLE_EQ(parse_seconds("3", "t"), 3.0);
  for (const char* bad : {"", "-1", "x", "1s", "nan", "inf"}) {
    EXPECT_THROW(parse_seconds(bad, "t"), usage_error) << bad;
  }
}

TEST(CliArgs, Paths) {
  EXPECT_EQ(parent_of("/a/b"), "/a");
  EXPECT_EQ(parent_of("/a"), "/");
  EXPECT_EQ(parent_of("/a/b/"), "/a/b");
  EXPECT_EQ(child_path("/", "a"), "/a");
  EXPECT_EQ(child_path("/a", "b"), "/a/b");
  EXPECT_NO_THROW(check_path("/a/b"));
  EXPECT_NO_THROW(check_path("/a/", true));
  EXPECT_THROW(check_path("/a/"), usage_error);
  EXPECT_THROW(check_path("a"), usage_error);
  EXPECT_THROW(check_path("/a//b"), usage_error);
}

TEST(CliGlobalOptions, ParsesAndDefaults) {
  const std::array<const char*, 9> argv = {"-s", "h:1", "-t", "5000", "--auth", "digest:u:p", "--json", "get", "/a"};
  const auto r = parse_global_options(argv, nullptr);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.options.servers, "h:1");
  EXPECT_EQ(r.options.session_timeout.count(), 5000);
  EXPECT_EQ(r.options.auth, (std::vector<std::string>{"digest:u:p"}));
  EXPECT_TRUE(r.options.json);
  EXPECT_EQ(r.options.command, (std::vector<std::string>{"get", "/a"}));
  const std::array<const char*, 1> none = {"ls"};
  EXPECT_EQ(parse_global_options(none, "env:2").options.servers, "env:2");
  EXPECT_EQ(parse_global_options(none, nullptr).options.servers, "127.0.0.1:2181");
}

TEST(CliJson, Strings) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(json_string("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  // Invalid UTF-8 becomes U+FFFD, byte by byte.
  EXPECT_EQ(json_string("a\xff"
                        "b"),
            "\"a\\ufffdb\"");
  EXPECT_EQ(json_string("\xc3"), "\"\\ufffd\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // an encoded surrogate
}

TEST(CliJson, Utf8Validity) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("abc"));
  EXPECT_TRUE(is_valid_utf8(std::string("\0", 1)));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9\xef\xbf\xbf\xf4\x8f\xbf\xbf"));
  for (const std::string bad : {"\x80", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                "\xf5\x80\x80\x80", "\xe2\x82", "\xff"}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
  }
}

TEST(CliJson, ObjectsAndStat) {
  EXPECT_EQ(json_object().str(), "{}");
  EXPECT_EQ(json_object().add("a", std::int64_t{-1}).add("b", "x").add("c", true).add_raw("d", "{}").str(),
            "{\"a\":-1,\"b\":\"x\",\"c\":true,\"d\":{}}");
  proto::stat s;
  s.czxid = 1;
  s.mzxid = 2;
  s.pzxid = 3;
  s.ctime = 4;
  s.mtime = 5;
  s.version = 6;
  s.cversion = 7;
  s.aversion = 8;
  s.ephemeral_owner = 0x100000000;
  s.data_length = 9;
  s.num_children = 10;
  EXPECT_EQ(stat_json(s),
            "{\"czxid\":1,\"mzxid\":2,\"pzxid\":3,\"ctime\":4,\"mtime\":5,\"version\":6,\"cversion\":7,"
            "\"aversion\":8,\"ephemeralOwner\":4294967296,\"dataLength\":9,\"numChildren\":10}");
}

TEST(CliBase64, Rfc4648Vectors) {
  const std::array<std::pair<std::string, std::string>, 7> vectors = {{
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  }};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(plain), encoded);
    EXPECT_EQ(base64_decode(encoded), plain);
  }
  const std::string all = [] {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
    return bytes;
  }();
  EXPECT_EQ(base64_decode(base64_encode(all)), all);
  EXPECT_EQ(base64_encode(std::string("\x00\xff\x80", 3)), "AP+A");
  for (const char* bad : {"Zg=", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Z!==", "=Zg="}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
}

TEST(CliErrors, ExitStatuses) {
  using proto::client_error;
  using proto::server_error;
  EXPECT_EQ(exit_status_for({}), 0);
  EXPECT_EQ(exit_status_for(server_error::no_node), 1);
  EXPECT_EQ(exit_status_for(client_error::invalid_path), 2);
  EXPECT_EQ(exit_status_for(client_errc::invalid_connect_string), 2);
  for (const auto e :
       {server_error::node_exists, server_error::bad_version, server_error::not_empty, server_error::no_auth,
        server_error::no_children_for_ephemerals, server_error::invalid_acl, server_error::unimplemented}) {
    EXPECT_EQ(exit_status_for(e), 3) << proto::server_error_name(static_cast<std::int32_t>(e));
  }
  for (const std::error_code ec :
       {std::error_code(client_errc::connect_timeout), std::error_code(client_error::connection_loss),
        std::error_code(client_error::session_expired), std::error_code(client_error::closed),
        std::error_code(client_error::protocol_violation), std::error_code(server_error::session_expired),
        std::error_code(server_error::auth_failed), std::error_code(server_error::connection_loss)}) {
    EXPECT_EQ(exit_status_for(ec), 4) << ec.message();
  }
}

TEST(CliErrors, Lines) {
  EXPECT_EQ(error_line("get", "/a", proto::server_error::no_node), "zkwire: get: /a: node does not exist (NONODE)");
  EXPECT_EQ(error_line("create", "/a/b", proto::server_error::no_node),
            "zkwire: create: /a/b: parent does not exist (NONODE)");
  EXPECT_EQ(error_line("create", "/a", proto::server_error::node_exists),
            "zkwire: create: /a: node already exists (NODEEXISTS)");
  EXPECT_EQ(error_line("rm", "/a", proto::server_error::not_empty), "zkwire: rm: /a: node has children (NOTEMPTY)");
  EXPECT_EQ(error_name(client_errc::connect_timeout), "CONNECTIONLOSS");
  EXPECT_EQ(error_name(proto::client_error::session_expired), "SESSIONEXPIRED");
  EXPECT_EQ(error_name(proto::server_error::bad_version), "BADVERSION");
}

}  // namespace
}  // namespace zkwire::cli
