#include "zkwire/client/connect_string.hpp"

#include <gtest/gtest.h>

#include <string>

#include "zkwire/client/errors.hpp"

namespace zkwire {
namespace {

connect_string parse_ok(std::string_view text) {
  connect_string out;
  std::string reason;
  const auto ec = parse_connect_string(text, out, &reason);
  EXPECT_FALSE(ec) << text << ": " << reason;
  return out;
}

std::string parse_error(std::string_view text, std::error_code expected = client_errc::invalid_connect_string) {
  connect_string out;
  std::string reason;
  const auto ec = parse_connect_string(text, out, &reason);
  EXPECT_EQ(ec, expected) << text;
  EXPECT_FALSE(reason.empty()) << text;
  return reason;
}

TEST(connect_string, HostsPortsAndDefaults) {
  const auto cs = parse_ok("zk1:2181,10.0.0.2:2888, zk3.example.com ");
  ASSERT_EQ(cs.hosts.size(), 3U);
  EXPECT_EQ(cs.hosts[0], (host_port{"zk1", 2181}));
  EXPECT_EQ(cs.hosts[1], (host_port{"10.0.0.2", 2888}));
  EXPECT_EQ(cs.hosts[2], (host_port{"zk3.example.com", default_port}));
  EXPECT_EQ(cs.chroot, "");
}

TEST(connect_string, Ipv6NeedsBrackets) {
  const auto cs = parse_ok("[::1]:2182,[fe80::1%eth0],127.0.0.1");
  ASSERT_EQ(cs.hosts.size(), 3U);
  EXPECT_EQ(cs.hosts[0], (host_port{"::1", 2182}));
  EXPECT_EQ(cs.hosts[1], (host_port{"fe80::1%eth0", default_port}));
  EXPECT_EQ(to_string(cs.hosts[0]), "[::1]:2182");
  EXPECT_EQ(to_string(cs.hosts[2]), "127.0.0.1:2181");
  EXPECT_NE(parse_error("::1:2181").find("brackets"), std::string::npos);
  EXPECT_NE(parse_error("[::1").find("']'"), std::string::npos);
  parse_error("[::1]x");
  parse_error("[]:2181");
}

TEST(connect_string, Chroot) {
  EXPECT_EQ(parse_ok("a:1/app/root").chroot, "/app/root");
  EXPECT_EQ(parse_ok("a:1,b:2/app").chroot, "/app");
  EXPECT_EQ(parse_ok("a:1/").chroot, "");  // "/" means none
  EXPECT_NE(parse_error("a:1/app/", client_error::invalid_path).find("chroot"), std::string::npos);
  parse_error("a:1/app//x", client_error::invalid_path);
  parse_error("a:1/app/..", client_error::invalid_path);
}

TEST(connect_string, ClearErrors) {
  EXPECT_NE(parse_error("").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("/chroot").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("a:1,,b:2").find("host 2"), std::string::npos);
  EXPECT_NE(parse_error("a:0").find("1..65535"), std::string::npos);
  EXPECT_NE(parse_error("a:65536").find("1..65535"), std::string::npos);
  parse_error("a:");
  parse_error("a:12x");
  parse_error(":2181");
  parse_error("a b:1");
  EXPECT_EQ(parse_ok("a:65535").hosts[0].port, 65535);
}

}  // namespace
}  // namespace zkwire
