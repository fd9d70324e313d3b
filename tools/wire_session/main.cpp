// zkwire-wire-session: opens one real ZooKeeper session with the blocking wire connection and walks through
// a few operations, printing every frame it sends and receives with its decoded meaning. It shows what the
// protocol layer does against a real server; it is not a client (no reconnects, no pipelining).
//
// Usage: zkwire-wire-session [HOST:PORT]   (default: $ZKWIRE_SERVERS's first host, else 127.0.0.1:2181)

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "blocking_connection.hpp"
#include "zkwire/proto/proto.hpp"

namespace {

namespace proto = zkwire::proto;
using zkwire::tools::blocking_connection;

struct endpoint {
  std::string host;
  std::uint16_t port = 0;
};

// Takes the first host of a connect string such as "127.0.0.1:2181,127.0.0.1:2182/chroot".
bool parse_first_host(std::string_view servers, endpoint& out) {
  servers = servers.substr(0, servers.find_first_of(",/"));
  const auto colon = servers.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  unsigned value = 0;
  const auto digits = servers.substr(colon + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value == 0 || value > 65535) return false;
  out.host = std::string(servers.substr(0, colon));
  out.port = static_cast<std::uint16_t>(value);
  return true;
}

std::string hex(std::int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Sends one request and prints it and the reply header. True when the server answered with err 0; the decoded
// reply is in `reply`. A connection or decoding failure ends the program with status 4.
template <class Body>
bool exchange(blocking_connection& conn, proto::op_code op, const Body& body, const std::string& what,
              proto::reply& reply) {
  const std::int32_t xid = op == proto::op_code::ping ? proto::special_xid::ping : conn.next_xid();
  std::printf("  -> xid %-3d %-14s %s\n", xid, std::string(proto::op_code_name(op)).c_str(), what.c_str());
  if (auto ec = conn.call(op, body, reply)) {
    std::fprintf(stderr, "zkwire-wire-session: %s: %s\n", std::string(proto::op_code_name(op)).c_str(),
                 ec.message().c_str());
    std::exit(4);
  }
  std::printf("  <- xid %-3d zxid %-6s ", reply.header.xid, hex(reply.header.zxid).c_str());
  if (reply.header.err != 0) {
    std::printf("error %s (%d)\n", std::string(proto::server_error_name(reply.header.err)).c_str(), reply.header.err);
    return false;
  }
  return true;
}

void on_unsolicited(const proto::reply& r) {
  if (const auto* event = std::get_if<proto::watcher_event>(&r.body)) {
    std::printf("  <- xid -1  watch notification: %s on %s (it arrives before the reply to the change)\n",
                std::string(proto::event_type_name(event->type)).c_str(), event->path.c_str());
  } else {
    std::printf("  <- xid %d  (out of band)\n", r.header.xid);
  }
}

int fail(const char* step, const std::error_code& ec) {
  std::fprintf(stderr, "zkwire-wire-session: %s: %s\n", step, ec.message().c_str());
  return 4;
}

}  // namespace

int main(int argc, char** argv) try {
  const char* env = std::getenv("ZKWIRE_SERVERS");
  const std::string servers = argc > 1 ? argv[1] : (env != nullptr ? env : "127.0.0.1:2181");
  endpoint where;
  if (!parse_first_host(servers, where)) {
    std::fprintf(stderr, "zkwire-wire-session: bad server address '%s' (want HOST:PORT)\n", servers.c_str());
    return 2;
  }

  blocking_connection conn;
  conn.set_observer(on_unsolicited);
  std::printf("connecting to %s:%u\n", where.host.c_str(), where.port);
  if (auto ec = conn.connect(where.host, where.port)) return fail("connect", ec);

  proto::connect_request hello;
  hello.timeout = 10000;
  std::printf("\n1. handshake (ConnectRequest has no header; 45 bytes incl. the readOnly byte)\n");
  std::printf("  -> ConnectRequest  protocol 0, lastZxidSeen 0, timeout %d ms, session 0 (new)\n", hello.timeout);
  proto::connect_response welcome;
  if (auto ec = conn.handshake(hello, welcome)) return fail("handshake", ec);
  std::printf("  <- ConnectResponse session %s, negotiated timeout %d ms, password %zu bytes, read-only %s\n",
              hex(welcome.session_id).c_str(), welcome.timeout, welcome.passwd.size(),
              welcome.read_only ? "yes" : "no");
  if (welcome.timeout <= 0) return fail("handshake", proto::client_error::session_expired);

  const std::string root = "/zkwire-demo-" + std::to_string(::getpid());
  const auto& acl = proto::open_acl_unsafe();
  proto::reply reply;

  std::printf("\n2. create %s (create2: the reply carries the Stat)\n", root.c_str());
  const proto::create_request create{root, "hello", acl, proto::create_mode::persistent};
  if (exchange(conn, proto::op_code::create2, create, root + " \"hello\" persistent", reply)) {
    const auto& created = std::get<proto::create2_response>(reply.body);
    std::printf("created %s, czxid %s\n", created.path.c_str(), hex(created.stat.czxid).c_str());
  }

  std::printf("\n3. the same create again: the server refuses\n");
  exchange(conn, proto::op_code::create2, create, root, reply);

  std::printf("\n4. two ephemeral sequential children (what a lock recipe creates)\n");
  for (int i = 0; i < 2; ++i) {
    const proto::create_request child{root + "/lock-", "", acl, proto::create_mode::ephemeral_sequential};
    if (exchange(conn, proto::op_code::create2, child, child.path + " ephemeral sequential", reply)) {
      const auto& created = std::get<proto::create2_response>(reply.body);
      std::printf("created %s, owner %s\n", created.path.c_str(), hex(created.stat.ephemeral_owner).c_str());
    }
  }

  std::printf("\n5. getData with a watch, then setData: the watch fires\n");
  if (exchange(conn, proto::op_code::get_data, proto::get_data_request{root, true}, root + " watch", reply)) {
    const auto& got = std::get<proto::get_data_response>(reply.body);
    std::printf("data \"%s\", version %d\n", got.data.value_or("").c_str(), got.stat.version);
  }
  if (exchange(conn, proto::op_code::set_data, proto::set_data_request{root, "world", 0}, root + " \"world\" version 0",
               reply)) {
    std::printf("new version %d\n", std::get<proto::set_data_response>(reply.body).stat.version);
  }

  std::printf("\n6. getChildren2 (names come back unsorted)\n");
  std::vector<std::string> children;
  if (exchange(conn, proto::op_code::get_children2, proto::get_children2_request{root, false}, root, reply)) {
    children = std::get<proto::get_children2_response>(reply.body).children;
    std::printf("%zu children:", children.size());
    for (const auto& c : children) std::printf(" %s", c.c_str());
    std::printf("\n");
  }

  std::printf("\n7. a multi whose check fails: the reply has err 0 and every result is an error\n");
  proto::multi_request multi;
  multi.ops.push_back(proto::set_data_op(root, "again", 1));
  multi.ops.push_back(proto::check_op(root, 42));
  if (exchange(conn, proto::op_code::multi, multi, "[setData v1, check v42] on " + root, reply)) {
    const auto& results = std::get<proto::multi_response>(reply.body);
    std::printf("results:");
    for (const auto& result : results.results)
      std::printf(" (type %d, err %d)", static_cast<int>(result.type), result.err);
    std::printf(" -> %s\n", proto::first_error(results).message().c_str());
  }

  std::printf("\n8. whoAmI and a ping\n");
  if (exchange(conn, proto::op_code::who_am_i, proto::no_body{}, "", reply)) {
    for (const auto& info : std::get<proto::who_am_i_response>(reply.body).client_info) {
      std::printf("%s:%s ", info.auth_scheme.c_str(), info.user.c_str());
    }
    std::printf("\n");
  }
  if (exchange(conn, proto::op_code::ping, proto::no_body{}, "", reply)) std::printf("pong\n");

  std::printf("\n9. clean up and close the session (closing would delete the ephemerals anyway)\n");
  for (const auto& c : children) {
    std::string path = root;
    path.append("/").append(c);
    if (exchange(conn, proto::op_code::delete_, proto::delete_request{path, -1}, path, reply)) {
      std::printf("deleted\n");
    }
  }
  if (exchange(conn, proto::op_code::delete_, proto::delete_request{root, -1}, root, reply)) std::printf("deleted\n");
  if (exchange(conn, proto::op_code::close_session, proto::no_body{}, "", reply)) {
    std::printf("session %s closed\n", hex(welcome.session_id).c_str());
  }
  std::printf("\nlast zxid seen: %s\n", hex(conn.last_zxid()).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "zkwire-wire-session: %s\n", e.what());
  return 4;
}
