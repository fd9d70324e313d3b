#pragma once
// A scripted driver for the session engine: a fake clock, the bytes the engine wrote, what it delivered, and
// frame builders made with proto's own encoders. Tests say "expect these bytes written", "feed these bytes"
// (optionally split at chosen offsets), "advance the clock", "expect these deliveries". No sockets. When a test
// ends, its script is replayed with a connection loss and a connect failure before every step (fault_sweep.hpp).

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "fault_sweep.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::proto::test {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

inline constexpr time_point t0 = time_point{} + std::chrono::hours(1000);
inline constexpr std::string_view zero_password{"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", password_length};
inline constexpr std::string_view password_a = "0123456789abcdef";
inline constexpr std::int64_t session_a = 0x1000000000000aLL;
inline constexpr std::int64_t session_b = 0x2000000000000bLL;

// --- frame builders -----------------------------------------------------------------------------------------

inline std::string connect_frame(std::int64_t last_zxid, std::int32_t timeout, std::int64_t session_id = 0,
                                 std::string_view passwd = zero_password, bool read_only = false) {
  std::string out;
  EXPECT_FALSE(
      encode_connect_frame(out, connect_request{0, last_zxid, timeout, session_id, std::string(passwd), read_only}));
  return out;
}

inline std::string connect_response_frame(std::int32_t timeout, std::int64_t session_id = session_a,
                                          std::string_view passwd = password_a, bool read_only = false) {
  std::string out;
  EXPECT_FALSE(encode_frame(out, connect_response{0, timeout, session_id, std::string(passwd), read_only}));
  return out;
}

template <class Body>
std::string request_frame(std::int32_t xid, op_code op, const Body& body) {
  std::string out;
  EXPECT_FALSE(encode_request_frame(out, xid, op, body));
  return out;
}

inline std::string ping_frame() { return request_frame(special_xid::ping, op_code::ping, no_body{}); }

template <class Body = no_body>
std::string reply_frame(std::int32_t xid, std::int64_t zxid, std::int32_t err = 0, const Body& body = {}) {
  std::string out;
  EXPECT_FALSE(encode_reply_frame(out, reply_header{xid, zxid, err}, body));
  return out;
}

inline std::string error_reply(std::int32_t xid, std::int64_t zxid, server_error err) {
  return reply_frame(xid, zxid, static_cast<std::int32_t>(err));
}

inline std::string notification_frame(event_type type, std::string path) {
  return reply_frame(special_xid::notification, -1, 0,
                     watcher_event{type, keeper_state::sync_connected, std::move(path)});
}

inline std::string ping_reply(std::int64_t zxid = 0) { return reply_frame(special_xid::ping, zxid); }

inline std::string auth_frame(const std::string& scheme, const std::string& creds) {
  return request_frame(special_xid::auth, op_code::auth, auth_packet{0, scheme, creds});
}

// --- the scripted driver ------------------------------------------------------------------------------------

class harness {
 public:
  explicit harness(session_config config) : s(std::move(config)) {}
  harness(const harness&) = delete;
  harness& operator=(const harness&) = delete;
  harness(harness&&) = delete;
  harness& operator=(harness&&) = delete;
  // The fault sweep over what the test did, unless the test failed already.
  ~harness() {
    if (!::testing::Test::HasFailure()) sweep_faults(s.config(), s.script());
  }

  recording_session s;
  time_point now = t0;
  std::vector<std::size_t> connects;  // hosts the engine asked for, in order
  int closes = 0;                     // take_close() == true count
  std::string wire;                   // bytes written and not yet checked
  std::vector<delivery> got;          // deliveries not yet checked
  bool connection_pending = false;    // a take_connect() not yet answered

  // What a driver does after every input.
  void pump() {
    for (;;) {
      bool progress = false;
      if (s.take_close()) {
        ++closes;
        connection_pending = false;
      }
      if (auto host = s.take_connect()) {
        connects.push_back(*host);
        connection_pending = true;
        progress = true;
      }
      if (auto out = s.take_output()) {
        wire.append(*out);
        s.written(now);
        progress = true;
      }
      while (auto d = s.take_delivery()) got.push_back(std::move(*d));
      if (!progress) break;
    }
  }

  void start() {
    s.start(now);
    pump();
  }
  // The connection asked for is up; bytes written on earlier connections are gone with them.
  void connect_ok() {
    connection_pending = false;
    wire.clear();
    s.connected(now);
    pump();
  }
  void connect_fail(std::error_code ec = std::make_error_code(std::errc::connection_refused)) {
    connection_pending = false;
    s.connect_failed(now, ec);
    pump();
  }
  void drop(std::error_code ec = std::make_error_code(std::errc::connection_reset)) {
    s.disconnected(now, ec);
    pump();
  }
  // Feeds `bytes`, cut at the given offsets into separate reads.
  void feed(std::string_view bytes, const std::vector<std::size_t>& cuts = {}) {
    std::size_t at = 0;
    for (const std::size_t cut : cuts) {
      if (cut <= at || cut >= bytes.size()) continue;
      s.received(now, bytes.substr(at, cut - at));
      pump();
      at = cut;
    }
    s.received(now, bytes.substr(at));
    pump();
  }
  // Moves the clock, firing every timer on the way like a driver would.
  void advance(milliseconds d) {
    const time_point target = now + d;
    while (s.next_wakeup() <= target) {
      now = std::max(now, s.next_wakeup());
      s.tick(now);
      pump();
    }
    now = target;
  }
  request_id submit(op_code op, request_body body, watcher_id watcher = 0, time_point deadline = time_point::max()) {
    const request_id id = s.submit(now, op, std::move(body), watcher, deadline);
    pump();
    return id;
  }

  std::string take_wire() { return std::exchange(wire, {}); }

  // Start, connect to the first host, answer the handshake.
  void establish(std::int32_t negotiated = 6000, std::int64_t session_id = session_a) {
    start();
    connect_ok();
    take_wire();
    feed(connect_response_frame(negotiated, session_id));
    take_wire();
  }

  template <class T>
  std::vector<T> take_all() {
    std::vector<T> out;
    std::vector<delivery> rest;
    for (auto& d : got) {
      if (auto* v = std::get_if<T>(&d)) {
        out.push_back(std::move(*v));
      } else {
        rest.push_back(std::move(d));
      }
    }
    got = std::move(rest);
    return out;
  }
  std::vector<completion> completions() { return take_all<completion>(); }
  std::vector<watch_delivery> watch_deliveries() { return take_all<watch_delivery>(); }
  std::vector<state_change> state_changes() { return take_all<state_change>(); }
};

// A generic server for fault scripts: answers the handshake, pings, auth, closeSession, the bodiless-reply ops
// with OK, and everything else with NONODE. Tracks the session id so resumes keep it.
class fake_server {
 public:
  std::int64_t zxid = 100;
  std::int64_t session_id = 0;
  std::int32_t timeout = 6000;

  void new_connection() {
    reader_.reset();
    handshaken_ = false;
  }

  std::string respond(std::string_view client_bytes) {
    reader_.feed(client_bytes);
    std::string out;
    while (auto payload = reader_.next()) {
      if (!handshaken_) {
        connect_request req;
        EXPECT_FALSE(decode_connect_request(*payload, req));
        if (req.session_id == 0) session_id = next_session_++;
        out += connect_response_frame(timeout, session_id, password_a);
        handshaken_ = true;
        continue;
      }
      request req;
      EXPECT_FALSE(decode_request(*payload, req));
      switch (req.header.type) {
        case op_code::ping:
          out += ping_reply(zxid);
          break;
        case op_code::auth:
          out += reply_frame(special_xid::auth, 0);
          break;
        case op_code::delete_:
        case op_code::set_watches:
        case op_code::set_watches2:
        case op_code::close_session:
          out += reply_frame(req.header.xid, ++zxid);
          break;
        default:
          out += error_reply(req.header.xid, zxid, server_error::no_node);
          break;
      }
    }
    return out;
  }

 private:
  frame_reader reader_;
  bool handshaken_ = false;
  std::int64_t next_session_ = 0x77000001;
};

}  // namespace zkwire::proto::test
