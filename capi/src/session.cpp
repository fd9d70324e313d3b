// Sessions of the C API: zookeeper_init*, zookeeper_close and the handle's observers and settings.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "logging.hpp"
#include "ops.hpp"
#include "session.hpp"
#include "zkwire/client/tls_options.hpp"
#include "zookeeper_log.h"

namespace zkwire::capi {

void run_completions(zhandle_t* zh);  // handle.cpp

namespace {

std::atomic<bool> deterministic_order{false};

ZooLogLevel level_of(zkwire::log_level level) {
  switch (level) {
    case zkwire::log_level::debug:
      return ZOO_LOG_LEVEL_DEBUG;
    case zkwire::log_level::info:
      return ZOO_LOG_LEVEL_INFO;
    case zkwire::log_level::warning:
      return ZOO_LOG_LEVEL_WARN;
    case zkwire::log_level::error:
      return ZOO_LOG_LEVEL_ERROR;
  }
  return ZOO_LOG_LEVEL_INFO;
}

// A handle's first log lines, as the C client writes them unless ZOO_NO_LOG_CLIENTENV is set: one
// "Client environment:<key>=<value>" line each for the library, the host, the system and the user, which programs
// and log readers look for. (The C client logs the kernel release as os.arch; here os.arch is the machine.)
void log_environment(const zhandle_t* zh) {
  if (logLevel < ZOO_LOG_LEVEL_INFO) return;  // the values cost system calls: only when the lines are written
  const auto line = [zh](const char* key, const std::string& value) {
    log_line(zh, ZOO_LOG_LEVEL_INFO, "log_environment", __LINE__,
             std::string("Client environment:") + key + "=" + value);
  };
  line("zookeeper.version", "zkwire libzookeeper_mt (ZooKeeper C API " ZOO_VERSION ")");
  char text[1024] = {};
  line("host.name", gethostname(text, sizeof text - 1) == 0 ? text : "<unknown>");
  utsname system{};
  if (uname(&system) == 0) {
    line("os.name", system.sysname);
    line("os.arch", system.machine);
    line("os.version", std::string(system.release) + " " + system.version);
  }
  passwd entry{};
  passwd* user = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &user) == 0 && user != nullptr) {
    line("user.name", user->pw_name);
    line("user.home", user->pw_dir);
  }
  line("user.dir", getcwd(text, sizeof text) != nullptr ? text : "<unknown>");
}

// The C client's session event for a state change, or 0 for none.
int session_event_state(const zkwire::state_event& e) {
  switch (e.to) {
    case zkwire::session_state::connected:
      return ZOO_CONNECTED_STATE;
    case zkwire::session_state::connected_read_only:
      return ZOO_READONLY_STATE;
    case zkwire::session_state::suspended:
      return e.from == zkwire::session_state::connected || e.from == zkwire::session_state::connected_read_only
                 ? ZOO_CONNECTING_STATE
                 : 0;
    case zkwire::session_state::expired:
      return ZOO_EXPIRED_SESSION_STATE;
    case zkwire::session_state::auth_failed:
      return ZOO_AUTH_FAILED_STATE;
    default:
      return 0;
  }
}

// Under the client lock: publish the new state and tell the watchers, as the C client does (the handle's watcher, then
// every other watcher waiting for an event, each (function, context) once; per-call watchers hear of an expiry
// from their own final delivery).
void on_state(zhandle_t* zh, const zkwire::state_event& e) {
  // The session's facts first, the state last: a program polling zoo_state reads zoo_client_id as soon as it sees
  // ZOO_CONNECTED_STATE, without a lock (the pointer is the C API's), so both must describe the session by then.
  if (e.to == zkwire::session_state::connected || e.to == zkwire::session_state::connected_read_only) {
    const auto host = zh->client->connected_host();
    const std::string password = zh->client->session_password();
    const std::lock_guard lock(zh->info_mutex);
    clientid_t id{};
    id.client_id = zh->client->session_id();
    std::memcpy(id.passwd, password.data(), std::min(password.size(), sizeof id.passwd));
    // A reconnect resumes the same session: leave the bytes a reader may hold alone unless they change.
    if (std::memcmp(&id, &zh->client_id, sizeof id) != 0) zh->client_id = id;
    zh->current_server = host ? zkwire::to_string(*host) : std::string();
    zh->negotiated_timeout = static_cast<int>(zh->client->session_timeout().count());
  } else {
    const std::lock_guard lock(zh->info_mutex);
    zh->current_server.clear();
  }
  if (e.to == zkwire::session_state::expired || e.to == zkwire::session_state::auth_failed) zh->unrecoverable = true;
  zh->state = state_to_c(e.to);
  const int state = session_event_state(e);
  if (state == 0) return;
  if (state == ZOO_CONNECTED_STATE || state == ZOO_READONLY_STATE) {
    char line[160];
    std::snprintf(line, sizeof line, "session established on server [%s], session id 0x%llx, negotiated timeout %d ms",
                  zh->current_server.c_str(), static_cast<unsigned long long>(zh->client_id.client_id),
                  zh->negotiated_timeout.load());
    log_line(zh, ZOO_LOG_LEVEL_INFO, __func__, __LINE__, line);
  }  // the client logs the other changes itself
  std::vector<zkwire::watcher_key> others;
  if (state == ZOO_CONNECTING_STATE || state == ZOO_CONNECTED_STATE || state == ZOO_READONLY_STATE) {
    others = zh->client->watcher_keys();  // in the order of their first registration (the C client: its tables')
  }
  deliver(zh, [zh, state, others = std::move(others)] {
    watcher_fn global = zh->watcher;
    void* context = zh->context;
    if (global != nullptr) global(zh, ZOO_SESSION_EVENT, state, "", context);
    for (const auto& key : others) {
      const watcher_ref ref = watcher_ref::of(key);
      if (ref.fn == nullptr || (ref.fn == global && ref.context == context)) continue;
      ref.fn(zh, ZOO_SESSION_EVENT, state, "", ref.context);
    }
  });
}

}  // namespace

zhandle_t* init_handle(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid, void* context,
                       int flags, log_callback_fn log_callback, session_setup setup) {
  if (host == nullptr) {
    errno = EINVAL;
    return nullptr;
  }
  const std::string hosts = hosts_from_c(host);
  zkwire::connect_string parsed;
  std::string reason;
  if (zkwire::parse_connect_string(hosts, parsed, &reason)) {
    log_line(nullptr, ZOO_LOG_LEVEL_ERROR, __func__, __LINE__, std::string("invalid host list: ") + reason);
    errno = EINVAL;
    return nullptr;
  }
  auto zh = std::make_unique<_zhandle>();
  zh->watcher = fn;
  zh->context = context;
  zh->log_callback = log_callback;
  if ((flags & ZOO_NO_LOG_CLIENTENV) == 0) log_environment(zh.get());
  zh->requested_timeout = recv_timeout;
  zh->hosts_text = host;
  zh->state = ZOO_CONNECTING_STATE;

  zkwire::client_options options;
  options.connect_string = hosts;
  options.session_timeout = std::chrono::milliseconds(std::max(recv_timeout, 1));
  options.can_be_read_only = (flags & ZOO_READONLY) != 0;
  options.shuffle_hosts = !deterministic_order;
  if (clientid != nullptr && clientid->client_id != 0) {
    options.resume_session_id = clientid->client_id;
    options.resume_session_password.assign(clientid->passwd, sizeof clientid->passwd);
    zh->client_id = *clientid;
  }
  options.start_requests_inline = true;  // under the client lock (handle.hpp)
  // A call made without a connection ends no later than in the C client (docs/libzookeeper.md#result-codes-and-events):
  // with the connection attempt under way, and no attempt lasts longer than the C client's, 2/3 of the session
  // timeout (zkwire's own default, the session timeout shared among the hosts, is shorter from two hosts on).
  options.wait_for_connection = zkwire::connection_wait::one_attempt;
  if (parsed.hosts.size() == 1) {
    options.host_connect_timeout = std::max(options.session_timeout * 2 / 3, std::chrono::milliseconds(1));
  }
  options.tls = std::move(setup.tls);
  options.sasl = std::move(setup.sasl);
  zhandle_t* raw = zh.get();
  options.logger = [raw](zkwire::log_level level, std::string_view message) {
    log_line(raw, level_of(level), "zkwire", 0, message);
  };
  try {
    zh->client.emplace(locked_executor(zh->io, zh->client_lock), std::move(options));
  } catch (const std::exception& e) {
    log_line(raw, ZOO_LOG_LEVEL_ERROR, __func__, __LINE__, e.what());
    errno = EINVAL;
    return nullptr;
  }
  zh->client->set_state_listener([raw](const zkwire::state_event& e) { on_state(raw, e); });
  if (setup.refused.empty()) {
    zh->client->async_connect([](std::error_code) {});  // the session starts; the watcher hears of it
  } else {
    // The SASL login cannot even start (zookeeper_init_sasl): the session fails as one the server refused, without
    // a connection.
    log_line(raw, ZOO_LOG_LEVEL_ERROR, __func__, __LINE__, "SASL authentication failed: " + setup.refused);
    zh->state = ZOO_AUTH_FAILED_STATE;
    zh->unrecoverable = true;
    deliver(raw, [raw] {
      watcher_fn global = raw->watcher;
      if (global != nullptr) global(raw, ZOO_SESSION_EVENT, ZOO_AUTH_FAILED_STATE, "", raw->context);
    });
  }
  zh->io_work.emplace(zh->io.get_executor());
  log_line(raw, ZOO_LOG_LEVEL_INFO, __func__, __LINE__,
           "initiating client connection, host=" + raw->hosts_text + " sessionTimeout=" + std::to_string(recv_timeout) +
               " watcher=" + (fn != nullptr ? "set" : "none") + " flags=" + std::to_string(flags));
  try {
    zh->io_thread = std::thread([raw] { raw->io.run(); });
    zh->completion_thread = std::thread(run_completions, raw);
  } catch (const std::system_error&) {
    if (zh->io_thread.joinable()) {
      zh->io_work.reset();
      asio::post(zh->io, [raw] { raw->client.reset(); });
      zh->io_thread.join();
    }
    errno = ENOMEM;
    return nullptr;
  }
  return zh.release();
}

namespace {

// "ca,cert,key[,password]" of zookeeper_init_ssl; the password decrypts an encrypted key.
bool parse_cert(const char* cert, zkwire::tls_options& out) {
  if (cert == nullptr) return false;
  std::vector<std::string> parts;
  std::string text = cert;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (parts.size() < 3 || parts.size() > 4 || parts[0].empty()) return false;
  out.ca_file = parts[0];
  out.cert_file = parts[1];
  out.key_file = parts[2];
  if (parts.size() == 4) out.key_password = parts[3];
  // The C client checks the chain but not the host name; so do we, or programs that connect by address to
  // servers whose certificates name hosts would stop working.
  out.verify_host_name = false;
  return true;
}

}  // namespace

}  // namespace zkwire::capi

using namespace zkwire::capi;  // NOLINT(google-build-using-namespace): the C entry points below use it throughout

extern "C" {

ZOOAPI zhandle_t* zookeeper_init(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                 void* context, int flags) {
  return init_handle(host, fn, recv_timeout, clientid, context, flags, nullptr, {});
}

ZOOAPI zhandle_t* zookeeper_init2(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                  void* context, int flags, log_callback_fn log_callback) {
  return init_handle(host, fn, recv_timeout, clientid, context, flags, log_callback, {});
}

ZOOAPI zhandle_t* zookeeper_init_ssl(const char* host, const char* cert, watcher_fn fn, int recv_timeout,
                                     const clientid_t* clientid, void* context, int flags) {
  zkwire::tls_options tls;
  if (!parse_cert(cert, tls)) {
    errno = EINVAL;
    return nullptr;
  }
  session_setup setup;
  setup.tls = std::move(tls);
  return init_handle(host, fn, recv_timeout, clientid, context, flags, nullptr, std::move(setup));
}

ZOOAPI void close_zsock(zsock_t* /*zsock*/) {}  // the library keeps no zsock_t of the application's

ZOOAPI int zookeeper_close(zhandle_t* zh) {
  if (zh == nullptr) return ZBADARGUMENTS;
  if (zh->closing.exchange(true)) return ZOK;
  log_line(zh, ZOO_LOG_LEVEL_INFO, __func__, __LINE__, "closing zookeeper session");
  // Close the session (pending calls complete with ZCLOSING), then let the I/O thread finish what is posted.
  std::promise<void> closed;
  run_locked(zh, [zh, &closed] {
    if (!zh->client) {
      closed.set_value();
      return;
    }
    zh->client->async_close([&closed](std::error_code) { closed.set_value(); });
  });
  closed.get_future().wait();
  run_locked(zh, [zh] {
    zh->client.reset();
    zh->io_work.reset();
  });
  zh->io_thread.join();
  zh->state = 0;
  if (completion_thread_handle() == zh) {
    // Inside a completion or watcher of this handle: its thread frees the handle once this callback returned and
    // what was queued before ran.
    zh->free_on_completion_exit = true;
    zh->completion_thread.detach();
    zh->completions.stop();
    return ZOK;
  }
  zh->completions.stop();
  zh->completion_thread.join();
  delete zh;
  return ZOK;
}

ZOOAPI int zoo_state(zhandle_t* zh) { return zh != nullptr ? zh->state.load() : 0; }

ZOOAPI const clientid_t* zoo_client_id(zhandle_t* zh) {
  if (zh == nullptr) return nullptr;
  return &zh->client_id;
}

ZOOAPI int zoo_recv_timeout(zhandle_t* zh) {
  if (zh == nullptr) return -1;
  const int negotiated = zh->negotiated_timeout;
  return negotiated != 0 ? negotiated : zh->requested_timeout;
}

ZOOAPI const void* zoo_get_context(zhandle_t* zh) { return zh != nullptr ? zh->context.load() : nullptr; }

ZOOAPI void zoo_set_context(zhandle_t* zh, void* context) {
  if (zh != nullptr) zh->context = context;
}

ZOOAPI watcher_fn zoo_set_watcher(zhandle_t* zh, watcher_fn fn) {
  if (zh == nullptr) return nullptr;
  return zh->watcher.exchange(fn);
}

ZOOAPI const char* zoo_get_current_server(zhandle_t* zh) {
  if (zh == nullptr) return nullptr;
  const std::lock_guard lock(zh->info_mutex);
  zh->current_server_copy = zh->current_server;
  return zh->current_server_copy.empty() ? nullptr : zh->current_server_copy.c_str();
}

ZOOAPI struct sockaddr* zookeeper_get_connected_host(zhandle_t* zh, struct sockaddr* addr, socklen_t* addr_len) {
  if (zh == nullptr || addr == nullptr || addr_len == nullptr) return nullptr;
  if (zh->state != ZOO_CONNECTED_STATE && zh->state != ZOO_READONLY_STATE) return nullptr;
  std::string server;
  {
    const std::lock_guard lock(zh->info_mutex);
    server = zh->current_server;
  }
  zkwire::connect_string parsed;
  if (server.empty() || zkwire::parse_connect_string(server, parsed) || parsed.hosts.empty()) return nullptr;
  const auto& hp = parsed.hosts.front();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(hp.host.c_str(), std::to_string(hp.port).c_str(), &hints, &found) != 0 || found == nullptr) {
    return nullptr;
  }
  struct sockaddr* out = nullptr;
  if (found->ai_addrlen <= *addr_len) {
    std::memcpy(addr, found->ai_addr, found->ai_addrlen);
    *addr_len = found->ai_addrlen;
    out = addr;
  }
  freeaddrinfo(found);
  return out;
}

ZOOAPI int zoo_set_servers(zhandle_t* zh, const char* hosts) {
  if (zh == nullptr || hosts == nullptr) return ZBADARGUMENTS;
  if (zh->closing) return ZINVALIDSTATE;
  zkwire::connect_string parsed;
  if (zkwire::parse_connect_string(hosts_from_c(hosts), parsed) || parsed.hosts.empty()) return ZBADARGUMENTS;
  run_locked(zh, [zh, list = std::move(parsed.hosts)]() mutable {
    if (zh->client) zh->client->set_hosts(std::move(list));
  });
  return ZOK;
}

ZOOAPI int zoo_set_servers_resolution_delay(zhandle_t* zh, int delay_ms) {
  if (zh == nullptr || delay_ms < -1) return ZBADARGUMENTS;
  // zkwire resolves host names at every connection attempt, which is what a delay of 0 asks for; a longer delay
  // only saves the C client resolver calls (docs/libzookeeper.md#differences).
  return ZOK;
}

ZOOAPI void zoo_cycle_next_server(zhandle_t* zh) {
  if (zh == nullptr || zh->closing) return;
  run_locked(zh, [zh] {
    if (!zh->client) return;
    const auto& hosts = zh->client->servers().hosts;
    const auto current = zh->client->connected_host();
    std::size_t next = 0;
    if (current) {
      const auto it = std::find(hosts.begin(), hosts.end(), *current);
      if (it != hosts.end()) next = (static_cast<std::size_t>(it - hosts.begin()) + 1) % hosts.size();
    }
    zh->client->switch_host(next);
  });
}

ZOOAPI void zoo_deterministic_conn_order(int yes) { deterministic_order = yes != 0; }

ZOOAPI int is_unrecoverable(zhandle_t* zh) {
  if (zh == nullptr) return ZINVALIDSTATE;
  return zh->unrecoverable ? ZINVALIDSTATE : ZOK;
}

ZOOAPI int zoo_add_auth(zhandle_t* zh, const char* scheme, const char* cert, int cert_len, void_completion_t completion,
                        const void* data) {
  if (zh == nullptr || scheme == nullptr) return ZBADARGUMENTS;
  if (const int rc = check_handle(zh)) return rc;
  std::string credentials;
  if (cert != nullptr && cert_len > 0) credentials.assign(cert, static_cast<std::size_t>(cert_len));
  start_void_op(
      zh,
      [scheme = std::string(scheme), credentials = std::move(credentials)](zkwire::client& c, auto done) mutable {
        c.async_add_auth(std::move(scheme), std::move(credentials), std::move(done));
      },
      async_sink<none>(zh, [completion, data](int rc, none&) {
        if (completion != nullptr) completion(rc, data);
      }));
  return ZOK;
}

}  // extern "C"
