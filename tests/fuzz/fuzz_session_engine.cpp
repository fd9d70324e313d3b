// fuzz_session_engine: the socket-free session engine (proto/session/session.hpp) after a valid handshake, driven
// by a byte program: random server bytes, well-formed replies to what it wrote, requests, time, disconnects.
//
// Input: byte 0 picks the host count (1 + bit 0) and whether the handshake answer lacks the readOnly byte (bit 1).
// Then steps until the input runs out; a step's control byte: low 3 bits the action, high 5 bits an argument a.
//   0  submit: op by a % 6 (delete, exists, getData, setData, getChildren2, create2) on "/a" (watch if a >= 16)
//   1  server bytes: the next a * 8 + 1 input bytes, raw (garbage, partial frames, anything)
//   2  a reply to the oldest request written, header well-formed, err 0 or a server code by a, and a body of the
//      next a input bytes (delete/NONODE/err != 0 need none, so completions are reachable)
//   3  time: now += (a * 150) ms, then tick()
//   4  the connection drops (disconnected) / a pending connect fails (connect_failed) by a's low bit
//   5  cancel the request submitted a-th from the last; a >= 24: close()
//   6  the host asked for is connected; with a handshake outstanding, answer it (timeout a ? 3000 : 0 = expired)
//   7  a ping reply (xid -2) or, a >= 16, a notification with a random path
// Every step is followed by a drain of every engine output.
//
// Properties:
//  1. Every request completes at most once, and only ids submit() returned complete.
//  2. pending_requests() == submitted - completed after every drain (nothing leaks, nothing completes twice).
//  3. State changes chain (each `from` is the previous `to`) and state() is the last `to`.
//  4. Everything the engine writes parses: a ConnectRequest first on each connection, then well-formed requests
//     (decode_request) with positive or special xids; take_connect() names a host index below host_count.
//  5. Once the session is expired, closed or auth-failed, a new request completes within the same drain.
// Memory: the engine's frame reader bounds what a bogus length can allocate (ASan's allocator limits catch a huge
// allocation), and libFuzzer's -rss_limit_mb catches slow growth.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

#include "fuzz_check.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/session/session.hpp"

namespace {

namespace proto = zkwire::proto;
using zkwire::fuzz::byte_source;

constexpr std::int64_t session_id = 0x1234'5678'9abc;

class driver {
 public:
  driver(std::size_t hosts, bool short_handshake)
      : hosts_(hosts), short_handshake_(short_handshake), session_(config(hosts)) {
    session_.start(now_);
    drain();
  }

  void submit(std::uint8_t a) {
    static constexpr proto::op_code ops[] = {proto::op_code::delete_,       proto::op_code::exists,
                                             proto::op_code::get_data,      proto::op_code::set_data,
                                             proto::op_code::get_children2, proto::op_code::create2};
    const proto::op_code op = ops[a % 6];
    const bool watch = a >= 16;
    proto::request_body body;
    switch (op) {
      case proto::op_code::delete_:
        body = proto::delete_request{"/a", -1};
        break;
      case proto::op_code::exists:
        body = proto::exists_request{"/a", watch};
        break;
      case proto::op_code::get_data:
        body = proto::get_data_request{"/a", watch};
        break;
      case proto::op_code::set_data:
        body = proto::set_data_request{"/a", std::string("v"), -1};
        break;
      case proto::op_code::get_children2:
        body = proto::get_children2_request{"/a", watch};
        break;
      default: {
        proto::create_request create;
        create.path = "/a";
        create.acl = {proto::acl{31, {"world", "anyone"}}};
        body = std::move(create);
        break;
      }
    }
    const bool ended = is_final(session_.state());
    const auto id = session_.submit(now_, op, std::move(body), watch ? next_watcher_++ : 0);
    ZKWIRE_FUZZ_CHECK(id != 0);
    ZKWIRE_FUZZ_CHECK(submitted_.insert(id).second);
    issued_.push_back(id);
    drain();
    if (ended) ZKWIRE_FUZZ_CHECK(completed_.count(id) == 1);  // property 5
  }

  void server_bytes(std::string_view bytes) {
    if (!open_) return;
    session_.received(now_, bytes);
    drain();
  }

  void reply_to_oldest(std::uint8_t a, std::string_view body) {
    if (!open_ || !handshake_answered_ || written_xids_.empty()) return;
    static constexpr std::int32_t errors[] = {0, 0, 0, -101, -110, -103, -4, -999};
    const std::int32_t xid = written_xids_.front();
    written_xids_.pop_front();
    std::string frame;
    proto::encode_reply_frame(frame, proto::reply_header{xid, ++zxid_, errors[a % 8]}, proto::no_body{});
    frame.append(body);
    zkwire::fuzz::store_be32(frame, 0, static_cast<std::uint32_t>(frame.size() - 4));
    server_bytes(frame);
  }

  void advance(std::uint8_t a) {
    now_ += std::chrono::milliseconds(std::int64_t{a} * 150);
    session_.tick(now_);
    drain();
  }

  void drop(std::uint8_t a) {
    const std::error_code reset = std::make_error_code(std::errc::connection_reset);
    if (connect_pending_ && (a & 1) != 0) {
      connect_pending_ = false;
      session_.connect_failed(now_, reset);
    } else if (open_) {
      open_ = false;
      session_.disconnected(now_, reset);
    } else {
      return;
    }
    drain();
  }

  void cancel_or_close(std::uint8_t a) {
    if (a >= 24) {
      session_.close(now_);
    } else if (!issued_.empty()) {
      const std::size_t back = a % issued_.size();
      const auto id = issued_[issued_.size() - 1 - back];
      const bool was_done = completed_.count(id) == 1;
      const bool cancelled = session_.cancel(id);
      ZKWIRE_FUZZ_CHECK(cancelled != was_done);
    }
    drain();
  }

  void connect_or_handshake(std::uint8_t a) {
    if (connect_pending_) {
      connect_pending_ = false;
      open_ = true;
      handshake_answered_ = false;
      session_.connected(now_);
      drain();
    }
    if (open_ && !handshake_answered_ && saw_connect_request_) {
      handshake_answered_ = true;
      proto::connect_response rsp;
      rsp.timeout = a == 0 ? 0 : 3000;
      rsp.session_id = a == 0 ? 0 : session_id;
      rsp.passwd = std::string(proto::password_length, a == 0 ? '\0' : 'p');
      std::string frame;
      proto::encode_frame(frame, rsp);
      if (short_handshake_) {  // 3.8 servers omit readOnly when the request lacked it
        frame.pop_back();
        zkwire::fuzz::store_be32(frame, 0, static_cast<std::uint32_t>(frame.size() - 4));
      }
      session_.received(now_, frame);
      drain();
    }
  }

  void ping_or_notification(std::uint8_t a, std::string_view path) {
    if (!open_ || !handshake_answered_) return;
    std::string frame;
    if (a >= 16) {
      proto::watcher_event event;
      event.type = static_cast<proto::event_type>(1 + a % 5);
      event.path = std::string(path);
      proto::encode_reply_frame(frame, proto::reply_header{-1, -1, 0}, event);
    } else {
      proto::encode_reply_frame(frame, proto::reply_header{-2, zxid_, 0}, proto::no_body{});
    }
    server_bytes(frame);
  }

 private:
  static proto::session_config config(std::size_t hosts) {
    proto::session_config c;
    c.host_count = hosts;
    c.session_timeout = std::chrono::milliseconds(3000);
    c.seed = 1;
    c.max_frame_size = 4096;  // small, so that "over the maximum" is easy to reach
    return c;
  }

  static bool is_final(proto::session_state s) {
    return s == proto::session_state::expired || s == proto::session_state::closed ||
           s == proto::session_state::auth_failed;
  }

  void drain() {
    for (int round = 0; round < 16; ++round) {
      bool any = false;
      if (auto host = session_.take_connect()) {
        ZKWIRE_FUZZ_CHECK(*host < hosts_);
        open_ = false;
        connect_pending_ = true;
        handshake_answered_ = false;
        saw_connect_request_ = false;
        output_.reset();
        written_xids_.clear();
        any = true;
      }
      if (session_.take_close()) {
        open_ = false;
        connect_pending_ = false;
        any = true;
      }
      if (auto bytes = session_.take_output()) {
        check_output(*bytes);
        session_.written(now_);
        any = true;
      }
      while (auto d = session_.take_delivery()) {
        check_delivery(*d);
        any = true;
      }
      if (!any) break;
    }
    // Property 2.
    ZKWIRE_FUZZ_CHECK(session_.pending_requests() == submitted_.size() - completed_.size());
    // Property 3, second half.
    if (last_state_) ZKWIRE_FUZZ_CHECK(session_.state() == *last_state_);
  }

  void check_output(std::string_view bytes) {
    output_.feed(bytes);
    while (auto payload = output_.next()) {
      if (!saw_connect_request_) {
        proto::connect_request req;
        ZKWIRE_FUZZ_CHECK(!proto::decode_connect_request(*payload, req));
        saw_connect_request_ = true;
        continue;
      }
      proto::request req;
      ZKWIRE_FUZZ_CHECK(!proto::decode_request(*payload, req));
      const std::int32_t xid = req.header.xid;
      ZKWIRE_FUZZ_CHECK(xid > 0 || proto::special_xid_op(xid).has_value());
      if (xid > 0) written_xids_.push_back(xid);
    }
    ZKWIRE_FUZZ_CHECK(!output_.error());
  }

  void check_delivery(const proto::delivery& d) {
    if (const auto* c = std::get_if<proto::completion>(&d)) {
      ZKWIRE_FUZZ_CHECK(submitted_.count(c->id) == 1);     // property 1: only ids handed out
      ZKWIRE_FUZZ_CHECK(completed_.insert(c->id).second);  // property 1: at most once
    } else if (const auto* s = std::get_if<proto::state_change>(&d)) {
      if (last_state_) ZKWIRE_FUZZ_CHECK(s->from == *last_state_);  // property 3
      last_state_ = s->to;
    }
  }

  std::size_t hosts_;
  bool short_handshake_;
  proto::time_point now_ = proto::time_point{} + std::chrono::hours(1);
  proto::session session_;
  bool connect_pending_ = false;
  bool open_ = false;
  bool handshake_answered_ = false;
  bool saw_connect_request_ = false;
  proto::frame_reader output_{std::size_t{1} << 21};
  std::deque<std::int32_t> written_xids_;
  std::set<proto::request_id> submitted_;
  std::set<proto::request_id> completed_;
  std::deque<proto::request_id> issued_;
  std::optional<proto::session_state> last_state_;
  std::int64_t zxid_ = 1;
  proto::watcher_id next_watcher_ = 1;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  byte_source in(zkwire::fuzz::as_bytes(data, size));
  const std::uint8_t setup = in.take_u8();
  driver d(1 + (setup & 1U), (setup & 2U) != 0);
  // A valid handshake first: connect to the host asked for and answer the ConnectRequest.
  d.connect_or_handshake(1);
  while (!in.empty()) {
    const std::uint8_t control = in.take_u8();
    const auto a = static_cast<std::uint8_t>(control >> 3);
    switch (control & 7U) {
      case 0:
        d.submit(a);
        break;
      case 1:
        d.server_bytes(in.take(std::size_t{a} * 8 + 1));
        break;
      case 2:
        d.reply_to_oldest(a, in.take(a));
        break;
      case 3:
        d.advance(a);
        break;
      case 4:
        d.drop(a);
        break;
      case 5:
        d.cancel_or_close(a);
        break;
      case 6:
        d.connect_or_handshake(a);
        break;
      default:
        d.ping_or_notification(a, in.take(a % 8));
        break;
    }
  }
  return 0;
}
