// The simulated server against a real ZooKeeper 3.8 server: the same operation sequences (scripted, and seeded
// random ones) go to both, frame by frame, and the transcripts — results, errors, stats, zxid accounting, watch
// events — must be equal, so the model cannot drift into fiction.
//
// What is normalised before comparing: zxids become offsets from the first reply's zxid (so the model must consume
// zxids exactly like the server: sessions, failed writes, multis), ctime/mtime are dropped, ephemeral owners become
// the index of the script's session, children are sorted (both servers list them in no particular order).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <sstream>

#include "server.hpp"
#include "support/zk_test.hpp"
#include "text.hpp"
#include "wire_peer.hpp"

namespace zkwire::sim {
namespace {

using proto::op_code;
using testing::byte_link;
using testing::call_result;
using testing::sim_link;
using testing::wire_peer;

// A blocking TCP connection to a real server; receive() waits up to 10 s for the first bytes.
class socket_link final : public byte_link {
 public:
  explicit socket_link(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) closed_ = true;
  }
  socket_link(const socket_link&) = delete;
  socket_link& operator=(const socket_link&) = delete;
  socket_link(socket_link&&) = delete;
  socket_link& operator=(socket_link&&) = delete;
  ~socket_link() override {
    if (fd_ >= 0) ::close(fd_);
  }
  void send(std::string_view bytes) override {
    while (!bytes.empty() && !closed_) {
      const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        closed_ = true;
        return;
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  std::string receive() override {
    if (closed_) return {};
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 10'000) <= 0) return {};
    char buf[65536];
    const auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      closed_ = true;
      return {};
    }
    return {buf, static_cast<std::size_t>(n)};
  }
  [[nodiscard]] bool closed() const override { return closed_; }

 private:
  int fd_;
  bool closed_ = false;
};

// One side of the comparison: sessions on the real server or on the model, and the transcript of what they saw.
class target {
 public:
  using link_factory = std::function<std::unique_ptr<byte_link>()>;
  explicit target(link_factory make) : make_(std::move(make)) {}

  void connect(std::size_t i) {
    if (sessions_.size() <= i) sessions_.resize(i + 1);
    auto& s = sessions_[i];
    s.link = make_();
    s.peer = std::make_unique<wire_peer>(*s.link);
    const auto response = s.peer->connect(10'000, s.id, s.passwd, last_zxid_);
    ASSERT_TRUE(response) << "no ConnectResponse";
    if (s.id == 0) owners_[response->session_id] = i;
    s.id = response->session_id;
    s.passwd = response->passwd;
    log(cat("c", i, " connected timeout=", response->timeout));
  }

  // Drops the connection (the session lives on) and resumes the session on a new one.
  void reconnect(std::size_t i) {
    sessions_.at(i).peer.reset();
    sessions_.at(i).link.reset();
    connect(i);
  }

  template <class Body>
  void call(std::size_t i, op_code op, const Body& body) {
    auto& s = sessions_.at(i);
    const std::int32_t xid = op == op_code::auth ? proto::special_xid::auth : 0;
    const auto result = s.peer->call(op, body, xid);
    std::ostringstream line;
    line << 'c' << i << ' ' << proto::op_code_name(op);
    if (!result) {
      line << " -> connection closed";
      log(line.str());
      return;
    }
    for (const auto& e : result->events) {
      log(cat("c", i, " event ", static_cast<int>(e.type), ' ', e.path));
    }
    const auto& h = result->reply.header;
    if (h.zxid > 0) last_zxid_ = std::max(last_zxid_, h.zxid);
    line << " err=" << h.err << " zxid=" << relative(h.zxid) << ' ' << describe(result->reply.body);
    log(line.str());
  }

  [[nodiscard]] const std::vector<std::string>& transcript() const noexcept { return transcript_; }

 private:
  struct session {
    std::unique_ptr<byte_link> link;
    std::unique_ptr<wire_peer> peer;
    std::int64_t id = 0;
    std::string passwd = std::string(proto::password_length, '\0');
  };

  void log(std::string line) { transcript_.push_back(std::move(line)); }

  std::string relative(std::int64_t zxid) {
    if (zxid <= 0) return std::to_string(zxid);
    if (!base_) base_ = zxid;
    return cat("+", zxid - *base_);
  }

  std::string describe(const proto::stat& s) {
    std::ostringstream out;
    const auto owner = owners_.find(s.ephemeral_owner);
    out << "{c" << relative(s.czxid) << " m" << relative(s.mzxid) << " p" << relative(s.pzxid) << " v" << s.version
        << " cv" << s.cversion << " av" << s.aversion << " owner="
        << (s.ephemeral_owner == 0   ? std::string("-")
            : owner == owners_.end() ? std::string("?")
                                     : cat("s", owner->second))
        << " len" << s.data_length << " n" << s.num_children << '}';
    return out.str();
  }

  static std::string sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    std::string out = "[";
    for (const auto& n : names) out += cat(n, ",");
    return cat(out, "]");
  }

  std::string describe(const proto::multi_result& r) {
    std::string out = cat(static_cast<int>(r.type), "/", r.err);
    std::visit(
        [&](const auto& b) {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, proto::create_response>) out += cat(' ', b.path);
          if constexpr (std::is_same_v<T, proto::create2_response>) out += cat(' ', b.path, describe(b.stat));
          if constexpr (std::is_same_v<T, proto::set_data_response>) out += describe(b.stat);
          if constexpr (std::is_same_v<T, proto::get_data_response>)
            out += cat(' ', b.data.value_or(""), describe(b.stat));
          if constexpr (std::is_same_v<T, proto::get_children_response>) out += cat(' ', sorted(b.children));
        },
        r.body);
    return out;
  }

  std::string describe(const proto::response_body& body) {
    return std::visit(
        [&](const auto& b) -> std::string {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, proto::create_response> || std::is_same_v<T, proto::sync_response>) {
            return b.path;
          } else if constexpr (std::is_same_v<T, proto::create2_response>) {
            return cat(b.path, describe(b.stat));
          } else if constexpr (std::is_same_v<T, proto::exists_response> ||
                               std::is_same_v<T, proto::set_data_response> ||
                               std::is_same_v<T, proto::set_acl_response>) {
            return describe(b.stat);
          } else if constexpr (std::is_same_v<T, proto::get_data_response>) {
            return cat("'", b.data.value_or("<null>"), "'", describe(b.stat));
          } else if constexpr (std::is_same_v<T, proto::get_acl_response>) {
            std::string out;
            for (const auto& a : b.acl) out += cat(a.perms, ":", a.id.scheme, ":", a.id.id, " ");
            return cat(out, describe(b.stat));
          } else if constexpr (std::is_same_v<T, proto::get_children_response>) {
            return sorted(b.children);
          } else if constexpr (std::is_same_v<T, proto::get_children2_response>) {
            return cat(sorted(b.children), describe(b.stat));
          } else if constexpr (std::is_same_v<T, proto::get_ephemerals_response>) {
            return sorted(b.ephemerals);
          } else if constexpr (std::is_same_v<T, proto::get_all_children_number_response>) {
            return cat(b.total_number);
          } else if constexpr (std::is_same_v<T, proto::multi_response>) {
            std::string out;
            for (const auto& r : b.results) out += cat(describe(r), "; ");
            return out;
          } else if constexpr (std::is_same_v<T, proto::error_response>) {
            return cat("error_response ", b.err);
          } else {
            return "";
          }
        },
        body);
  }

  link_factory make_;
  std::vector<session> sessions_;
  std::map<std::int64_t, std::size_t> owners_;
  std::optional<std::int64_t> base_;
  std::int64_t last_zxid_ = 0;
  std::vector<std::string> transcript_;
};

proto::create_request create(const std::string& path, proto::create_mode mode = proto::create_mode::persistent,
                             std::string data = "") {
  return proto::create_request{path, std::move(data), proto::open_acl_unsafe(), mode};
}

class differential_test : public zkwire::test::standalone_test {
 protected:
  // Runs `script` against the real server and the model and compares the transcripts line by line.
  void compare(const std::function<void(target&, const std::string& base)>& script) {
    const std::uint16_t port = cluster().client_port(0);
    target real([port] { return std::make_unique<socket_link>(port); });
    server_config config;
    config.tick_time = std::chrono::milliseconds{200};
    config.min_session_timeout = std::chrono::milliseconds{400};
    config.max_session_timeout = std::chrono::milliseconds{60000};
    server model(config);
    sim_time now{0};
    target sim([&] { return std::make_unique<sim_link>(model, now); });
    // The real server has other tests' nodes at "/": the script works under a fresh directory of its own, which
    // the model gets too. Creating it is the first call, so both sides count zxids from it.
    const std::string base = cat(root(), "-", ++runs_);
    for (target* t : {&real, &sim}) {
      t->connect(0);
      t->call(0, op_code::create, create(base));
    }
    script(real, base);
    script(sim, base);
    const auto& a = real.transcript();
    const auto& b = sim.transcript();
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string left = i < a.size() ? a[i] : "<end>";
      const std::string right = i < b.size() ? b[i] : "<end>";
      ASSERT_EQ(left, right) << "first difference at step " << i << " (real server on the left, model on the right)";
    }
  }

 private:
  int runs_ = 0;
};

TEST_F(differential_test, NodesStatsAndErrors) {
  compare([](target& t, const std::string& base) {
    t.call(0, op_code::create2, create(base + "/a", proto::create_mode::persistent, "data"));
    t.call(0, op_code::create, create(base + "/a"));
    t.call(0, op_code::create, create(base + "/missing/x"));
    t.call(0, op_code::create, create(base + "/bad/"));
    t.call(0, op_code::create2, proto::create_request{base + "/noacl", "", {}, proto::create_mode::persistent});
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::persistent_sequential));
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::ephemeral_sequential));
    t.call(0, op_code::delete_, proto::delete_request{base + "/a/s-0000000000", -1});
    t.call(0, op_code::create2, create(base + "/a/s-", proto::create_mode::persistent_sequential));
    t.call(0, op_code::set_data, proto::set_data_request{base + "/a", "new", 0});
    t.call(0, op_code::set_data, proto::set_data_request{base + "/a", "newer", 0});
    t.call(0, op_code::delete_, proto::delete_request{base + "/a", -1});
    t.call(0, op_code::create, create(base + "/a/s-0000000001/under"));
    t.call(0, op_code::get_data, proto::get_data_request{base + "/a", false});
    t.call(0, op_code::get_children2, proto::get_children2_request{base + "/a", false});
    t.call(0, op_code::get_acl, proto::get_acl_request{base + "/a"});
    t.call(0, op_code::set_acl, proto::set_acl_request{base + "/a", proto::read_acl_unsafe(), 0});
    t.call(0, op_code::set_acl, proto::set_acl_request{base + "/a", proto::open_acl_unsafe(), 0});
    t.call(0, op_code::get_all_children_number, proto::get_all_children_number_request{base});
    t.call(0, op_code::get_ephemerals, proto::get_ephemerals_request{base});
    t.call(0, op_code::exists, proto::exists_request{base + "/nothing", false});
    t.call(0, op_code::get_data, proto::get_data_request{"not/a/path", false});
    t.call(0, op_code::create2, create(base + "/box", proto::create_mode::container));
    t.call(0, op_code::create_container, create(base + "/box2"));
    t.call(0, op_code::exists, proto::exists_request{base + "/box2", false});
  });
}

TEST_F(differential_test, WatchesAcrossSessions) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/w"));
    t.call(1, op_code::get_data, proto::get_data_request{base + "/w", true});
    t.call(1, op_code::get_children, proto::get_children_request{base + "/w", true});
    t.call(1, op_code::exists, proto::exists_request{base + "/w/new", true});
    t.call(0, op_code::create, create(base + "/w/new", proto::create_mode::ephemeral));
    t.call(1, op_code::exists, proto::exists_request{base, false});  // a barrier: events arrive before its reply
    t.call(1, op_code::check_watches, proto::check_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::check_watches, proto::check_watches_request{base + "/w", proto::watcher_type::children});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::data});
    t.call(1, op_code::add_watch, proto::add_watch_request{base + "/w", proto::add_watch_mode::persistent_recursive});
    t.call(0, op_code::set_data, proto::set_data_request{base + "/w/new", "1", -1});
    t.call(0, op_code::create, create(base + "/w/second"));
    t.call(0, op_code::delete_, proto::delete_request{base + "/w/second", -1});
    t.call(1, op_code::exists, proto::exists_request{base, false});
    t.call(1, op_code::get_data, proto::get_data_request{base + "/w/new", true});
    t.call(0, op_code::close_session, proto::no_body{});  // deletes the ephemeral /w/new
    t.call(1, op_code::exists, proto::exists_request{base, false});
    t.call(1, op_code::remove_watches, proto::remove_watches_request{base + "/w", proto::watcher_type::any});
  });
}

TEST_F(differential_test, MultiAndMultiRead) {
  compare([](target& t, const std::string& base) {
    proto::multi_request ok;
    ok.ops.push_back(proto::create_op(create(base + "/m")));
    ok.ops.push_back(proto::create_op(create(base + "/m/q-", proto::create_mode::persistent_sequential)));
    ok.ops.push_back(proto::set_data_op(base + "/m", "x"));
    ok.ops.push_back(proto::check_op(base + "/m", 1));
    t.call(0, op_code::multi, ok);
    proto::multi_request failing;
    failing.ops.push_back(proto::create_op(create(base + "/n")));
    failing.ops.push_back(proto::delete_op(base + "/m"));
    failing.ops.push_back(proto::set_data_op(base + "/m", "y"));
    t.call(0, op_code::multi, failing);
    t.call(0, op_code::multi, proto::multi_request{});
    proto::multi_request reads;
    reads.ops.push_back(proto::get_data_op(base + "/m"));
    reads.ops.push_back(proto::get_children_op(base + "/m"));
    reads.ops.push_back(proto::get_data_op(base + "/absent"));
    t.call(0, op_code::multi_read, reads);
    t.call(0, op_code::create2, create(base + "/m/q-", proto::create_mode::persistent_sequential));
  });
}

TEST_F(differential_test, SetWatchesAfterAReconnectCatchesUp) {
  compare([](target& t, const std::string& base) {
    t.connect(1);
    t.call(0, op_code::create, create(base + "/r"));
    t.call(0, op_code::create, create(base + "/r/keep"));
    t.call(1, op_code::get_data, proto::get_data_request{base + "/r", true});
    t.reconnect(1);  // the server drops the connection's watches; the client re-arms them with SetWatches
    t.call(0, op_code::set_data, proto::set_data_request{base + "/r", "changed", -1});
    t.call(0, op_code::create, create(base + "/r/new"));
    t.call(0, op_code::delete_, proto::delete_request{base + "/r/keep", -1});
    t.call(1, op_code::set_watches,
           proto::set_watches{1, {base + "/r", base + "/r/keep"}, {base + "/r/new", base + "/r/never"}, {base + "/r"}});
    t.call(0, op_code::create, create(base + "/r/never"));
    t.call(1, op_code::exists, proto::exists_request{base, false});
  });
}

// Seeded random sequences over a few paths and three sessions. ZKWIRE_DIFF_SEED replays one seed.
TEST_F(differential_test, RandomOperationSequences) {
  std::vector<std::uint64_t> seeds = {1, 2, 3};
  if (const char* env = std::getenv("ZKWIRE_DIFF_SEED")) seeds = {std::strtoull(env, nullptr, 10)};
  for (const auto seed : seeds) {
    SCOPED_TRACE(cat("seed ", seed, " (replay: ZKWIRE_DIFF_SEED=", seed, ")"));
    compare([seed](target& t, const std::string& base) {
      std::mt19937_64 random(seed);
      const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
      const std::vector<std::string> names = {"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z"};
      t.connect(1);
      t.connect(2);
      for (int step = 0; step < 120; ++step) {
        const std::size_t c = pick(3);
        const std::string path = cat(base, names[pick(names.size())]);
        const auto version = static_cast<std::int32_t>(pick(3)) - 1;
        switch (pick(10)) {
          case 0:
          case 1: {
            const proto::create_mode modes[] = {proto::create_mode::persistent, proto::create_mode::ephemeral,
                                                proto::create_mode::persistent_sequential,
                                                proto::create_mode::ephemeral_sequential};
            t.call(c, op_code::create2, create(path, modes[pick(4)], std::string(pick(3), 'd')));
            break;
          }
          case 2:
            t.call(c, op_code::delete_, proto::delete_request{path, version});
            break;
          case 3:
            t.call(c, op_code::set_data, proto::set_data_request{path, std::string(pick(5), 's'), version});
            break;
          case 4:
            t.call(c, op_code::exists, proto::exists_request{path, pick(2) == 0});
            break;
          case 5:
            t.call(c, op_code::get_data, proto::get_data_request{path, pick(2) == 0});
            break;
          case 6:
            t.call(c, op_code::get_children2, proto::get_children2_request{path, pick(2) == 0});
            break;
          case 7: {
            proto::multi_request m;
            m.ops.push_back(proto::create_op(create(path)));
            m.ops.push_back(proto::set_data_op(base + names[pick(names.size())], "m", version));
            m.ops.push_back(proto::check_op(base + names[pick(names.size())], version));
            t.call(c, op_code::multi, m);
            break;
          }
          case 8:
            t.call(c, op_code::remove_watches, proto::remove_watches_request{path, proto::watcher_type::any});
            break;
          default:
            t.call(c, op_code::exists, proto::exists_request{base, false});  // collects pending events
            break;
        }
      }
    });
  }
}

}  // namespace
}  // namespace zkwire::sim
