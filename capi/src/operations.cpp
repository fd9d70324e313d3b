#include "operations.hpp"

#include <algorithm>
#include <cstring>

namespace zkwire::capi {

namespace {

// The client's completion for a watched read, forgetting the watcher when the read did not arm it.
template <class Result, class Done>
auto forget_unless_armed(zhandle_t* zh, std::uint64_t key, Done done, bool armed_on_no_node = false) {
  return [zh, key, done = std::move(done), armed_on_no_node](std::error_code ec, Result result) mutable {
    const bool armed = !ec || (armed_on_no_node && ec == zkwire::server_error::no_node);
    if (!armed) forget_watcher(zh, key);
    done(ec, std::move(result));
  };
}

// Starts a read without a watch, plain(client, done), or with one, watched(client, callback, done).
template <class Result, class Plain, class Watched>
void start_read(zhandle_t* zh, const watch_arg& watch, Plain plain, Watched watched, sink<Result> out,
                bool armed_on_no_node = false) {
  start_op<Result>(
      zh,
      [zh, watch, plain = std::move(plain), watched = std::move(watched), armed_on_no_node](zkwire::client& c,
                                                                                            auto done) mutable {
        if (!watch.wanted()) {
          plain(c, std::move(done));
          return;
        }
        auto w = arm_watcher(zh, watch);
        watched(c, std::move(w.callback), forget_unless_armed<Result>(zh, w.key, std::move(done), armed_on_no_node));
      },
      std::move(out));
}

}  // namespace

int make_create_args(const char* path, const char* value, int valuelen, const struct ACL_vector* acl, int mode,
                     int64_t ttl, create_args& out) {
  zkwire::create_mode m{};
  if (!create_mode_from_c(mode, m)) return ZBADARGUMENTS;
  if (const int rc = check_path(path, proto::is_sequential(m))) return rc;
  if (proto::is_ttl(m) && (ttl <= 0 || ttl > proto::max_ttl_ms)) return ZBADARGUMENTS;
  if (!proto::is_ttl(m) && ttl >= 0) return ZBADARGUMENTS;  // a TTL for a mode without one, as the C client says
  out.path = path;
  out.options.mode = m;
  out.options.ttl = proto::is_ttl(m) ? ttl : -1;
  out.options.acl = acl_from_c(acl);
  if (value == nullptr || valuelen < 0) {
    out.options.null_data = true;
  } else {
    out.data.assign(value, static_cast<std::size_t>(valuelen));
  }
  return ZOK;
}

void launch_create(zhandle_t* zh, create_args args, sink<zkwire::create_result> out) {
  start_op<zkwire::create_result>(
      zh,
      [args = std::move(args)](zkwire::client& c, auto done) mutable {
        c.async_create(std::move(args.path), std::move(args.data), args.options, std::move(done));
      },
      std::move(out));
}

void launch_delete(zhandle_t* zh, std::string path, int version, sink<none> out) {
  start_void_op(
      zh,
      [path = std::move(path), version](zkwire::client& c, auto done) mutable {
        c.async_remove(std::move(path), version, std::move(done));
      },
      std::move(out));
}

void launch_exists(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::stat> out) {
  sink<std::optional<zkwire::stat>> found = [out = std::move(out)](int rc, std::optional<zkwire::stat>&& stat) {
    if (rc == ZOK && !stat) rc = ZNONODE;
    out(rc, stat.value_or(zkwire::stat{}));
  };
  start_read<std::optional<zkwire::stat>>(
      zh, watch, [path](zkwire::client& c, auto done) { c.async_exists(path, std::move(done)); },
      [path](zkwire::client& c, zkwire::watch_callback on_event, auto done) {
        c.async_exists(path, std::move(on_event), std::move(done));
      },
      std::move(found), true);
}

void launch_get(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::get_result> out) {
  start_read<zkwire::get_result>(
      zh, watch, [path](zkwire::client& c, auto done) { c.async_get(path, std::move(done)); },
      [path](zkwire::client& c, zkwire::watch_callback on_event, auto done) {
        c.async_get(path, std::move(on_event), std::move(done));
      },
      std::move(out));
}

void launch_get_config(zhandle_t* zh, const watch_arg& watch, sink<zkwire::get_result> out) {
  start_read<zkwire::get_result>(
      zh, watch, [](zkwire::client& c, auto done) { c.async_get_config(std::move(done)); },
      [](zkwire::client& c, zkwire::watch_callback on_event, auto done) {
        c.async_get_config(std::move(on_event), std::move(done));
      },
      std::move(out));
}

void launch_reconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                     sink<zkwire::get_result> out) {
  auto text = [](const char* s) { return s != nullptr ? std::optional<std::string>(s) : std::nullopt; };
  start_op<zkwire::get_result>(
      zh,
      [j = text(joining), l = text(leaving), m = text(members), version](zkwire::client& c, auto done) mutable {
        c.async_reconfig(std::move(j), std::move(l), std::move(m), version, std::move(done));
      },
      std::move(out));
}

void launch_set(zhandle_t* zh, std::string path, const char* buffer, int buflen, int version, sink<zkwire::stat> out) {
  // A null buffer (or a negative length) stores null data, as it does with the C client; getData then reports -1.
  std::optional<std::string> data;
  if (buffer != nullptr && buflen >= 0) data.emplace(buffer, static_cast<std::size_t>(buflen));
  start_op<zkwire::stat>(
      zh,
      [path = std::move(path), data = std::move(data), version](zkwire::client& c, auto done) mutable {
        if (data) {
          c.async_set(std::move(path), std::move(*data), version, std::move(done));
        } else {
          c.async_set(std::move(path), std::nullopt, version, std::move(done));
        }
      },
      std::move(out));
}

void launch_children(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::children_result> out) {
  start_read<zkwire::children_result>(
      zh, watch, [path](zkwire::client& c, auto done) { c.async_get_children(path, std::move(done)); },
      [path](zkwire::client& c, zkwire::watch_callback on_event, auto done) {
        c.async_get_children(path, std::move(on_event), std::move(done));
      },
      std::move(out));
}

void launch_get_acl(zhandle_t* zh, std::string path, sink<zkwire::acl_result> out) {
  start_op<zkwire::acl_result>(
      zh,
      [path = std::move(path)](zkwire::client& c, auto done) mutable {
        c.async_get_acl(std::move(path), std::move(done));
      },
      std::move(out));
}

void launch_set_acl(zhandle_t* zh, std::string path, int version, std::vector<zkwire::acl> acl,
                    sink<zkwire::stat> out) {
  start_op<zkwire::stat>(
      zh,
      [path = std::move(path), version, acl = std::move(acl)](zkwire::client& c, auto done) mutable {
        c.async_set_acl(std::move(path), std::move(acl), version, std::move(done));
      },
      std::move(out));
}

void launch_sync(zhandle_t* zh, std::string path, sink<none> out) {
  start_void_op(
      zh,
      [path = std::move(path)](zkwire::client& c, auto done) mutable {
        c.async_sync(std::move(path), std::move(done));
      },
      std::move(out));
}

int check_remove_watches(zhandle_t* zh, const char* path, ZooWatcherType type) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  if (type != ZWATCHTYPE_CHILD && type != ZWATCHTYPE_DATA && type != ZWATCHTYPE_ANY) return ZBADARGUMENTS;
  return ZOK;
}

void launch_remove_watches(zhandle_t* zh, std::string path, ZooWatcherType type, bool local, sink<none> out) {
  const auto wtype = static_cast<zkwire::watcher_type>(type);
  if (local) {
    // No request: the client drops its watchers at once, also without a connection.
    run_locked(zh, [zh, path = std::move(path), wtype, out = std::move(out)]() mutable {
      const bool removed = zh->client && zh->client->remove_local_watches(path, wtype);
      out(removed ? ZOK : ZNOWATCHER, none{});
    });
    return;
  }
  start_void_op(
      zh,
      [path = std::move(path), wtype](zkwire::client& c, auto done) mutable {
        c.async_remove_watches(std::move(path), wtype, std::move(done));
      },
      std::move(out));
}

void copy_string(const std::string& text, char* buffer, int size) noexcept {
  if (buffer == nullptr || size <= 0) return;
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(size) - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

void copy_data(const zkwire::get_result& result, char* buffer, int* len) noexcept {
  if (len == nullptr) return;
  if (result.null_data) {
    *len = -1;
    return;
  }
  const int room = buffer != nullptr ? std::max(*len, 0) : 0;
  const int n = static_cast<int>(std::min(result.data.size(), static_cast<std::size_t>(room)));
  if (n > 0) std::memcpy(buffer, result.data.data(), static_cast<std::size_t>(n));
  *len = n;
}

}  // namespace zkwire::capi
