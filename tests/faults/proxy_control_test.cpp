// `zkwire proxy --control` as a process in front of real ZooKeeper servers, driven over HTTP the way a test suite
// in another language would (cpp-httplib's client here, curl elsewhere): rules added and removed mid-session take
// effect on the open connection, --rule rules are listed, bad rules change nothing, /stats counts what went
// through, and one proxy in front of a whole ensemble cuts only the member a rule names.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "chaos_support.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// `zkwire proxy` with one --listen/--upstream pair per upstream and --control on a free port.
class control_proxy {
 public:
  control_proxy(const std::filesystem::path& dir, const std::vector<std::string>& upstreams,
                const std::vector<std::string>& rules = {})
      : output_(dir / "proxy.out"), log_(dir / "frames.jsonl") {
    std::vector<std::string> argv{ZKWIRE_CLI_PATH, "proxy", "--control", "127.0.0.1:0", "--log", log_.string()};
    for (const auto& upstream : upstreams) {
      argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--upstream", upstream});
    }
    for (const auto& r : rules) argv.insert(argv.end(), {"--rule", r});
    child_ = child_process::spawn(argv, output_);
    // stdout: one address line per member, then "control http://HOST:PORT" (stderr goes to the same file).
    const std::regex address_line(R"((^|\n)(127\.0\.0\.1:[0-9]+)(?=\n))");
    const std::regex control_line(R"((^|\n)control (http://127\.0\.0\.1:[0-9]+)\n)");
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && child_.running()) {
      const std::string text = read_file(output_);
      std::smatch control;
      if (std::regex_search(text, control, control_line)) {
        const std::string before = control.prefix().str() + "\n";
        for (std::sregex_iterator it(before.begin(), before.end(), address_line), end; it != end; ++it) {
          addresses_.push_back((*it)[2]);
        }
        http_ = std::make_unique<httplib::Client>(control[2].str());
        http_->set_connection_timeout(10s);
        http_->set_read_timeout(10s);
        return;
      }
      std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "zkwire proxy printed no control line: " << read_file(output_);
  }
  ~control_proxy() { child_.terminate(5s); }
  control_proxy(const control_proxy&) = delete;
  control_proxy& operator=(const control_proxy&) = delete;
  control_proxy(control_proxy&&) = delete;
  control_proxy& operator=(control_proxy&&) = delete;

  [[nodiscard]] bool ready() const { return http_ != nullptr; }
  [[nodiscard]] const std::vector<std::string>& addresses() const { return addresses_; }
  [[nodiscard]] std::string output() const { return read_file(output_); }
  [[nodiscard]] std::string log() const { return read_file(log_); }

  struct reply {
    int status = 0;  // 0: no HTTP answer at all
    std::string body;
    [[nodiscard]] json parsed() const { return json::parse(body); }
  };
  reply get(const std::string& path) { return answer(http_->Get(path.c_str())); }
  reply post(const std::string& path, const std::string& body) {
    return answer(http_->Post(path.c_str(), body, "text/plain"));
  }
  reply del(const std::string& path) { return answer(http_->Delete(path.c_str())); }

  // POST /rules that must succeed; the new rule's id.
  std::uint64_t add_rule(const std::string& text) {
    const reply r = post("/rules", text);
    EXPECT_EQ(r.status, 201) << text << ": " << r.body;
    return r.status == 201 ? r.parsed().at("id").get<std::uint64_t>() : 0;
  }
  // The "rules" entry of GET /stats for `id` (null if absent).
  json rule_stats(std::uint64_t id) {
    const json stats = get("/stats").parsed();
    for (const auto& r : stats.at("rules")) {
      if (r.at("id") == id) return r;
    }
    return nullptr;
  }

 private:
  static reply answer(const httplib::Result& result) {
    if (!result) return {};
    return {result->status, result->body};
  }

  std::filesystem::path output_;
  std::filesystem::path log_;
  child_process child_;
  std::vector<std::string> addresses_;
  std::unique_ptr<httplib::Client> http_;
};

template <class ClusterFixture>
class control_test : public chaos_test<ClusterFixture> {
 protected:
  // A client of `connect_string` on the fixture's loop, retrying hosts every second.
  client& client_of(const std::string& connect_string, std::chrono::milliseconds session_timeout) {
    return *this->loop_.on_loop([&] {
      auto options = client_options_for(connect_string, session_timeout);
      options.host_connect_timeout = 1s;
      this->clients_.push_back(std::make_unique<client>(this->loop_.io().get_executor(), std::move(options)));
      return this->clients_.back().get();
    });
  }

  temp_dir dir_{"zkwire-proxy-control"};
};

using standalone_control = control_test<standalone_test>;
using ensemble_control = control_test<ensemble_test>;

TEST_F(standalone_control, RulesFromTheCommandLineAreListedAndBadRulesChangeNothing) {
  control_proxy proxy(dir_.path(), {cluster().address(0)}, {"reply op=create2 nth=1 action=drop-then-rst"});
  ASSERT_TRUE(proxy.ready());
  ASSERT_EQ(proxy.addresses().size(), 1U);
  auto rules = proxy.get("/rules");
  ASSERT_EQ(rules.status, 200) << rules.body;
  EXPECT_EQ(rules.parsed(), json::parse(R"([{"id":1,"rule":"reply op=create2 nth=1 action=drop-then-rst",
                                             "fired":0,"matched":0}])"));

  const auto bad = proxy.post("/rules", "request op=nosuchop action=drop");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.parsed().at("error").get<std::string>().find("nosuchop"), std::string::npos) << bad.body;
  EXPECT_EQ(proxy.post("/rules", "").status, 400);
  EXPECT_EQ(proxy.get("/rules").body, rules.body) << "a rejected rule must leave the table as it was";

  const auto id = proxy.add_rule(R"({"rule":"member=1 request op=getData action=pass"})");
  EXPECT_EQ(id, 2U);
  EXPECT_EQ(proxy.get("/rules").parsed().size(), 2U);
  EXPECT_EQ(proxy.del("/rules/7").status, 404);
  EXPECT_EQ(proxy.del("/rules/x").status, 404);
  EXPECT_EQ(proxy.del("/rules/1").status, 204);
  EXPECT_EQ(proxy.del("/rules/1").status, 404);
  EXPECT_EQ(proxy.get("/rules").parsed().at(0).at("id"), 2);
  EXPECT_EQ(proxy.del("/rules").status, 204);
  EXPECT_EQ(proxy.get("/rules").parsed(), json::array());
  EXPECT_EQ(proxy.get("/nothing").status, 404);
  EXPECT_EQ(proxy.post("/stats", "x").status, 405);
}

TEST_F(standalone_control, ADropRuleAddedMidSessionLosesTheConnectionAndDeletingItHeals) {
  control_proxy proxy(dir_.path(), {cluster().address(0)});
  ASSERT_TRUE(proxy.ready());
  // 15 s: the client gives up on the silent connection after 10 s, which leaves the session 5 s to be resumed.
  auto& c = client_of(proxy.addresses().at(0), 15s);
  auto o = ops(c);
  ASSERT_FALSE(o.connect());
  ASSERT_FALSE(o.create(root(), "x").first);
  const auto session = o.session();

  // Every request from now on, pings and reconnect handshakes included, is dropped on the open connection.
  const auto drop = proxy.add_rule("request action=drop");
  const auto lost = o.get(root());
  EXPECT_EQ(lost.first, make_error_code(client_error::connection_loss)) << lost.first.message();
  const json dropped = proxy.rule_stats(drop);
  EXPECT_GE(dropped.at("fired").get<int>(), 1) << dropped;

  ASSERT_EQ(proxy.del("/rules/" + std::to_string(drop)).status, 204);
  const json at_delete = proxy.rule_stats(drop);
  // A read made now waits only for the reconnect attempt under way, which may be one whose handshake the rule
  // dropped (docs/protocol.md#without-a-connection): the read follows the reconnect, as a caller's retry would.
  ASSERT_FALSE(o.connect()) << proxy.log().substr(0, 4000);
  const auto [ec, data] = o.get(root());
  ASSERT_FALSE(ec) << ec.message() << "\n" << proxy.log().substr(0, 4000);
  EXPECT_EQ(data.data, "x");
  EXPECT_EQ(o.session(), session) << "the session should have been resumed through the proxy";

  const json stats = proxy.get("/stats").parsed();
  EXPECT_GE(stats.at("connections").get<int>(), 2) << "the client reconnected through the proxy: " << stats;
  EXPECT_GE(stats.at("open").get<int>(), 1) << stats;
  EXPECT_GT(stats.at("requests").at("frames").get<int>(), dropped.at("fired").get<int>()) << stats;
  EXPECT_GT(stats.at("replies").at("bytes").get<int>(), 0) << stats;
  EXPECT_EQ(stats.at("rules").at(0).at("removed"), true) << stats;
  EXPECT_EQ(stats.at("rules").at(0).at("fired"), at_delete.at("fired"))
      << "a removed rule stops firing (the frames after the DELETE went through): " << stats;
}

TEST_F(standalone_control, StatsCountTheFramesARuleSaw) {
  control_proxy proxy(dir_.path(), {cluster().address(0)});
  ASSERT_TRUE(proxy.ready());
  auto o = ops(client_of(proxy.addresses().at(0), 10s));
  ASSERT_FALSE(o.connect());
  ASSERT_FALSE(o.create(root()).first);
  const auto counted = proxy.add_rule("reply op=getData path=" + root() + " action=pass");
  constexpr int gets = 5;
  for (int i = 0; i < gets; ++i) ASSERT_FALSE(o.get(root()).first);
  const json rule = proxy.rule_stats(counted);
  EXPECT_EQ(rule.at("fired"), gets) << rule;
  EXPECT_EQ(rule.at("matched"), gets) << rule;
  const json stats = proxy.get("/stats").parsed();
  const json& member = stats.at("members").at(0);
  EXPECT_EQ(member.at("listen"), proxy.addresses().at(0));
  EXPECT_EQ(member.at("upstream"), cluster().address(0));
  // handshake + create + gets (+ pings): at least that many each way, and the totals are the member's.
  EXPECT_GE(stats.at("requests").at("frames").get<int>(), 2 + gets) << stats;
  EXPECT_GE(stats.at("replies").at("frames").get<int>(), 2 + gets) << stats;
  EXPECT_EQ(stats.at("requests"), member.at("requests"));
  EXPECT_EQ(stats.at("connections"), 1) << stats;
}

TEST_F(ensemble_control, OneProxyForTheEnsembleCutsOnlyTheNamedMember) {
  std::vector<std::string> upstreams;
  for (std::size_t i = 0; i < cluster().member_count(); ++i) upstreams.push_back(cluster().address(i));
  control_proxy proxy(dir_.path(), upstreams);
  ASSERT_TRUE(proxy.ready());
  ASSERT_EQ(proxy.addresses().size(), upstreams.size()) << proxy.output();

  // One client per member, each knowing only that member's proxy address.
  std::vector<blocking_ops> members;
  for (const auto& address : proxy.addresses()) members.push_back(ops(client_of(address, 6s)));
  for (auto& m : members) ASSERT_FALSE(m.connect());
  ASSERT_FALSE(members[0].create(root()).first);

  const auto cut = proxy.add_rule("member=2 any action=blackhole");
  // A write through member 1 and a read through member 3 go on while member 2's traffic vanishes.
  EXPECT_FALSE(members[0].set(root(), "one"));
  const auto lost = members[1].get(root());
  EXPECT_EQ(lost.first, make_error_code(client_error::connection_loss)) << lost.first.message();
  EXPECT_FALSE(members[2].get(root()).first);
  const json rule = proxy.rule_stats(cut);
  EXPECT_GE(rule.at("fired").get<int>(), 1) << rule;

  // Healed: a new session through member 2's proxy works again.
  ASSERT_EQ(proxy.del("/rules/" + std::to_string(cut)).status, 204);
  auto fresh = ops(client_of(proxy.addresses().at(1), 6s));
  ASSERT_FALSE(fresh.connect());
  const auto [ec, data] = fresh.get(root());
  ASSERT_FALSE(ec) << ec.message();

  const json stats = proxy.get("/stats").parsed();
  ASSERT_EQ(stats.at("members").size(), 3U) << stats;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(stats.at("members").at(i).at("member"), i + 1);
    EXPECT_EQ(stats.at("members").at(i).at("upstream"), upstreams[i]);
    EXPECT_GE(stats.at("members").at(i).at("connections").get<int>(), 1) << stats;
  }
  const std::string log = proxy.log();
  EXPECT_NE(log.find(R"("member":2,"event":"blackhole")"), std::string::npos) << log.substr(0, 4000);
}

}  // namespace
}  // namespace zkwire::test
