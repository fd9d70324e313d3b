#pragma once
// The control API of `zkwire proxy --control`: the rule table and the counters of the running proxies as JSON
// resources, independent of HTTP (control_server.hpp serves it).
//
//   GET    /rules      200 [{"id":1,"rule":"request action=drop","fired":0,"matched":0}]  (the rules in force,
//                      in the order they are tried, each in canonical syntax)
//   GET    /rules/ID   200 {"id":..,"rule":..,"fired":..,"matched":..}; 404 when no such rule is in force
//   POST   /rules      body: the rule text (or {"rule":"..."}); 201 {"id":N}; 400 {"error":"..."} for a bad rule,
//                      and then nothing changes
//   DELETE /rules/ID   204; 404 {"error":"..."} when no such rule is in force
//   DELETE /rules      204 (all rules)
//   GET    /stats      200 {"connections":..,"open":..,"requests":{"frames":..,"bytes":..},"replies":{..},
//                      "rules":[{"id":..,"rule":..,"fired":..,"matched":..,"removed":false}],
//                      "members":[{"member":1,"listen":..,"upstream":..,"connections":..,"open":..,
//                      "requests":{..},"replies":{..}}],"seed":..}
// Anything else: 404 (unknown resource) or 405 (known resource, other method), with {"error":"..."}.
//
// Thread safety: handle() may be called from any number of threads at once (an HTTP server's worker threads)
// while the proxies run on their io_context: it touches only the rule table and proxy::stats(), which lock their
// own mutexes (see rule_table.hpp for when a change takes effect). The proxies and the table must outlive it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/faults/proxy.hpp"
#include "zkwire/faults/rule_table.hpp"

namespace zkwire::cli {

// One listen/upstream pair of the proxy command.
struct control_member {
  std::string listen;    // the bound address, "host:port"
  std::string upstream;  // as given on the command line
  const faults::proxy* proxy = nullptr;
};

struct control_response {
  int status = 200;
  std::string body;   // JSON, empty for 204
  std::string allow;  // for 405: the methods the resource takes ("GET, POST, DELETE")
};

class proxy_controller {
 public:
  proxy_controller(std::shared_ptr<faults::rule_table> rules, std::vector<control_member> members);

  // Answers one request. `path` is without the query string. Never throws except std::bad_alloc.
  [[nodiscard]] control_response handle(std::string_view method, std::string_view path, std::string_view body) const;

 private:
  [[nodiscard]] control_response list_rules() const;
  [[nodiscard]] control_response add_rule(std::string_view body) const;
  [[nodiscard]] control_response rule_resource(std::string_view method, std::string_view id_text) const;
  [[nodiscard]] control_response stats() const;

  std::shared_ptr<faults::rule_table> rules_;
  std::vector<control_member> members_;
};

// {"error": message}: the body of every error response.
std::string error_body(std::string_view message);

}  // namespace zkwire::cli
