#include "support/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <system_error>

namespace zkwire::test {
namespace {

using clock = std::chrono::steady_clock;

// Owns a socket descriptor.
class socket_fd {
 public:
  socket_fd() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  }
  ~socket_fd() { ::close(fd_); }
  socket_fd(const socket_fd&) = delete;
  socket_fd& operator=(const socket_fd&) = delete;
  socket_fd(socket_fd&&) = delete;
  socket_fd& operator=(socket_fd&&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }

 private:
  int fd_;
};

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

bool port_is_free(std::uint16_t port) {
  const socket_fd sock;
  const sockaddr_in address = loopback(port);
  return ::bind(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
}

// First port of the kernel's ephemeral range (used for outgoing connections).
unsigned ephemeral_range_start() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  unsigned low = 32768;
  in >> low;
  return low;
}

// Milliseconds left until `deadline`, for poll(); 0 once it has passed.
int remaining_ms(clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
}

// Waits for `events` on fd; false on timeout or error.
bool wait_for(int fd, short events, clock::time_point deadline) {
  pollfd entry{fd, events, 0};
  for (;;) {
    const int ready = ::poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

std::vector<std::uint16_t> pick_free_ports(std::size_t count) {
  constexpr unsigned lowest = 10000;
  const unsigned end = std::min(ephemeral_range_start(), 65536U);
  if (end <= lowest + 1000) throw std::runtime_error("pick_free_ports: no port range below the ephemeral range");
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<unsigned> distribution(lowest, end - 1);
  std::set<std::uint16_t> chosen;
  std::vector<std::uint16_t> ports;
  for (int attempt = 0; ports.size() < count; ++attempt) {
    if (attempt > 10000) throw std::runtime_error("pick_free_ports: no free ports found");
    const auto port = static_cast<std::uint16_t>(distribution(random));
    if (chosen.insert(port).second && port_is_free(port)) ports.push_back(port);
  }
  return ports;
}

std::string four_letter_word(std::uint16_t port, std::string_view word, std::chrono::milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  const socket_fd sock;
  const sockaddr_in address = loopback(port);
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EINPROGRESS || !wait_for(sock.get(), POLLOUT, deadline)) return {};
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(sock.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) return {};
  }
  std::size_t sent = 0;
  while (sent < word.size()) {
    const ssize_t n = ::send(sock.get(), word.data() + sent, word.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EAGAIN) {
      if (!wait_for(sock.get(), POLLOUT, deadline)) return {};
    } else if (n < 0 && errno != EINTR) {
      return {};
    }
  }
  // The server writes its text and closes; everything up to EOF (or a reset after the text) is the reply.
  std::string reply;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(sock.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      reply.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!wait_for(sock.get(), POLLIN, deadline)) return {};
      continue;
    }
    return reply;  // EOF, or an error such as a reset after the text
  }
}

std::string parse_srvr_mode(std::string_view srvr_reply) {
  constexpr std::string_view key = "Mode: ";
  const auto at = srvr_reply.find(key);
  if (at == std::string_view::npos) return {};
  auto value = srvr_reply.substr(at + key.size());
  value = value.substr(0, value.find_first_of("\r\n"));
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return std::string(value);
}

}  // namespace zkwire::test
