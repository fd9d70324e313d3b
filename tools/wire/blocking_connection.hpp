#pragma once
// A deliberately simple, blocking ZooKeeper connection over one POSIX socket: connect, handshake, send a
// request and wait for its reply. No reconnects, no pipelining, no timers beyond a per-call deadline.
//
// It exists to show the wire protocol (the demo program) and to test the codec against a real server
// (integration tests); services use the Asio client instead. Thread safety: none. Not copyable; closes the
// socket on destruction.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>

#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::tools {

class blocking_connection {
 public:
  using clock = std::chrono::steady_clock;
  // Called for every frame that is not the awaited reply (watch notifications, ping replies).
  using frame_observer = std::function<void(const proto::reply&)>;

  explicit blocking_connection(std::chrono::milliseconds io_timeout = std::chrono::seconds(10));
  ~blocking_connection();
  blocking_connection(const blocking_connection&) = delete;
  blocking_connection& operator=(const blocking_connection&) = delete;
  blocking_connection(blocking_connection&&) = delete;
  blocking_connection& operator=(blocking_connection&&) = delete;

  // Opens a TCP connection to an IPv4/IPv6 literal or host name.
  std::error_code connect(const std::string& host, std::uint16_t port);
  // Sends the ConnectRequest and reads the ConnectResponse.
  std::error_code handshake(const proto::connect_request& request, proto::connect_response& response);

  // Sends one request with the next xid (or special_xid::ping / auth for those ops) and reads frames until its
  // reply arrives; other frames go to the observer. A server error is in reply.header.err, not the result.
  template <class Body>
  std::error_code call(proto::op_code op, const Body& body, proto::reply& reply) {
    const std::int32_t xid = xid_for(op);
    out_.clear();
    if (auto ec = proto::encode_request_frame(out_, xid, op, body)) return ec;
    if (auto ec = send_all(out_)) return ec;
    return await_reply(xid, op, reply);
  }

  // Reads one frame within the I/O timeout (e.g. a notification the caller expects).
  std::error_code read_frame(std::string& payload);

  void set_observer(frame_observer observer) { observer_ = std::move(observer); }
  void close() noexcept;
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] std::int64_t last_zxid() const noexcept { return last_zxid_; }
  // The xid the next normal request will carry.
  [[nodiscard]] std::int32_t next_xid() const noexcept { return next_xid_; }

 private:
  std::int32_t xid_for(proto::op_code op) noexcept;
  std::error_code send_all(std::string_view bytes);
  std::error_code await_reply(std::int32_t xid, proto::op_code op, proto::reply& reply);
  // Waits until the socket is readable or writable (events) before the deadline.
  std::error_code wait_for(short events, clock::time_point deadline);

  int fd_ = -1;
  std::chrono::milliseconds io_timeout_;
  std::int32_t next_xid_ = 1;
  std::int64_t last_zxid_ = 0;
  std::string out_;
  proto::frame_reader frames_;
  frame_observer observer_;
};

}  // namespace zkwire::tools
