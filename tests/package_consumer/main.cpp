// Builds against the installed zkwire package and checks that the libraries work: encodes a ping and a
// getData request frame, decodes a reply, parses a connect string and a lock node name, and constructs a client
// (no server needed).
#include <cstdio>
#include <string>

#include <asio/io_context.hpp>

#include "zkwire/client/client.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire/proto/proto.hpp"
#include "zkwire/recipes/node_name.hpp"

int main() {
  namespace proto = zkwire::proto;
  std::string out;
  if (proto::encode_request_frame(out, proto::special_xid::ping, proto::op_code::ping, proto::no_body{}) ||
      out.size() != 12) {
    std::puts("consumer: ping frame is wrong");
    return 1;
  }
  out.clear();
  if (proto::encode_request_frame(out, 1, proto::op_code::get_data, proto::get_data_request{"/consumer", true})) {
    std::puts("consumer: getData frame failed");
    return 1;
  }
  std::string reply;
  proto::encode_reply_frame(reply, proto::reply_header{1, 5, 0},
                            proto::get_data_response{std::string("hi"), proto::stat{}});
  proto::reply decoded;
  if (proto::decode_reply(std::string_view(reply).substr(4), proto::op_code::get_data, decoded) ||
      std::get<proto::get_data_response>(decoded.body).data != std::optional<std::string>("hi")) {
    std::puts("consumer: reply did not round-trip");
    return 1;
  }
  zkwire::connect_string parsed;
  if (zkwire::parse_connect_string("127.0.0.1:2181,[::1]:2182/app", parsed) || parsed.hosts.size() != 2 ||
      parsed.chroot != "/app") {
    std::puts("consumer: connect string parsing failed");
    return 1;
  }
  const auto kazoo_writer = zkwire::recipes::parse_node_name("0f1e2d3c4b5a69788796a5b4c3d2e1f0__lock__0000000007");
  if (kazoo_writer.kind != zkwire::recipes::contender_kind::exclusive || kazoo_writer.sequence != 7) {
    std::puts("consumer: lock node name parsing failed");
    return 1;
  }
  asio::io_context io;
  const zkwire::client client(io.get_executor(), zkwire::client_options{});  // links the client; connects lazily
  std::printf("consumer: zkwire package works (getData frame %zu bytes)\n", out.size());
  return 0;
}
