#include "blocking_connection.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

namespace zkwire::tools {
namespace {

std::error_code last_errno() { return {errno, std::generic_category()}; }

}  // namespace

blocking_connection::blocking_connection(std::chrono::milliseconds io_timeout) : io_timeout_(io_timeout) {}

blocking_connection::~blocking_connection() { close(); }

void blocking_connection::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  frames_.reset();
}

std::error_code blocking_connection::connect(const std::string& host, std::uint16_t port) {
  close();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return std::make_error_code(std::errc::host_unreachable);
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  std::error_code ec = std::make_error_code(std::errc::host_unreachable);
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) {
      ec = last_errno();
      continue;
    }
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) {
      const int one = 1;
      ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return {};
    }
    ec = last_errno();
    close();
  }
  return ec;
}

std::error_code blocking_connection::handshake(const proto::connect_request& request,
                                               proto::connect_response& response) {
  out_.clear();
  if (auto ec = proto::encode_connect_frame(out_, request)) return ec;
  if (auto ec = send_all(out_)) return ec;
  std::string payload;
  if (auto ec = read_frame(payload)) return ec;
  return proto::decode_connect_response(payload, response);
}

std::int32_t blocking_connection::xid_for(proto::op_code op) noexcept {
  if (op == proto::op_code::ping) return proto::special_xid::ping;
  if (op == proto::op_code::auth) return proto::special_xid::auth;
  return next_xid_++;
}

std::error_code blocking_connection::wait_for(short events, clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) return std::make_error_code(std::errc::timed_out);
    pollfd p{fd_, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    if (rc > 0) return {};
    if (rc < 0 && errno != EINTR) return last_errno();
  }
}

std::error_code blocking_connection::send_all(std::string_view bytes) {
  if (fd_ < 0) return std::make_error_code(std::errc::not_connected);
  const auto deadline = clock::now() + io_timeout_;
  while (!bytes.empty()) {
    if (auto ec = wait_for(POLLOUT, deadline)) return ec;
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return last_errno();
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

std::error_code blocking_connection::read_frame(std::string& payload) {
  if (fd_ < 0) return std::make_error_code(std::errc::not_connected);
  const auto deadline = clock::now() + io_timeout_;
  for (;;) {
    if (auto frame = frames_.next()) {
      payload.assign(*frame);
      return {};
    }
    if (frames_.error()) return frames_.error();
    if (auto ec = wait_for(POLLIN, deadline)) return ec;
    const auto space = frames_.prepare(std::size_t{64} * 1024);
    const ssize_t n = ::recv(fd_, space.data(), space.size(), 0);
    if (n == 0) return std::make_error_code(std::errc::connection_reset);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return last_errno();
    }
    frames_.commit(static_cast<std::size_t>(n));
  }
}

std::error_code blocking_connection::await_reply(std::int32_t xid, proto::op_code op, proto::reply& reply) {
  std::string payload;
  for (;;) {
    if (auto ec = read_frame(payload)) return ec;
    proto::reply_header header;
    if (auto ec = proto::decode_reply_header(payload, header)) return ec;
    if (header.xid == xid) {
      if (auto ec = proto::decode_reply(payload, op, reply)) return ec;
      if (header.zxid > 0) last_zxid_ = header.zxid;
      return {};
    }
    const auto special = proto::special_xid_op(header.xid);
    if (!special) return proto::client_error::protocol_violation;  // a reply we did not ask for
    proto::reply other;
    if (auto ec = proto::decode_reply(payload, *special, other)) return ec;
    if (observer_) observer_(other);
  }
}

}  // namespace zkwire::tools
