// zkwire proxy --listen HOST:PORT --upstream HOST:PORT [--rule RULE]... [--seed N] [--log FILE]
// A frame-aware fault-injection proxy in front of one ZooKeeper server (faults/README.md has the rule syntax).

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
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "util.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire::cli {
namespace {

struct proxy_arguments {
  std::string listen;
  std::string upstream;
  std::vector<std::string> rules;
  std::uint64_t seed = 0;
  std::string log;
};

// --rule repeats, so the options are read here rather than with parse_args (which keeps the last value only).
proxy_arguments parse_proxy_arguments(const std::vector<std::string>& args) {
  proxy_arguments out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (name == "-h" || name == "--help") throw help_requested{};
    if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    const bool known =
        name == "--listen" || name == "--upstream" || name == "--rule" || name == "--seed" || name == "--log";
    if (!known) throw usage_error("unexpected argument '" + args[i] + "' (see zkwire proxy --help)");
    if (!has_value) {
      if (i + 1 >= args.size()) throw usage_error("option " + name + " needs a value");
      value = args[++i];
    }
    if (name == "--listen") {
      out.listen = value;
    } else if (name == "--upstream") {
      out.upstream = value;
    } else if (name == "--rule") {
      out.rules.push_back(value);
    } else if (name == "--seed") {
      out.seed = static_cast<std::uint64_t>(parse_integer(value, 1, INT64_MAX, "--seed"));
    } else {
      out.log = value;
    }
  }
  if (out.listen.empty()) throw usage_error("--listen HOST:PORT is required");
  if (out.upstream.empty()) throw usage_error("--upstream HOST:PORT is required");
  return out;
}

// "host:port" or "[v6]:port"; port 0 is allowed when `allow_zero` (listen on a free port).
std::pair<std::string, std::uint16_t> split_host_port(const std::string& text, std::string_view option,
                                                      bool allow_zero) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) throw usage_error(std::string(option) + ": expected HOST:PORT");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const auto port = parse_integer(text.substr(colon + 1), allow_zero ? 0 : 1, 65535, std::string(option) + " port");
  return {host, static_cast<std::uint16_t>(port)};
}

int run(const command_context& context) {
  const proxy_arguments args = parse_proxy_arguments(context.args);
  faults::proxy_options options;
  std::tie(options.listen_host, options.listen_port) = split_host_port(args.listen, "--listen", true);
  std::tie(options.upstream_host, options.upstream_port) = split_host_port(args.upstream, "--upstream", false);
  options.seed = args.seed;

  std::vector<faults::rule> rules;
  for (const auto& text : args.rules) {
    auto parsed = faults::parse_rule(text);
    if (!parsed.rule) throw usage_error("--rule '" + text + "': " + parsed.error);
    rules.push_back(std::move(*parsed.rule));
  }

  // Shared with the proxy's log callback; flushed per line because tests and people tail it while it runs.
  auto log_file = std::make_shared<std::ofstream>();
  if (!args.log.empty() && args.log != "-") {
    log_file->open(args.log, std::ios::app);
    if (!*log_file) throw usage_error("--log " + args.log + ": cannot open for appending");
  }
  if (!args.log.empty()) {
    std::ostream* out = args.log == "-" ? &std::cout : log_file.get();
    options.log = [log_file, out](std::string_view line) { *out << line << '\n' << std::flush; };
  }

  asio::io_context io;
  faults::proxy proxy(io.get_executor(), options);
  for (auto& r : rules) proxy.add_rule(std::move(r));
  if (auto ec = proxy.listen()) {
    std::fprintf(stderr, "zkwire: proxy: cannot listen on %s for %s: %s\n", args.listen.c_str(), args.upstream.c_str(),
                 ec.message().c_str());
    return exit_no_session;
  }
  std::cout << proxy.address() << std::endl;  // the first line on stdout: scripts read it
  std::fprintf(stderr, "zkwire: proxy: %s -> %s, %zu rule(s), seed %llu\n", proxy.address().c_str(),
               args.upstream.c_str(), args.rules.size(), static_cast<unsigned long long>(proxy.seed()));

  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](std::error_code ec, int) {
    if (ec) return;
    proxy.stop();
    io.stop();
  });
  io.run();
  return exit_ok;
}

constexpr std::string_view help =
    R"(Listens on HOST:PORT (port 0: a free one; the address is printed on stdout) and forwards every
connection to the upstream ZooKeeper server, splitting both directions into frames and applying the
first rule that fires to each frame. Runs until SIGINT or SIGTERM.

  --listen HOST:PORT     where clients connect
  --upstream HOST:PORT   the server (or ensemble member) behind the proxy
  --rule RULE            a fault rule; repeatable, tried in order (the first one that fires wins)
  --seed N               seed for p= and corrupt (default: random, printed on stderr)
  --log FILE             one JSON line per frame and connection event ('-': stdout)

RULE is a list of words: a direction, KEY=VALUE selectors and conditions, and an action.
  direction   request | reply | any (default) | accept (a new connection)
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
  accept rules take pass, delay (before connecting upstream), rst, fin or blackhole.
  For each frame the rules are tried in order; the first one that fires is applied. Full reference:
  faults/README.md.

Examples:
  zkwire proxy --listen 127.0.0.1:0 --upstream 127.0.0.1:2181 \
      --rule 'reply op=create2 path=/locks/* nth=1 action=drop-then-rst'
  zkwire proxy --listen 127.0.0.1:12181 --upstream 127.0.0.1:2181 --seed 7 --log /tmp/frames.jsonl \
      --rule 'any p=0.01 action=delay ms=500' --rule 'accept for=3000 action=rst'
)";

}  // namespace

const command proxy_command{"proxy",
                            "proxy --listen HOST:PORT --upstream HOST:PORT [--rule RULE]... [--seed N] [--log FILE]",
                            "a fault-injecting ZooKeeper proxy (drop, delay, hold, corrupt, reset, ...)", help, run};

}  // namespace zkwire::cli
