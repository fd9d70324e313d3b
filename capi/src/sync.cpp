// The synchronous operations of the C API: the asynchronous ones' launchers with a sink that stores the outputs
// into the caller's variables and wakes the caller (wait_sync). The result comes straight from the I/O thread, so
// these calls also work from inside a completion or watcher.
#include "operations.hpp"

using namespace zkwire::capi;  // NOLINT(google-build-using-namespace): the C entry points below use it throughout

namespace {

using done_fn = std::function<void(int)>;

int create(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl, int mode,
           int64_t ttl, char* path_buffer, int path_buffer_len, struct Stat* stat) {
  if (const int rc = check_handle(zh)) return rc;
  create_args args;
  if (const int rc = make_create_args(path, value, valuelen, acl, mode, ttl, args)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_create(zh, std::move(args), [&, done](int rc, zkwire::create_result&& r) {
      if (rc == ZOK) {
        copy_string(r.path, path_buffer, path_buffer_len);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

int get(zhandle_t* zh, const char* path, const watch_arg& watch, char* buffer, int* buffer_len, struct Stat* stat) {
  if (buffer_len == nullptr) return ZBADARGUMENTS;  // checked first, as the C client does
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_get(zh, path, watch, [&, done](int rc, zkwire::get_result&& r) {
      if (rc == ZOK) {
        copy_data(r, buffer, buffer_len);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

int get_config(zhandle_t* zh, const watch_arg& watch, char* buffer, int* buffer_len, struct Stat* stat) {
  if (buffer_len == nullptr) return ZBADARGUMENTS;
  if (const int rc = check_handle(zh)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_get_config(zh, watch, [&, done](int rc, zkwire::get_result&& r) {
      if (rc == ZOK) {
        copy_data(r, buffer, buffer_len);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

int exists(zhandle_t* zh, const char* path, const watch_arg& watch, struct Stat* stat) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_exists(zh, path, watch, [&, done](int rc, zkwire::stat&& s) {
      if (rc == ZOK) copy_stat(s, stat);
      done(rc);
    });
  });
}

int children(zhandle_t* zh, const char* path, const watch_arg& watch, struct String_vector* strings,
             struct Stat* stat) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_children(zh, path, watch, [&, done](int rc, zkwire::children_result&& r) {
      if (rc == ZOK) {
        strings_to_c(r.children, strings);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

}  // namespace

extern "C" {

ZOOAPI int zoo_create(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                      int mode, char* path_buffer, int path_buffer_len) {
  return create(zh, path, value, valuelen, acl, mode, -1, path_buffer, path_buffer_len, nullptr);
}

ZOOAPI int zoo_create_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                          const struct ACL_vector* acl, int mode, int64_t ttl, char* path_buffer, int path_buffer_len) {
  return create(zh, path, value, valuelen, acl, mode, ttl, path_buffer, path_buffer_len, nullptr);
}

ZOOAPI int zoo_create2(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                       int mode, char* path_buffer, int path_buffer_len, struct Stat* stat) {
  return create(zh, path, value, valuelen, acl, mode, -1, path_buffer, path_buffer_len, stat);
}

ZOOAPI int zoo_create2_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                           const struct ACL_vector* acl, int mode, int64_t ttl, char* path_buffer, int path_buffer_len,
                           struct Stat* stat) {
  return create(zh, path, value, valuelen, acl, mode, ttl, path_buffer, path_buffer_len, stat);
}

ZOOAPI int zoo_delete(zhandle_t* zh, const char* path, int version) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(
      zh, [&](const done_fn& done) { launch_delete(zh, path, version, [done](int rc, none&&) { done(rc); }); });
}

ZOOAPI int zoo_exists(zhandle_t* zh, const char* path, int watch, struct Stat* stat) {
  return exists(zh, path, watch_arg::from_flag(zh, watch), stat);
}

ZOOAPI int zoo_wexists(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx, struct Stat* stat) {
  return exists(zh, path, watch_arg::own(watcher, watcherCtx), stat);
}

ZOOAPI int zoo_get(zhandle_t* zh, const char* path, int watch, char* buffer, int* buffer_len, struct Stat* stat) {
  return get(zh, path, watch_arg::from_flag(zh, watch), buffer, buffer_len, stat);
}

ZOOAPI int zoo_wget(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx, char* buffer,
                    int* buffer_len, struct Stat* stat) {
  return get(zh, path, watch_arg::own(watcher, watcherCtx), buffer, buffer_len, stat);
}

ZOOAPI int zoo_getconfig(zhandle_t* zh, int watch, char* buffer, int* buffer_len, struct Stat* stat) {
  return get_config(zh, watch_arg::from_flag(zh, watch), buffer, buffer_len, stat);
}

ZOOAPI int zoo_wgetconfig(zhandle_t* zh, watcher_fn watcher, void* watcherCtx, char* buffer, int* buffer_len,
                          struct Stat* stat) {
  return get_config(zh, watch_arg::own(watcher, watcherCtx), buffer, buffer_len, stat);
}

ZOOAPI int zoo_reconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                        char* buffer, int* buffer_len, struct Stat* stat) {
  if (buffer_len == nullptr) return ZBADARGUMENTS;
  if (const int rc = check_handle(zh)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_reconfig(zh, joining, leaving, members, version, [&, done](int rc, zkwire::get_result&& r) {
      if (rc == ZOK) {
        copy_data(r, buffer, buffer_len);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

ZOOAPI int zoo_set(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version) {
  return zoo_set2(zh, path, buffer, buflen, version, nullptr);
}

ZOOAPI int zoo_set2(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version, struct Stat* stat) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_set(zh, path, buffer, buflen, version, [&, done](int rc, zkwire::stat&& s) {
      if (rc == ZOK) copy_stat(s, stat);
      done(rc);
    });
  });
}

ZOOAPI int zoo_get_children(zhandle_t* zh, const char* path, int watch, struct String_vector* strings) {
  return children(zh, path, watch_arg::from_flag(zh, watch), strings, nullptr);
}

ZOOAPI int zoo_wget_children(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                             struct String_vector* strings) {
  return children(zh, path, watch_arg::own(watcher, watcherCtx), strings, nullptr);
}

ZOOAPI int zoo_get_children2(zhandle_t* zh, const char* path, int watch, struct String_vector* strings,
                             struct Stat* stat) {
  return children(zh, path, watch_arg::from_flag(zh, watch), strings, stat);
}

ZOOAPI int zoo_wget_children2(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                              struct String_vector* strings, struct Stat* stat) {
  return children(zh, path, watch_arg::own(watcher, watcherCtx), strings, stat);
}

ZOOAPI int zoo_get_acl(zhandle_t* zh, const char* path, struct ACL_vector* acl, struct Stat* stat) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_get_acl(zh, path, [&, done](int rc, zkwire::acl_result&& r) {
      if (rc == ZOK) {
        acl_to_c(r.acl, acl);
        copy_stat(r.stat, stat);
      }
      done(rc);
    });
  });
}

ZOOAPI int zoo_set_acl(zhandle_t* zh, const char* path, int version, const struct ACL_vector* acl) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  return wait_sync(zh, [&](const done_fn& done) {
    launch_set_acl(zh, path, version, acl_from_c(acl), [done](int rc, zkwire::stat&&) { done(rc); });
  });
}

ZOOAPI int zoo_remove_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, watcher_fn watcher,
                              void* watcherCtx, int local) {
  if (const int rc = check_remove_watches(zh, path, wtype, local != 0)) return rc;
  remove_args args{path, wtype, std::nullopt, local != 0, false};
  if (watcher != nullptr) args.watcher = watcher_ref{watcher, watcherCtx};
  return wait_sync(zh, [&](const done_fn& done) {
    if (const int rc = launch_remove_watches(zh, args, [done](int code, none&&) { done(code); })) done(rc);
  });
}

ZOOAPI int zoo_remove_all_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, int local) {
  if (const int rc = check_remove_watches(zh, path, wtype, local != 0)) return rc;
  const remove_args args{path, wtype, std::nullopt, local != 0, true};
  return wait_sync(zh, [&](const done_fn& done) {
    if (const int rc = launch_remove_watches(zh, args, [done](int code, none&&) { done(code); })) done(rc);
  });
}

}  // extern "C"
