// The pure helpers of the zkwire command line: argument parsing (command_parser on CLI11), values, JSON records,
// UTF-8, base64, exit statuses and error lines (docs/cli.md).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base64.hpp"
#include "cli11_support.hpp"
#include "errors.hpp"
#include "global_options.hpp"
#include "json.hpp"
#include "utf8.hpp"
#include "util.hpp"
#include "values.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::cli {
namespace {

// What a command like create or watch declares: flags, an integer, a string option, PATH and an optional DATA.
struct example_arguments {
  bool ephemeral = false;
  bool sequential = false;
  std::optional<std::int64_t> count;
  std::optional<std::string> mode;
  std::string path;
  std::optional<std::string> data;
};

example_arguments parse_example(const std::vector<std::string>& args) {
  example_arguments a;
  command_parser parser;
  parser.flag("-e,--ephemeral", a.ephemeral);
  parser.flag("-s,--sequential", a.sequential);
  parser.integer("-n,--count", a.count, -5, 100);
  parser.option("--mode", a.mode);
  parser.positional("PATH", a.path);
  parser.positional("DATA", a.data);
  parser.parse(args);
  return a;
}

// The usage error parse_example reports, or "" if it parses.
std::string usage_message(const std::vector<std::string>& args) {
  try {
    parse_example(args);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

bool asks_for_help(const std::vector<std::string>& args) {
  try {
    parse_example(args);
  } catch (const help_requested&) {
    return true;
  }
  return false;
}

TEST(CliCommandParser, FlagsValuesAndPositionals) {
  const auto a = parse_example({"-e", "--count", "3", "--mode=once", "/a", "data"});
  EXPECT_TRUE(a.ephemeral);
  EXPECT_FALSE(a.sequential);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.mode, "once");
  EXPECT_EQ(a.path, "/a");
  EXPECT_EQ(a.data, "data");
  const auto defaults = parse_example({"/a"});
  EXPECT_FALSE(defaults.ephemeral);
  EXPECT_EQ(defaults.count, std::nullopt);
  EXPECT_EQ(defaults.mode, std::nullopt);
  EXPECT_EQ(defaults.data, std::nullopt);
}

TEST(CliCommandParser, BundledShortFlagsAndAttachedValues) {
  const auto a = parse_example({"-es", "-n7", "/a"});
  EXPECT_TRUE(a.ephemeral);
  EXPECT_TRUE(a.sequential);
  EXPECT_EQ(a.count, 7);
  const auto b = parse_example({"-en", "2", "/a"});
  EXPECT_TRUE(b.ephemeral);
  EXPECT_EQ(b.count, 2);
  EXPECT_EQ(parse_example({"--count=-4", "/a"}).count, -4);
}

TEST(CliCommandParser, OptionsEndAtTheFirstPositionalDashAndDoubleDash) {
  // DATA may start with '-' after PATH; "-" alone is stdin.
  const auto a = parse_example({"/a", "-e"});
  EXPECT_FALSE(a.ephemeral);
  EXPECT_EQ(a.path, "/a");
  EXPECT_EQ(a.data, "-e");
  EXPECT_EQ(parse_example({"/a", "--count"}).data, "--count");
  const auto stdin_data = parse_example({"-e", "/a", "-"});
  EXPECT_EQ(stdin_data.data, "-");
  const auto dash_path = parse_example({"-", "-e"});
  EXPECT_EQ(dash_path.path, "-");
  EXPECT_EQ(dash_path.data, "-e");
  const auto b = parse_example({"-e", "--", "-s", "x"});
  EXPECT_TRUE(b.ephemeral);
  EXPECT_FALSE(b.sequential);
  EXPECT_EQ(b.path, "-s");
  EXPECT_EQ(b.data, "x");
  // A negative value is a value, and an option's value may look like an option.
  EXPECT_EQ(parse_example({"-n", "-1", "/a"}).count, -1);
  EXPECT_EQ(parse_example({"--mode", "-e", "/a"}).mode, "-e");
  // The last value wins.
  EXPECT_EQ(parse_example({"-n", "1", "-n", "2", "/a"}).count, 2);
}

TEST(CliCommandParser, Help) {
  EXPECT_TRUE(asks_for_help({"--help"}));
  EXPECT_TRUE(asks_for_help({"-h"}));
  EXPECT_TRUE(asks_for_help({"-e", "-h", "/a"}));
  // Help is not hidden by what comes after it: a bad value, an option without its value, a missing PATH.
  EXPECT_TRUE(asks_for_help({"-h", "-n", "x"}));
  EXPECT_TRUE(asks_for_help({"-h", "-n"}));
  EXPECT_FALSE(asks_for_help({"/a", "-h"}));  // after PATH it is DATA
  EXPECT_EQ(parse_example({"/a", "-h"}).data, "-h");
}

TEST(CliCommandParser, ErrorsNameTheOptionOrArgument) {
  EXPECT_EQ(usage_message({"-x", "/a"}), "unknown option -x");
  EXPECT_EQ(usage_message({"-ex", "/a"}), "unknown option -x");
  EXPECT_EQ(usage_message({"-xe", "/a"}), "unknown option -x");
  EXPECT_EQ(usage_message({"--nope", "/a"}), "unknown option --nope");
  EXPECT_EQ(usage_message({"--nope=1", "/a"}), "unknown option --nope");
  // The unknown option is told first, before a missing PATH or a bad value.
  EXPECT_EQ(usage_message({"-x"}), "unknown option -x");
  EXPECT_EQ(usage_message({"-x", "-n", "abc", "/a"}), "unknown option -x");
  EXPECT_EQ(usage_message({"--count"}), "--count needs a value");
  EXPECT_EQ(usage_message({"-e", "-n"}), "--count needs a value");
  EXPECT_EQ(usage_message({"--ephemeral=1", "/a"}), "--ephemeral takes no value");
  EXPECT_EQ(usage_message({}), "missing PATH (see --help)");
  EXPECT_EQ(usage_message({"-e"}), "missing PATH (see --help)");
  EXPECT_EQ(usage_message({"/a", "b", "c", "d"}), "unexpected argument 'c'");
  EXPECT_EQ(usage_message({"-n", "abc", "/a"}), "-n: 'abc' is not an integer in [-5, 100]");
  EXPECT_EQ(usage_message({"--count=101", "/a"}), "-n: '101' is not an integer in [-5, 100]");
  EXPECT_EQ(usage_message({"-n", "010", "/a"}), "");  // decimal, not octal
  EXPECT_EQ(parse_example({"-n", "010", "/a"}).count, 10);
  EXPECT_EQ(usage_message({"-n", "0x10", "/a"}), "-n: '0x10' is not an integer in [-5, 100]");
}

TEST(CliCommandParser, ChoicesSecondsRepeatedOptionsAndTheRest) {
  enum class mode { once, persistent };
  mode m = mode::once;
  std::optional<double> timeout;
  std::vector<std::string> rules;
  std::vector<std::string> rest;
  command_parser parser;
  parser.choice("--mode", m, {{"once", mode::once}, {"persistent", mode::persistent}});
  parser.seconds("-t,--timeout", timeout);
  parser.repeatable("--rule", rules);
  parser.positionals("ARG", rest);
  parser.parse(std::vector<std::string>{"--mode", "persistent", "-t0.5", "--rule", "a b", "--rule=c", "x", "-y", "--"});
  EXPECT_EQ(m, mode::persistent);
  EXPECT_EQ(timeout, 0.5);
  EXPECT_EQ(rules, (std::vector<std::string>{"a b", "c"}));  // one value each: "x" is not a rule
  EXPECT_EQ(rest, (std::vector<std::string>{"x", "-y", "--"}));

  const auto message = [](const std::vector<std::string>& args) -> std::string {
    mode unused = mode::once;
    std::optional<double> seconds;
    command_parser p;
    p.choice("--mode", unused, {{"once", mode::once}, {"persistent", mode::persistent}});
    p.seconds("-t,--timeout", seconds);
    try {
      p.parse(args);
    } catch (const usage_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message({"--mode", "sometimes"}), "--mode: 'sometimes' is not once or persistent");
  EXPECT_EQ(message({"--timeout", "-1"}), "-t: '-1' is not a number of seconds");
  EXPECT_EQ(message({"x"}), "unexpected argument 'x'");
  EXPECT_EQ(message({}), "");
}

TEST(CliValues, Numbers) {
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

TEST(CliValues, Paths) {
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

TEST(CliGlobalOptions, OptionsEndAtTheCommand) {
  const std::array<const char*, 10> argv = {"--auth", "a:b", "--auth=c:d", "-vt",    "300",
                                            "create", "-e",  "/a",         "--json", "-v"};
  const auto r = parse_global_options(argv, nullptr);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.options.auth, (std::vector<std::string>{"a:b", "c:d"}));
  EXPECT_TRUE(r.options.verbose);
  EXPECT_EQ(r.options.session_timeout.count(), 300);
  EXPECT_FALSE(r.options.json);  // the command's argument
  EXPECT_EQ(r.options.connect_timeout, std::nullopt);
  EXPECT_EQ(r.options.command, (std::vector<std::string>{"create", "-e", "/a", "--json", "-v"}));
  const std::array<const char*, 4> dashes = {"--connect-timeout=20", "--", "-x", "/a"};
  const auto d = parse_global_options(dashes, nullptr);
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.connect_timeout, std::chrono::milliseconds(20));
  EXPECT_EQ(d.options.command, (std::vector<std::string>{"-x", "/a"}));
}

TEST(CliGlobalOptions, RequestTimeoutAndReadOnly) {
  const std::array<const char*, 5> argv = {"--request-timeout", "250", "--read-only", "get", "/a"};
  const auto r = parse_global_options(argv, nullptr);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.options.request_timeout, std::chrono::milliseconds(250));
  EXPECT_TRUE(r.options.read_only);
  const std::array<const char*, 2> none = {"get", "/a"};
  const auto d = parse_global_options(none, nullptr);
  EXPECT_EQ(d.options.request_timeout, std::nullopt);
  EXPECT_FALSE(d.options.read_only);
  const std::array<const char*, 3> zero = {"--request-timeout=0", "get", "/a"};
  EXPECT_EQ(parse_global_options(zero, nullptr).error,
            "--request-timeout: '0' is not a positive number of milliseconds");
}

TEST(CliGlobalOptions, HelpVersionAndErrors) {
  const auto parse = [](std::vector<const char*> argv) { return parse_global_options(argv, nullptr); };
  EXPECT_TRUE(parse({"--help"}).options.help);
  EXPECT_TRUE(parse({"-s", "h:1", "-h"}).options.help);
  EXPECT_TRUE(parse({"--version"}).options.version);
  EXPECT_FALSE(parse({"get", "-h"}).options.help);  // the command's
  EXPECT_EQ(parse({"--no-such-option", "get", "/"}).error, "unknown option --no-such-option");
  EXPECT_EQ(parse({"-t", "abc", "get"}).error, "--session-timeout: 'abc' is not a positive number of milliseconds");
  EXPECT_EQ(parse({"--connect-timeout", "0", "get"}).error,
            "--connect-timeout: '0' is not a positive number of milliseconds");
  EXPECT_EQ(parse({"-t", "2147483648", "get"}).error,
            "--session-timeout: '2147483648' is not a positive number of milliseconds");
  EXPECT_EQ(parse({"--auth", "digest", "get"}).error, "--auth: 'digest' is not SCHEME:CREDENTIALS");
  EXPECT_EQ(parse({"--auth", ":x", "get"}).error, "--auth: ':x' is not SCHEME:CREDENTIALS");
  EXPECT_EQ(parse({"-s"}).error, "--servers needs a value");
}

TEST(CliGlobalOptions, SaslSplitsAtTheFirstColonAndRejectsMalformedValuesWithoutEchoingThem) {
  const auto parse = [](std::vector<const char*> argv) { return parse_global_options(argv, nullptr); };
  const auto ok = parse({"--sasl", "alice:pa:ss", "get", "/"});
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.options.sasl_user, std::optional<std::string>("alice"));
  EXPECT_EQ(ok.options.sasl_password, "pa:ss");
  EXPECT_EQ(parse({"--sasl=bob:", "get"}).options.sasl_password, "");
  EXPECT_FALSE(parse({"get"}).options.sasl_user.has_value());
  EXPECT_EQ(parse({"--sasl", "alice", "get"}).error,
            "--sasl: expected USER:PASSWORD with a non-empty user (got no ':')");
  const auto empty_user = parse({"--sasl", ":secret", "get"});
  EXPECT_EQ(empty_user.error, "--sasl: expected USER:PASSWORD with a non-empty user (got an empty user)");
  EXPECT_EQ(empty_user.error.find("secret"), std::string::npos);
  EXPECT_EQ(parse({"--sasl"}).error, "--sasl needs a value");
}

std::string json_string(const std::string& text) { return json_text(json(text)); }

TEST(CliJson, Strings) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(json_string("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x00\x01\x1f", 3)), "\"\\u0000\\u0001\\u001f\"");
  EXPECT_EQ(json_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  // DEL needs no escape in JSON: written as is.
  EXPECT_EQ(json_string("\x7f"), "\"\x7f\"");
  // Bytes that are not UTF-8 become U+FFFD (written as UTF-8), never an exception: the line stays valid JSON.
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(json_string("a\xff"
                        "b"),
            "\"a" + replacement + "b\"");
  EXPECT_EQ(json_string("\xc3"), "\"" + replacement + "\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"),
            "\"" + replacement + replacement + replacement + "\"");  // an encoded surrogate
  EXPECT_EQ(json::parse(json_string("x\xc3\xa9\xff")), json("x\xc3\xa9" + replacement));
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
  EXPECT_EQ(json_text(json::object()), "{}");
  // Keys in insertion order, no spaces.
  EXPECT_EQ(json_text({{"b", std::int64_t{-1}}, {"a", "x"}, {"c", true}, {"d", json::object()}, {"e", nullptr}}),
            "{\"b\":-1,\"a\":\"x\",\"c\":true,\"d\":{},\"e\":null}");
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
  EXPECT_EQ(json_text(stat_json(s)),
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

// The command line says what the library says: each line's text is the summary that opens the library's message
// (one owner per message), and only "parent does not exist" for a create is the command line's own.
TEST(CliErrors, LinesDeriveFromTheLibrarysMessages) {
  for (const std::error_code ec :
       {std::error_code(proto::server_error::no_node), std::error_code(proto::server_error::bad_version),
        std::error_code(proto::server_error::bad_arguments), std::error_code(proto::server_error::unimplemented),
        std::error_code(client_error::connection_loss), std::error_code(client_error::operation_timeout),
        std::error_code(client_error::request_too_large), std::error_code(client_error::frame_too_large),
        std::error_code(client_error::sasl_failed), std::error_code(client_errc::connect_timeout),
        std::error_code(client_errc::host_not_found), std::error_code(client_errc::closed_before_handshake)}) {
    const std::string text = describe(ec, "get");
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(ec.message().rfind(text, 0), 0U) << "'" << text << "' does not open '" << ec.message() << "'";
    EXPECT_LT(text.size(), ec.message().size()) << "the advice is left to the library's message: " << text;
  }
  EXPECT_EQ(error_line("ls", "/big", client_error::frame_too_large),
            "zkwire: ls: /big: reply larger than the client accepts (client_options::max_frame_size, 64 MiB by "
            "default; the CLI's --max-frame-size) (MARSHALLINGERROR)");
  EXPECT_EQ(exit_status_for(client_error::frame_too_large), 3);
  EXPECT_EQ(error_line("get", "no-such-host.invalid:2181", client_errc::host_not_found),
            "zkwire: get: no-such-host.invalid:2181: host name not found (CONNECTIONLOSS)");
  EXPECT_EQ(exit_status_for(client_errc::host_not_found), 4);
  // At maxClientCnxns the line names the limit (the summary before the library's advice).
  EXPECT_THAT(error_line("get", "127.0.0.1:2181", client_errc::closed_before_handshake),
              ::testing::HasSubstr("maxClientCnxns"));
  EXPECT_EQ(exit_status_for(client_errc::closed_before_handshake), 4);
}

}  // namespace
}  // namespace zkwire::cli
