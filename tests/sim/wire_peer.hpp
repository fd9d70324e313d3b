#pragma once
// A minimal ZooKeeper client for tests that speaks frame by frame over a byte link: to the simulated server
// (sim_link, direct calls) or to a real server (a socket, in differential_test.cpp). Tests of the model and the
// differential test run the same scripts through it, so both see exactly the same bytes.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "server.hpp"
#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::sim::testing {

class byte_link {
 public:
  byte_link() = default;
  byte_link(const byte_link&) = delete;
  byte_link& operator=(const byte_link&) = delete;
  byte_link(byte_link&&) = delete;
  byte_link& operator=(byte_link&&) = delete;
  virtual ~byte_link() = default;
  virtual void send(std::string_view bytes) = 0;
  // Whatever has arrived; empty when nothing more will come without another send (or the link closed).
  virtual std::string receive() = 0;
  [[nodiscard]] virtual bool closed() const = 0;
};

// A connection to the simulated server at a fixed virtual time the test moves.
class sim_link final : public byte_link {
 public:
  sim_link(server& s, sim_time& now) : server_(s), now_(now), id_(s.open_connection()) {}
  sim_link(const sim_link&) = delete;
  sim_link& operator=(const sim_link&) = delete;
  sim_link(sim_link&&) = delete;
  sim_link& operator=(sim_link&&) = delete;
  ~sim_link() override { server_.close_connection(id_, now_); }
  void send(std::string_view bytes) override { server_.receive(id_, bytes, now_); }
  std::string receive() override { return server_.take_output(id_); }
  [[nodiscard]] bool closed() const override { return server_.is_closed(id_); }
  [[nodiscard]] connection_id id() const noexcept { return id_; }

 private:
  server& server_;
  sim_time& now_;
  connection_id id_;
};

struct call_result {
  proto::reply reply;
  std::vector<proto::watcher_event> events;  // notifications that arrived before the reply
};

class wire_peer {
 public:
  explicit wire_peer(byte_link& link) : link_(link) {}

  // The handshake; nullopt if the server closed the connection without answering.
  std::optional<proto::connect_response> connect(std::int32_t timeout_ms, std::int64_t session = 0,
                                                 std::string passwd = std::string(proto::password_length, '\0'),
                                                 std::int64_t last_zxid = 0) {
    std::string frame;
    proto::encode_connect_frame(frame, proto::connect_request{0, last_zxid, timeout_ms, session, passwd, false});
    link_.send(frame);
    const auto payload = next_payload();
    if (!payload) return std::nullopt;
    proto::connect_response response;
    if (proto::decode_connect_response(*payload, response)) throw std::runtime_error("bad ConnectResponse");
    return response;
  }

  // Sends one request with the next xid and reads up to its reply; nullopt if the connection closed first.
  template <class Body>
  std::optional<call_result> call(proto::op_code op, const Body& body, std::int32_t xid = 0) {
    xid = send(op, body, xid);
    auto out = receive(op);
    if (out && out->reply.header.xid != xid) throw std::runtime_error("reply to another xid");
    return out;
  }

  // Sends one request (with the next xid unless `xid` is given) without reading; returns its xid.
  template <class Body>
  std::int32_t send(proto::op_code op, const Body& body, std::int32_t xid = 0) {
    link_.send(encode(op, body, xid));
    return xid;
  }

  // The frame of one request; a `xid` of 0 becomes the next xid.
  template <class Body>
  std::string encode(proto::op_code op, const Body& body, std::int32_t& xid) {
    if (xid == 0) xid = next_xid_++;
    // Encoded without the client library's checks: a test may send what a careless client would.
    std::string frame;
    jute::writer w(frame);
    const std::size_t prefix = w.begin_length_prefix();
    proto::encode(w, proto::request_header{xid, op});
    proto::encode(w, body);
    w.end_length_prefix(prefix);
    if (!w.ok()) throw std::runtime_error("cannot encode the request");
    return frame;
  }

  // Reads up to the next reply (decoded as a reply to `op`), with the notifications before it; nullopt if the
  // connection closed first.
  std::optional<call_result> receive(proto::op_code op) {
    call_result out;
    while (auto payload = next_payload()) {
      proto::reply_header header;
      if (proto::decode_reply_header(*payload, header)) throw std::runtime_error("bad ReplyHeader");
      if (header.xid == proto::special_xid::notification) {
        proto::watcher_event event;
        if (proto::decode_notification(*payload, event)) throw std::runtime_error("bad notification");
        out.events.push_back(std::move(event));
        continue;
      }
      if (proto::decode_reply(*payload, op, out.reply)) throw std::runtime_error("bad reply");
      return out;
    }
    return std::nullopt;
  }

  // Notifications that arrived without a request (read whatever the link has now).
  std::vector<proto::watcher_event> events() {
    for (auto chunk = link_.receive(); !chunk.empty(); chunk = link_.receive()) reader_.feed(chunk);
    return decode_events();
  }

  // One receive from the link (which may wait: see the link) and the notifications complete so far.
  std::vector<proto::watcher_event> poll_events() {
    reader_.feed(link_.receive());
    return decode_events();
  }

 private:
  std::vector<proto::watcher_event> decode_events() {
    std::vector<proto::watcher_event> out;
    while (auto payload = reader_.next()) {
      proto::watcher_event event;
      if (proto::decode_notification(*payload, event)) throw std::runtime_error("unexpected frame");
      out.push_back(std::move(event));
    }
    return out;
  }
  std::optional<std::string> next_payload() {
    while (true) {
      if (auto payload = reader_.next()) return std::string(*payload);
      const std::string chunk = link_.receive();
      if (chunk.empty()) return std::nullopt;
      reader_.feed(chunk);
    }
  }

  byte_link& link_;
  proto::frame_reader reader_;
  std::int32_t next_xid_ = 1;
};

// A create request with the open ACL.
inline proto::create_request create(std::string path, std::string data = "",
                                    proto::create_mode mode = proto::create_mode::persistent) {
  return proto::create_request{std::move(path), std::move(data), proto::open_acl_unsafe(), mode};
}

}  // namespace zkwire::sim::testing
