#include "operations.hpp"

#include <algorithm>
#include <cstring>

namespace zkwire::capi {

namespace {

// Starts a read without a watch, plain(client, done), or with one, watched(client, key, callback, done): the
// watcher's key makes it one watcher of the client for every read of that (function, context).
template <class Result, class Plain, class Watched>
void start_read(zhandle_t* zh, const watch_arg& watch, Plain plain, Watched watched, sink<Result> out) {
  start_op<Result>(
      zh,
      [zh, watch, plain = std::move(plain), watched = std::move(watched)](zkwire::client& c, auto done) mutable {
        if (!watch.wanted()) {
          plain(c, std::move(done));
          return;
        }
        watched(c, watch.ref->key(), arm_watcher(zh, *watch.ref), std::move(done));
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
  if (auto data = data_from_c(value, valuelen)) {
    out.data = std::move(*data);
  } else {
    out.options.null_data = true;
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
      [path](zkwire::client& c, zkwire::watcher_key key, zkwire::watch_callback on_event, auto done) {
        c.async_exists(path, key, std::move(on_event), std::move(done));
      },
      std::move(found));
}

void launch_get(zhandle_t* zh, std::string path, const watch_arg& watch, sink<zkwire::get_result> out) {
  start_read<zkwire::get_result>(
      zh, watch, [path](zkwire::client& c, auto done) { c.async_get(path, std::move(done)); },
      [path](zkwire::client& c, zkwire::watcher_key key, zkwire::watch_callback on_event, auto done) {
        c.async_get(path, key, std::move(on_event), std::move(done));
      },
      std::move(out));
}

void launch_get_config(zhandle_t* zh, const watch_arg& watch, sink<zkwire::get_result> out) {
  start_read<zkwire::get_result>(
      zh, watch, [](zkwire::client& c, auto done) { c.async_get_config(std::move(done)); },
      [](zkwire::client& c, zkwire::watcher_key key, zkwire::watch_callback on_event, auto done) {
        c.async_get_config(key, std::move(on_event), std::move(done));
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
  std::optional<std::string> data = data_from_c(buffer, buflen);
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
      [path](zkwire::client& c, zkwire::watcher_key key, zkwire::watch_callback on_event, auto done) {
        c.async_get_children(path, key, std::move(on_event), std::move(done));
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

int check_remove_watches(zhandle_t* zh, const char* path, ZooWatcherType type, bool local) {
  if (zh == nullptr) return ZBADARGUMENTS;
  // A local removal needs no session, as in the C client; a closing handle (ZCLOSING) has no client any more.
  if (const int rc = check_handle(zh); rc != ZOK && !(local && rc == ZINVALIDSTATE)) return rc;
  if (const int rc = check_path(path)) return rc;
  if (type != ZWATCHTYPE_CHILD && type != ZWATCHTYPE_DATA && type != ZWATCHTYPE_ANY) return ZBADARGUMENTS;
  return ZOK;
}

int launch_remove_watches(zhandle_t* zh, const remove_args& args, sink<none> out) {
  int rc = ZOK;
  run_locked(zh, [&] {
    if (!zh->client) {
      rc = ZCLOSING;
      return;
    }
    zkwire::client& c = *zh->client;
    const auto type = static_cast<zkwire::watcher_type>(args.type);
    auto done = [out](std::error_code ec) mutable { out(to_rc(ec), none{}); };
    if (args.watcher) {
      const zkwire::watcher_key key = args.watcher->key();
      if (!c.watching(args.path, type, key)) {
        rc = ZNOWATCHER;  // returned by the call itself, as the C client does: nothing sent, no completion
        return;
      }
      if (args.local) {
        c.remove_local_watcher(args.path, type, key);
        out(ZOK, none{});
      } else {
        // checkWatches: the server's watch stays for the path's other watchers.
        c.async_remove_watcher(args.path, type, key, std::move(done));
      }
      return;
    }
    if (args.local) {
      c.remove_local_watches(args.path, type);
      out(ZOK, none{});  // without a watcher the C client finds a match even where nothing is watched
    } else if (args.all) {
      c.async_remove_watches(args.path, type, std::move(done));
    } else {
      // zoo_remove_watches without a watcher: the C client asks checkWatches and then drops every watcher locally.
      c.async_check_watches(args.path, type, [zh, path = args.path, type, done](std::error_code ec) mutable {
        if (!ec && zh->client) zh->client->remove_local_watches(path, type);
        done(ec);
      });
    }
  });
  return rc;
}

void copy_string(const std::string& text, char* buffer, int size) noexcept {
  if (buffer == nullptr || size <= 0) return;
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(size) - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

void copy_data(const zkwire::get_result& result, char* buffer, int* len) noexcept {
  if (len == nullptr) return;
  if (result.null_data || *len < 0) {
    *len = -1;  // a buffer of negative size takes nothing and reports -1, as with the C client
    return;
  }
  const int room = buffer != nullptr ? std::max(*len, 0) : 0;
  const int n = static_cast<int>(std::min(result.data.size(), static_cast<std::size_t>(room)));
  if (n > 0) std::memcpy(buffer, result.data.data(), static_cast<std::size_t>(n));
  *len = n;
}

}  // namespace zkwire::capi
