// Other clients through the fault-injection proxy: Kazoo (Debian's python3-kazoo, run with /usr/bin/python3) and
// the Java zkCli (Debian's zookeeper package), through the library proxy and through `zkwire proxy`.
// The create-then-crash case: the proxy lets Kazoo's create through, drops its reply and resets the connection;
// Kazoo must raise ConnectionLoss, reconnect on the same session and find the node exactly once.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "chaos_support.hpp"
#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/kazoo.hpp"
#include "support/requirements.hpp"
#include "support/temp_dir.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* zk_cli = "/usr/share/zookeeper/bin/zkCli.sh";

class interop : public chaos_test<standalone_test> {
 protected:
  // Runs the Kazoo script against `hosts` and returns its output (JSON on the last line).
  static std::string run_kazoo_script(const std::string& hosts, const std::string& path) {
    const auto r = run_process({system_python, ZKWIRE_KAZOO_SCRIPT, hosts, path});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    return r.out + r.err;
  }

  void expect_create_then_crash_outcome(const std::string& output) {
    EXPECT_NE(output.find(R"("create": "connection_loss")"), std::string::npos) << output;
    EXPECT_NE(output.find(R"("exists": true)"), std::string::npos) << output;
    EXPECT_NE(output.find(R"("children": ["n"])"), std::string::npos) << output;
    EXPECT_NE(output.find(R"("same_session": true)"), std::string::npos) << output;
  }

  temp_dir dir_{"zkwire-interop"};
};

TEST_F(interop, KazooSeesConnectionLossAndTheNodeOnceThroughTheProxyLibrary) {
  ZKWIRE_REQUIRE(have_kazoo(), "python3-kazoo for /usr/bin/python3");
  auto o = ops(make_direct_client());
  ASSERT_FALSE(o.create(root()).first);
  const auto rule = proxies_->add_rule("reply op=create,create2 path=" + root() + "/n nth=1 action=drop-then-rst");
  expect_create_then_crash_outcome(run_kazoo_script(proxies_->connect_string(), root() + "/n"));
  EXPECT_EQ(proxies_->fired(rule), 1U);
  EXPECT_GE(proxies_->at(0).accepted(), 2U) << "Kazoo did not reconnect through the proxy";
}

#ifdef ZKWIRE_CLI_PATH
// `zkwire proxy` as a process: prints its address, applies --rule, logs JSON lines.
class proxy_command {
 public:
  proxy_command(const std::filesystem::path& dir, const std::string& upstream, const std::vector<std::string>& rules)
      : output_(dir / "proxy.out"), log_(dir / "frames.jsonl") {
    std::vector<std::string> argv{ZKWIRE_CLI_PATH, "proxy",  "--listen", "127.0.0.1:0", "--upstream",
                                  upstream,        "--seed", "1",        "--log",       log_.string()};
    for (const auto& r : rules) {
      argv.push_back("--rule");
      argv.push_back(r);
    }
    child_ = child_process::spawn(argv, output_);
    const std::regex address_line(R"((^|\n)(127\.0\.0\.1:[0-9]+)\n)");
    // Stops early (and fails) if the command exits without printing an address.
    EXPECT_TRUE(eventually(
        [&] {
          std::smatch m;
          const std::string text = child_.out();
          if (std::regex_search(text, m, address_line)) address_ = m[2];
          return !address_.empty() || !child_.running();
        },
        30s, "zkwire proxy printing its address", [&] { return child_.out(); }));
    EXPECT_FALSE(address_.empty()) << "zkwire proxy exited: " << child_.out();
  }
  ~proxy_command() { child_.terminate(5s); }
  proxy_command(const proxy_command&) = delete;
  proxy_command& operator=(const proxy_command&) = delete;
  proxy_command(proxy_command&&) = delete;
  proxy_command& operator=(proxy_command&&) = delete;

  [[nodiscard]] const std::string& address() const { return address_; }
  [[nodiscard]] std::string log() const { return read_file(log_); }

 private:
  std::filesystem::path output_;
  std::filesystem::path log_;
  child_process child_;
  std::string address_;
};

TEST_F(interop, KazooThroughTheZkwireProxyCommand) {
  ZKWIRE_REQUIRE(have_kazoo(), "python3-kazoo for /usr/bin/python3");
  auto o = ops(make_direct_client());
  ASSERT_FALSE(o.create(root()).first);
  proxy_command proxy(dir_.path(), cluster().address(0),
                      {"reply op=create,create2 path=" + root() + "/n nth=1 action=drop-then-rst"});
  ASSERT_FALSE(proxy.address().empty());
  expect_create_then_crash_outcome(run_kazoo_script(proxy.address(), root() + "/n"));
  const std::string log = proxy.log();
  EXPECT_NE(log.find(R"("dir":"request","op":"connect")"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("action":"drop-then-rst")"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("op":"closeSession")"), std::string::npos) << log;
}

TEST_F(interop, JavaZkCliThroughTheZkwireProxyCommand) {
  ZKWIRE_REQUIRE(std::filesystem::exists(zk_cli), zk_cli);
  proxy_command proxy(dir_.path(), cluster().address(0), {"request op=create,create2 p=1 action=pass"});
  ASSERT_FALSE(proxy.address().empty());
  const auto out = dir_.path() / "zkcli.log";
  auto child = child_process::spawn({"/bin/sh", zk_cli, "-server", proxy.address(), "create", root(), "java"}, out);
  ASSERT_TRUE(child.wait_for(60s)) << read_file(out);
  auto o = ops(make_direct_client());
  const auto [ec, data] = o.get(root());
  ASSERT_FALSE(ec) << ec.message() << "\n" << read_file(out);
  EXPECT_EQ(data.data, "java");
  const std::string log = proxy.log();
  // The Java client's create went through the proxy, recognised with its path and counted by the rule.
  EXPECT_NE(log.find(R"("path":")" + root() + R"(","len":)"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("rule":1,"action":"pass")"), std::string::npos) << log;
}
#endif

}  // namespace
}  // namespace zkwire::test
