// zkwire proxy --listen HOST:PORT --upstream HOST:PORT [--listen HOST:PORT --upstream HOST:PORT]... [--rule RULE]...
//              [--seed N] [--log FILE] [--control HOST:PORT]
// A frame-aware fault-injection proxy in front of one ZooKeeper server or a whole ensemble (faults/README.md has
// the rule syntax), with an optional HTTP control API for changing the rules while it runs (proxy_control.hpp).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "control_server.hpp"
#include "errors.hpp"
#include "proxy_control.hpp"
#include "util.hpp"
#include "values.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire::cli {
namespace {

struct host_port {
  std::string host;
  std::uint16_t port = 0;
};

struct member_arguments {
  std::string listen;
  std::string upstream;
};

struct proxy_arguments {
  std::vector<member_arguments> members;  // in command-line order: member 1, 2, ...
  std::vector<std::string> rules;
  std::uint64_t seed = 0;
  std::string log;
  std::string control;
};

// Pairs each --listen with the --upstream that follows it. One of each may come in either order (as always).
std::vector<member_arguments> pair_members(const CLI::App& app, const CLI::Option* listen_option,
                                           const std::vector<std::string>& listens,
                                           const std::vector<std::string>& upstreams) {
  if (listens.empty()) throw usage_error("--listen HOST:PORT is required");
  if (upstreams.empty()) throw usage_error("--upstream HOST:PORT is required");
  if (listens.size() == 1 && upstreams.size() == 1) return {{listens[0], upstreams[0]}};
  std::vector<member_arguments> members;
  std::size_t next_listen = 0;
  std::size_t next_upstream = 0;
  bool waiting = false;  // a --listen without its --upstream yet
  for (const CLI::Option* option : app.parse_order()) {
    const bool is_listen = option == listen_option;
    if (!is_listen && option->get_name() != "--upstream") continue;
    if (is_listen) {
      if (waiting) {
        throw usage_error("--listen " + members.back().listen + " has no --upstream after it (with several " +
                          "members, give each --listen HOST:PORT followed by its --upstream HOST:PORT)");
      }
      members.push_back({listens[next_listen++], {}});
      waiting = true;
    } else {
      if (!waiting) throw usage_error("--upstream " + upstreams[next_upstream] + " does not follow a --listen");
      members.back().upstream = upstreams[next_upstream++];
      waiting = false;
    }
  }
  if (waiting) throw usage_error("--listen " + members.back().listen + " has no --upstream after it");
  return members;
}

proxy_arguments parse_proxy_arguments(const std::vector<std::string>& args) {
  CLI::App app("zkwire proxy", "proxy");
  app.set_help_flag("-h,--help");
  proxy_arguments out;
  std::vector<std::string> listens;
  std::vector<std::string> upstreams;
  // Each occurrence takes exactly one value, so `--rule 'a b'` is one rule and `--listen A B` an error.
  const auto one_each = [](CLI::Option* o) { return o->allow_extra_args(false); };
  auto* listen_option = one_each(app.add_option("--listen", listens));
  one_each(app.add_option("--upstream", upstreams));
  one_each(app.add_option("--rule", out.rules));
  app.add_option("--seed", out.seed)
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{INT64_MAX}))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--log", out.log)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--control", out.control)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  parse_app(app, args, " (see zkwire proxy --help)");
  out.members = pair_members(app, listen_option, listens, upstreams);
  return out;
}

// "host:port" or "[v6]:port"; port 0 is allowed when `allow_zero` (listen on a free port).
host_port split_host_port(const std::string& text, std::string_view option, bool allow_zero) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw usage_error(std::string(option) + " " + text + ": expected HOST:PORT");
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const auto port = parse_integer(text.substr(colon + 1), allow_zero ? 0 : 1, 65535, std::string(option) + " port");
  return {host, static_cast<std::uint16_t>(port)};
}

// The log sink shared by the proxies' callbacks; flushed per line because tests and people tail it while it runs.
std::function<void(std::string_view)> open_log(const std::string& target) {
  if (target.empty()) return {};
  if (target == "-") return [](std::string_view line) { std::cout << line << '\n' << std::flush; };
  auto file = std::make_shared<std::ofstream>(target, std::ios::app);
  if (!*file) throw usage_error("--log " + target + ": cannot open for appending");
  return [file](std::string_view line) { *file << line << '\n' << std::flush; };
}

std::string url_host(const std::string& host) { return host.find(':') == std::string::npos ? host : "[" + host + "]"; }

int run_proxy_command(const command_context& context) {
  const proxy_arguments args = parse_proxy_arguments(context.args);
  std::vector<faults::proxy_options> member_options;
  for (const auto& m : args.members) {
    faults::proxy_options options;
    const host_port listen = split_host_port(m.listen, "--listen", true);
    const host_port upstream = split_host_port(m.upstream, "--upstream", false);
    options.listen_host = listen.host;
    options.listen_port = listen.port;
    options.upstream_host = upstream.host;
    options.upstream_port = upstream.port;
    member_options.push_back(std::move(options));
  }
  std::optional<host_port> control_address;
  if (!args.control.empty()) control_address = split_host_port(args.control, "--control", true);

  // One table for every member: rule ids are common, and member=N picks the member.
  auto rules = std::make_shared<faults::rule_table>(args.seed != 0 ? args.seed : faults::random_seed());
  for (const auto& text : args.rules) {
    std::string why;
    if (!rules->add(text, &why)) {
      std::string message = "--rule '";
      message.append(text).append("': ").append(why);
      throw usage_error(message);
    }
  }
  const auto log = open_log(args.log);

  asio::io_context io;
  std::vector<std::unique_ptr<faults::proxy>> proxies;
  std::vector<control_member> members;
  const bool ensemble = args.members.size() > 1;
  for (std::size_t i = 0; i < args.members.size(); ++i) {
    auto& options = member_options[i];
    options.rules = rules;
    options.member = ensemble ? static_cast<std::uint32_t>(i + 1) : 0;  // one pair: log lines as they always were
    options.log = log;
    auto& proxy = *proxies.emplace_back(std::make_unique<faults::proxy>(io.get_executor(), options));
    if (auto ec = proxy.listen()) {
      std::fprintf(stderr, "zkwire: proxy: cannot listen on %s for %s: %s\n", args.members[i].listen.c_str(),
                   args.members[i].upstream.c_str(), ec.message().c_str());
      return exit_no_session;
    }
    members.push_back({proxy.address(), args.members[i].upstream, &proxy});
  }

  // The control server's threads only touch the rule table and the proxies' counters (both thread-safe); it is
  // stopped before the proxies are destroyed.
  const proxy_controller controller(rules, members);
  control_server control(controller);
  if (control_address && !control.bind(control_address->host, control_address->port)) {
    std::fprintf(stderr, "zkwire: proxy: cannot listen on %s for --control\n", args.control.c_str());
    return exit_no_session;
  }

  // stdout: the members' bound addresses, one per line in command-line order (a single pair: the first line, as
  // scripts have always read it), then the control URL.
  for (const auto& m : members) std::cout << m.listen << '\n';
  if (control_address) {
    control.start();
    std::cout << "control http://" << url_host(control_address->host) << ':' << control.port() << '\n';
  }
  std::cout << std::flush;
  if (!ensemble) {
    std::fprintf(stderr, "zkwire: proxy: %s -> %s, %zu rule(s), seed %llu\n", members[0].listen.c_str(),
                 members[0].upstream.c_str(), args.rules.size(), static_cast<unsigned long long>(rules->seed()));
  } else {
    for (std::size_t i = 0; i < members.size(); ++i) {
      std::fprintf(stderr, "zkwire: proxy: member %zu: %s -> %s\n", i + 1, members[i].listen.c_str(),
                   members[i].upstream.c_str());
    }
    std::fprintf(stderr, "zkwire: proxy: %zu rule(s), seed %llu\n", args.rules.size(),
                 static_cast<unsigned long long>(rules->seed()));
  }

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](std::error_code ec, int) {
    if (ec) return;
    for (auto& p : proxies) p->stop();
    io.stop();
  });
  io.run();
  control.stop();
  return exit_ok;
}

constexpr std::string_view help =
    R"(Listens on HOST:PORT (port 0: a free one) and forwards every connection to the upstream ZooKeeper
server, splitting both directions into frames and applying the first rule that fires to each frame.
Runs until SIGINT or SIGTERM.

  --listen HOST:PORT     where clients connect
  --upstream HOST:PORT   the server (or ensemble member) behind that listen address
  --rule RULE            a fault rule; repeatable, tried in order (the first one that fires wins)
  --seed N               seed for p= and corrupt (default: random, printed on stderr)
  --log FILE             one JSON line per frame and connection event ('-': stdout)
  --control HOST:PORT    serve the HTTP control API there (port 0: a free one); it has no
                         authentication, so keep it on a loopback or test-network address

A whole ensemble through one proxy: repeat the pair, each --listen followed by its --upstream; the pairs
are members 1, 2, ... in that order, share one rule list, and rules can name a member (member=2).

stdout: the bound listen address of each member, one line each in order, then with --control
"control http://HOST:PORT". Other messages go to stderr.

Control API (JSON bodies; curl -s http://HOST:PORT/rules):
  GET /rules           [{"id":1,"rule":"request action=drop","fired":0,"matched":0}], in the order tried
  POST /rules          body: the rule text (or {"rule":"..."}) -> 201 {"id":N}; bad rule: 400 {"error":..}
  DELETE /rules/ID     -> 204 (404 if there is no such rule); DELETE /rules -> 204 (all rules)
  GET /stats           {"connections":N,"open":N,"requests":{"frames":N,"bytes":N},"replies":{...},
                        "rules":[{"id","rule","fired","matched","removed"}],"members":[...],"seed":N}
  Rules from --rule are listed with the others (ids 1, 2, ...). A change applies to every frame after
  it, on open connections too.

RULE is a list of words: a direction, KEY=VALUE selectors and conditions, and an action.
  direction   request | reply | any (default) | accept (a new connection)
  member=N    only frames of these members (comma-separated; a single pair is member 1)
  op=NAMES    ZooKeeper opcode names, comma-separated: create2, getData, setData, delete, multi, ping,
              auth, setWatches, closeSession, notification, connect (the handshake), ...
  xid=N       the frame's xid (-1 notification, -2 ping, -4 auth)
  path=P      a path prefix, or a glob with * (any characters, '/' included) and ?
  nth=N       fire only on the N-th frame the rule selects
  count=N     fire at most N times
  p=F         fire with probability F (seeded)
  for=MS      the rule is active for MS milliseconds after it is added
  ms=MS       the time of delay and hold (hold without ms: until the connection closes)
  hex=BYTES   the bytes of inject and rewrite
  action=STEP[-then-STEP...], applied in order:
    pass       forward unchanged          drop       do not forward the frame
    delay      forward after ms           hold       stall the connection (both ways, pings too)
    corrupt    flip one seeded body byte  truncate   forward only half the payload
    duplicate  forward it twice           reorder    forward it after the next frame
    inject     write hex before it        rewrite    keep the header, replace the body with hex
    and as the last step: rst (SO_LINGER 0), fin, or blackhole (keep the sockets, forward nothing);
    these end the connection and never forward the frame. Reply rules see the request's opcode and
    path (matched by xid), so 'reply op=create2 action=drop-then-rst' is the create-then-crash case.
  accept rules take pass, delay (before connecting upstream), rst, fin or blackhole, and select by
  member, nth, count, p and for only.
  For each frame the rules are tried in order; the first one that fires is applied. nth= and count=
  count over all members. Full reference: faults/README.md.

Exit status: 0 after SIGINT/SIGTERM, 2 bad option or rule, 4 cannot listen.

Examples:
  zkwire proxy --listen 127.0.0.1:0 --upstream 127.0.0.1:2181 \
      --rule 'reply op=create2 path=/locks/* nth=1 action=drop-then-rst'
  zkwire proxy --listen 127.0.0.1:12181 --upstream 127.0.0.1:2181 --seed 7 --log /tmp/frames.jsonl \
      --rule 'any p=0.01 action=delay ms=500' --rule 'accept for=3000 action=rst'
  zkwire proxy --control 127.0.0.1:8080 --listen 127.0.0.1:12181 --upstream 10.0.0.1:2181 \
      --listen 127.0.0.1:12182 --upstream 10.0.0.2:2181 --listen 127.0.0.1:12183 --upstream 10.0.0.3:2181
  curl -s -d 'member=2 any action=blackhole' http://127.0.0.1:8080/rules     # partition member 2
  curl -s -X DELETE http://127.0.0.1:8080/rules/1                             # heal (new connections get through)
)";

}  // namespace

const command proxy_command{
    "proxy",
    "proxy --listen HOST:PORT --upstream HOST:PORT [--listen HOST:PORT --upstream HOST:PORT]... [--rule RULE]... "
    "[--seed N] [--log FILE] [--control HOST:PORT]",
    "a fault-injecting ZooKeeper proxy (drop, delay, hold, corrupt, reset, ...) with an HTTP control API", help,
    run_proxy_command};

}  // namespace zkwire::cli
