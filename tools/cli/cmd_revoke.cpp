// zkwire revoke NODE

#include "async_session.hpp"
#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "util.hpp"
#include "zkwire/proto/path.hpp"
#include "zkwire/recipes/node_name.hpp"
#include "zkwire/recipes/revoke.hpp"

namespace zkwire::cli {
namespace {

int run_revoke_command(const command_context& context) {
  command_parser parser;
  std::string node;
  parser.positional("NODE", node);
  parser.parse(context.args);
  check_path(node);
  // The request overwrites the node's data: refuse anything that is not a lock node, so a typo cannot clobber a
  // configuration node.
  const std::string name(proto::node_name(node));
  if (!recipes::parse_node_name(name).is_contender()) {
    throw usage_error("'" + node + "' is not a lock node (see zkwire locks)");
  }
  async_session s(context.global);
  s.connect();
  const auto [ec, unused] = s.wait<zkwire::stat>([&](auto handler) {
    recipes::async_revoke(s.client(), node, recipes::revoke_request::curator, std::move(handler));
  });
  if (ec) throw operation_error(ec, node);
  s.close(s.connect_timeout());
  return exit_ok;
}

}  // namespace

const command revoke_command{"revoke", "revoke NODE", "ask the holder of a lock node to release it",
                             R"(Asks the holder of the lock node NODE (a full path, as `zkwire locks` prints it) to
release the lock: writes "__REVOKE__" to the node's data, the request Curator's revocable locks and zkwire's
holders understand (a `zkwire lock` holder then sends its command SIGTERM and releases when it has ended).
Releasing is up to the holder; holders that do not support revocation ignore the request. Prints nothing.

Exit status: 0 once the request is written (not when the lock is released), 1 no such node, 2 NODE is not a lock
node, 3 refused (NOAUTH), 4 no session or connection lost (outcome unknown).
)",
                             run_revoke_command};

}  // namespace zkwire::cli
