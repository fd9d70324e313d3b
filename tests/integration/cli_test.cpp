// The `zkwire` command line (docs/cli.md) against a real ZooKeeper server: the built binary runs as a
// subprocess; its stdout, stderr and exit status are checked, and what it writes is cross-checked with Kazoo.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <initializer_list>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/kazoo.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using test::child_process;
using test::outcome;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class cli_test : public test::standalone_test {
 protected:
  // argv for the CLI with the suite's server and `args`.
  static std::vector<std::string> cli_argv(std::initializer_list<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000"};
    argv.insert(argv.end(), args);
    return argv;
  }
  static outcome zk(std::initializer_list<std::string> args, const std::string& input = {}) {
    return test::run_process(cli_argv(args), input);
  }
  static outcome run_raw(const std::vector<std::string>& argv) { return test::run_process(argv); }
  // A long-running command, its output in files of this test (readable while it runs).
  child_process start(const std::vector<std::string>& argv) {
    const auto n = std::to_string(++started_);
    return child_process::spawn(argv,
                                test::child_stdio{files_.path() / ("out." + n), files_.path() / ("err." + n), {}});
  }
  // Runs `zk set node <n>` (a new value each time) until `watcher` has exited, i.e. has reported what it waited
  // for: the watch is armed some time after the process starts, so one change may come too early.
  ::testing::AssertionResult change_until_reported(child_process& watcher, const std::string& node) {
    int n = 0;
    return test::eventually(
        [&] {
          EXPECT_EQ(zk({"set", node, std::to_string(n++)}).status, 0);
          return !watcher.running();
        },
        std::chrono::seconds(60), "the watch command reporting a change of " + node,
        [&] { return watcher.out() + watcher.err(); });
  }
  // Runs a Python program with Kazoo connected as `zk` to the suite's server.
  static outcome kazoo(const std::string& body) { return test::run_kazoo(connect_string(), body); }
  // Creates root() and returns it.
  std::string make_root() {
    const auto r = zk({"create", root()});
    EXPECT_EQ(r.status, 0) << r.err;
    return root();
  }

 private:
  test::temp_dir files_{"zkwire-cli-"};
  int started_ = 0;
};

TEST_F(cli_test, VersionHelpAndUnknownCommand) {
  const auto version = run_raw({ZKWIRE_CLI_PATH, "--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_THAT(version.out, StartsWith("zkwire "));

  const auto help = run_raw({ZKWIRE_CLI_PATH, "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* name : {"create", "get", "set", "ls", "stat", "rm", "exists", "sync", "watch"}) {
    EXPECT_THAT(help.out, HasSubstr(std::string("\n  ") + name + " ")) << name;
  }

  const auto create_help = run_raw({ZKWIRE_CLI_PATH, "create", "--help"});
  EXPECT_EQ(create_help.status, 0);
  EXPECT_THAT(create_help.out, HasSubstr("create [-e] [-s] [-c] [--ttl MS] [-p] PATH [DATA|-]"));

  const auto unknown = run_raw({ZKWIRE_CLI_PATH, "frobnicate"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_THAT(unknown.err, StartsWith("zkwire: frobnicate: "));

  const auto no_command = run_raw({ZKWIRE_CLI_PATH});
  EXPECT_EQ(no_command.status, 2);
}

TEST_F(cli_test, CreateGetSetStatExistsSync) {
  const std::string node = make_root() + "/n";
  auto r = zk({"create", node, "hello"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, node + "\n");
  EXPECT_EQ(r.err, "");

  r = zk({"get", node});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hello");  // verbatim, no newline

  r = zk({"--json", "get", node});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out,
              StartsWith("{\"path\":\"" + node + "\",\"data\":\"hello\",\"data_base64\":\"aGVsbG8=\",\"stat\":{"));
  EXPECT_THAT(r.out, HasSubstr("\"version\":0,"));

  r = zk({"set", node, "world"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = zk({"--json", "set", "-v", "1", node, "-"}, "from stdin");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"version\":2,"));
  EXPECT_THAT(r.out, HasSubstr("\"dataLength\":10,"));
  EXPECT_EQ(zk({"get", node}).out, "from stdin");

  r = zk({"stat", node});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::regex stat_shape(
      R"(\{"czxid":\d+,"mzxid":\d+,"pzxid":\d+,"ctime":\d+,"mtime":\d+,"version":2,"cversion":0,"aversion":0,)"
      R"("ephemeralOwner":0,"dataLength":10,"numChildren":0\}\n)");
  EXPECT_TRUE(std::regex_match(r.out, stat_shape)) << r.out;

  EXPECT_EQ(zk({"exists", node}).status, 0);
  r = zk({"exists", node + "-missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out + r.err, "");
  r = zk({"sync", node});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");
}

TEST_F(cli_test, ErrorLinesAndExitStatuses) {
  const std::string base = make_root();
  const std::string node = base + "/n";
  ASSERT_EQ(zk({"create", node, "x"}).status, 0);
  ASSERT_EQ(zk({"create", node + "/child"}).status, 0);

  auto r = zk({"get", base + "/missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "zkwire: get: " + base + "/missing: node does not exist (NONODE)\n");

  r = zk({"stat", base + "/missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "zkwire: stat: " + base + "/missing: node does not exist (NONODE)\n");

  r = zk({"create", base + "/no/parent"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "zkwire: create: " + base + "/no/parent: parent does not exist (NONODE)\n");

  r = zk({"create", node});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "zkwire: create: " + node + ": node already exists (NODEEXISTS)\n");

  r = zk({"set", "-v", "7", node, "y"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "zkwire: set: " + node + ": version does not match (BADVERSION)\n");

  r = zk({"rm", "-v", "7", node + "/child"});
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.err, HasSubstr("(BADVERSION)"));

  r = zk({"rm", node});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "zkwire: rm: " + node + ": node has children (NOTEMPTY)\n");

  r = zk({"rm", base + "/missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("(NONODE)"));

  // The node is intact after the refusals.
  EXPECT_EQ(zk({"get", node}).out, "x");
}

TEST_F(cli_test, UsageErrorsSendNothing) {
  const std::string base = root();  // never created: nothing below must appear either
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"create", base + "//a"},
           {"create", base + "/a/"},  // a trailing '/' is only valid with -s
           {"create", "-p", base + "/./a", "x"},
           {"create", "relative"},
           {"create", "-x", base},
           {"create", "-c", "-e", base},
           {"create", "--ttl", "0", base},
           {"set", base},  // DATA missing
           {"set", "-v", "abc", base, "x"},
           {"get", base, "extra"},
           {"ls", base + "/"},
           {"rm", "/"},
           {"watch", "--mode", "sometimes", base},
           {"watch", "-n", "0", base},
       }) {
    std::vector<std::string> argv = cli_argv({});
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run_raw(argv);
    EXPECT_EQ(r.status, 2) << args.front() << " " << args.at(1) << ": " << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, StartsWith("zkwire: " + args.front() + ": "));
  }
  // Nothing was created (and a sequential prefix ending in '/' is a valid path for -s).
  EXPECT_EQ(zk({"exists", base}).status, 1);
  const auto bad_option = run_raw({ZKWIRE_CLI_PATH, "--no-such-option", "get", "/"});
  EXPECT_EQ(bad_option.status, 2);
}

TEST_F(cli_test, ArgumentsThatLookLikeOptions) {
  const std::string base = make_root();
  // After PATH every word is an argument: DATA may start with '-', even look like an option or help.
  auto r = zk({"create", base + "/a", "-e"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(zk({"get", base + "/a"}).out, "-e");
  r = zk({"set", "-v0", base + "/a", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(zk({"get", base + "/a"}).out, "--help");
  // "--" ends the options, "-" is stdin, flags bundle and values attach.
  r = zk({"set", "--version=1", "--", base + "/a", "-"}, "-x");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(zk({"get", base + "/a"}).out, "-x");
  r = zk({"create", "-ps", base + "/deep/n-", "-"}, "");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex(base + "/deep/n-\\d{10}\n"))) << r.out;
  // Before PATH, -h asks for the command's help whatever follows.
  r = zk({"rm", "-r", "-h", base + "/a"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("usage: zkwire [GLOBAL OPTIONS] rm [-v VERSION] [-r] PATH\n"));
  EXPECT_EQ(zk({"exists", base + "/a"}).status, 0);
}

TEST_F(cli_test, UnreachableServerExitsFourWithinTheConnectTimeout) {
  const auto start = std::chrono::steady_clock::now();
  // Port 1 on the loopback: nothing listens there, every connect is refused at once.
  const auto r = run_raw({ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1", "--connect-timeout", "1500", "get", "/x"});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("zkwire: get: 127.0.0.1:1: "));
  EXPECT_THAT(r.err, HasSubstr("(CONNECTIONLOSS)\n"));
  EXPECT_GE(elapsed, std::chrono::milliseconds(1400));
  EXPECT_LT(elapsed, std::chrono::seconds(6));

  const auto bad_servers = run_raw({ZKWIRE_CLI_PATH, "-s", "127.0.0.1:99999", "get", "/x"});
  EXPECT_EQ(bad_servers.status, 2);
}

TEST_F(cli_test, SequentialEphemeralWithParents) {
  const std::string dir = root() + "/locks/deep";
  auto r = zk({"create", "-p", "-s", "-e", dir + "/n-"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex(dir + "/n-\\d{10}\n"))) << r.out;
  // Parents are persistent; the ephemeral node died with the command's session.
  EXPECT_EQ(zk({"exists", dir}).status, 0);
  EXPECT_EQ(zk({"exists", r.out.substr(0, r.out.size() - 1)}).status, 1);

  // A sequential prefix ending in '/' gets the bare counter.
  r = zk({"create", "-s", dir + "/"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex(dir + "/\\d{10}\n"))) << r.out;

  // -p with every parent present, and -p over a parent that already exists.
  r = zk({"create", "-p", root() + "/locks/other", "v"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(zk({"get", root() + "/locks/other"}).out, "v");
  r = zk({"create", "-p", root() + "/locks/other"});
  EXPECT_EQ(r.status, 3);  // the node itself existing is still NODEEXISTS
  EXPECT_THAT(r.err, HasSubstr("(NODEEXISTS)"));

  // Container and --json output.
  r = zk({"--json", "create", "-c", root() + "/box"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"path\":\"" + root() + "/box\",\"stat\":{\"czxid\":"));
}

TEST_F(cli_test, LsSortedAndRecursiveOrder) {
  const std::string base = make_root();
  for (const char* p : {"/b", "/a", "/c", "/a/z", "/a/y", "/a/y/1", "/c/x"}) {
    ASSERT_EQ(zk({"create", base + p}).status, 0) << p;
  }
  auto r = zk({"ls", base});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a\nb\nc\n");

  r = zk({"ls", "-R", base});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, base + "\n" + base + "/a\n" + base + "/a/y\n" + base + "/a/y/1\n" + base + "/a/z\n" + base + "/b\n" +
                       base + "/c\n" + base + "/c/x\n");

  r = zk({"ls", base + "/b"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");

  r = zk({"--json", "ls", base + "/c"});
  EXPECT_EQ(r.out, "{\"name\":\"x\",\"path\":\"" + base + "/c/x\"}\n");

  r = zk({"ls", "-R", base + "/missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("(NONODE)"));
}

TEST_F(cli_test, RecursiveRemove) {
  const std::string base = make_root();
  for (const char* p : {"/t", "/t/a", "/t/a/b", "/t/a/b/c", "/t/d", "/keep"}) {
    ASSERT_EQ(zk({"create", base + p}).status, 0) << p;
  }
  auto r = zk({"rm", "-r", "-v", "5", base + "/t"});
  EXPECT_EQ(r.status, 3);  // the version is checked before anything is deleted
  EXPECT_EQ(zk({"exists", base + "/t/a/b/c"}).status, 0);

  r = zk({"rm", "-r", base + "/t"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_EQ(zk({"exists", base + "/t"}).status, 1);
  EXPECT_EQ(zk({"ls", base}).out, "keep\n");

  r = zk({"rm", "-r", base + "/t"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("(NONODE)"));

  r = zk({"rm", "-v", "0", base + "/keep"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(cli_test, BinaryDataVerbatimAndBase64) {
  const std::string node = make_root() + "/bin";
  const std::string bytes("\x00\xff\x80\n\x01zk\"\\", 9);
  auto r = zk({"create", node, "-"}, bytes);
  ASSERT_EQ(r.status, 0) << r.err;

  r = zk({"get", node});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, bytes);

  r = zk({"--json", "get", node});
  EXPECT_EQ(r.status, 0) << r.err;
  // Not valid UTF-8: no "data" key, only base64.
  EXPECT_THAT(r.out, StartsWith("{\"path\":\"" + node + "\",\"data_base64\":\"AP+ACgF6ayJc\",\"stat\":{"));

  // Valid UTF-8 with characters JSON must escape.
  ASSERT_EQ(zk({"set", node, "-"}, "line\n\"q\"\t\xc3\xa9").status, 0);
  r = zk({"--json", "get", node});
  EXPECT_THAT(r.out, HasSubstr("\"data\":\"line\\n\\\"q\\\"\\t\xc3\xa9\""));

  // Empty data.
  ASSERT_EQ(zk({"create", node + "/empty"}).status, 0);
  r = zk({"--json", "get", node + "/empty"});
  EXPECT_THAT(r.out, HasSubstr("\"data\":\"\",\"data_base64\":\"\","));
}

TEST_F(cli_test, WatchSeesAChangeMadeByAnotherCommand) {
  const std::string node = make_root() + "/w";
  ASSERT_EQ(zk({"create", node, "0"}).status, 0);

  auto watcher = start(cli_argv({"watch", "-n", "1", "--timeout", "30", node}));
  EXPECT_TRUE(change_until_reported(watcher, node));
  const auto r = watcher.finish();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"type\":\"NodeDataChanged\",\"path\":\"" + node + "\"}\n");

  // A persistent recursive watch counts events below the node.
  auto recursive = start(cli_argv({"watch", "--mode", "recursive", "-n", "2", "--timeout", "30", node}));
  EXPECT_TRUE(test::eventually(
      [&] {
        EXPECT_EQ(zk({"create", "-s", node + "/c-"}).status, 0);
        return !recursive.running();
      },
      std::chrono::seconds(60), "the recursive watch reporting two creations"));
  const auto rr = recursive.finish();
  EXPECT_EQ(rr.status, 0) << rr.err;
  EXPECT_TRUE(
      std::regex_match(rr.out, std::regex(R"((\{"type":"NodeCreated","path":")" + node + R"(/c-\d{10}"\}\n){2})")))
      << rr.out;

  // No event: exit 1 at the timeout.
  const auto start = std::chrono::steady_clock::now();
  const auto quiet = zk({"watch", "--mode", "persistent", "--timeout", "0.5", node + "/nothing"});
  EXPECT_EQ(quiet.status, 1) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST_F(cli_test, WatchPrintsSessionChangesWithoutCountingThem) {
  const std::string node = make_root() + "/s";
  ASSERT_EQ(zk({"create", node}).status, 0);
  auto watcher = start({ZKWIRE_CLI_PATH, "-s", connect_string(), "-t", "20000", "watch", "--mode", "persistent", "-n",
                        "1", "--timeout", "90", node});
  ASSERT_TRUE(test::eventually([&] { return cluster().four_letter(0, "wchp").find(node) != std::string::npos; },
                               std::chrono::seconds(30), "the server holding the persistent watch"));
  // Frozen until the client has noticed (its read timeout, 2/3 of the session timeout, prints Disconnected), but
  // not for the whole session timeout: the client then resumes the session once the server runs again. 16 s is
  // past the read timeout (13.3 s at the latest) and short of the session timeout (20 s), with seconds to spare on
  // both sides for a busy machine (with 10 s and 8 s, a sanitized CLI beside other tests missed the 1.3 s margin).
  cluster().pause(0);
  const auto disconnected = test::eventually([&] { return watcher.out().find("Disconnected") != std::string::npos; },
                                             std::chrono::seconds(16), "the watch command printing Disconnected",
                                             [&] { return watcher.out(); });
  cluster().resume(0);
  ASSERT_TRUE(disconnected);
  EXPECT_TRUE(change_until_reported(watcher, node));
  const auto r = watcher.finish();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"state\":\"Disconnected\"}\n{\"state\":\"SyncConnected\"}\n{\"type\":\"NodeDataChanged\",\"path\":\"" +
                node + "\"}\n");
}

TEST_F(cli_test, KazooSeesWhatTheCliWroteAndViceVersa) {
  const std::string base = make_root();
  const std::string bytes(
      "\x00\x01\xfe\xff"
      "data",
      8);
  ASSERT_EQ(zk({"create", base + "/from-cli", "-"}, bytes).status, 0);
  ASSERT_EQ(zk({"create", "-s", base + "/seq-"}).status, 0);

  auto k = kazoo("    data, stat = zk.get('" + base +
                 "/from-cli')\n"
                 "    print(data.hex(), stat.version, stat.dataLength)\n"
                 "    print(','.join(sorted(zk.get_children('" +
                 base +
                 "'))))\n"
                 "    zk.create('" +
                 base +
                 "/from-kazoo', b'k\\x00z')\n"
                 "    zk.set('" +
                 base + "/from-cli', b'changed')\n");
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_EQ(k.out, "0001feff64617461 0 8\nfrom-cli,seq-0000000001\n");

  EXPECT_EQ(zk({"get", base + "/from-kazoo"}).out, std::string("k\0z", 3));
  EXPECT_EQ(zk({"get", base + "/from-cli"}).out, "changed");
  EXPECT_EQ(zk({"ls", base}).out, "from-cli\nfrom-kazoo\nseq-0000000001\n");

  ASSERT_EQ(zk({"rm", "-r", base}).status, 0);
  k = kazoo("    print(zk.exists('" + base + "') is None)\n");
  EXPECT_EQ(k.out, "True\n") << k.err;
}

}  // namespace
}  // namespace zkwire
