// The asynchronous operations of the C API (zoo_a*): validate and start on the caller's thread,
// call the completion on the completion thread with the values the C client passes (owned by the library, freed
// after the completion returns).
#include "operations.hpp"

using namespace zkwire::capi;  // NOLINT(google-build-using-namespace): the C entry points below use it throughout

namespace {

int acreate(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl, int mode,
            int64_t ttl, sink<zkwire::create_result> out) {
  if (const int rc = check_handle(zh)) return rc;
  create_args args;
  if (const int rc = make_create_args(path, value, valuelen, acl, mode, ttl, args)) return rc;
  launch_create(zh, std::move(args), std::move(out));
  return ZOK;
}

sink<zkwire::create_result> string_sink(zhandle_t* zh, string_completion_t completion, const void* data) {
  return async_sink<zkwire::create_result>(zh, [completion, data](int rc, zkwire::create_result& r) {
    if (completion != nullptr) completion(rc, rc == ZOK ? r.path.c_str() : nullptr, data);
  });
}

sink<zkwire::create_result> string_stat_sink(zhandle_t* zh, string_stat_completion_t completion, const void* data) {
  return async_sink<zkwire::create_result>(zh, [completion, data](int rc, zkwire::create_result& r) {
    if (completion == nullptr) return;
    struct Stat stat {};
    copy_stat(r.stat, &stat);
    completion(rc, rc == ZOK ? r.path.c_str() : nullptr, rc == ZOK ? &stat : nullptr, data);
  });
}

sink<zkwire::stat> stat_sink(zhandle_t* zh, stat_completion_t completion, const void* data) {
  return async_sink<zkwire::stat>(zh, [completion, data](int rc, zkwire::stat& s) {
    if (completion == nullptr) return;
    struct Stat stat {};
    copy_stat(s, &stat);
    completion(rc, rc == ZOK ? &stat : nullptr, data);
  });
}

sink<zkwire::get_result> data_sink(zhandle_t* zh, data_completion_t completion, const void* data) {
  return async_sink<zkwire::get_result>(zh, [completion, data](int rc, zkwire::get_result& r) {
    if (completion == nullptr) return;
    if (rc != ZOK) {
      completion(rc, nullptr, 0, nullptr, data);  // the C client's arguments for a failed read
      return;
    }
    struct Stat stat {};
    copy_stat(r.stat, &stat);
    if (r.null_data) {
      completion(rc, nullptr, -1, &stat, data);
    } else {
      completion(rc, r.data.data(), static_cast<int>(r.data.size()), &stat, data);
    }
  });
}

sink<none> void_sink(zhandle_t* zh, void_completion_t completion, const void* data) {
  return async_sink<none>(zh, [completion, data](int rc, none&) {
    if (completion != nullptr) completion(rc, data);
  });
}

int aget_children(zhandle_t* zh, const char* path, const watch_arg& watch, strings_completion_t strings,
                  strings_stat_completion_t strings_stat, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_children(
      zh, path, watch,
      async_sink<zkwire::children_result>(zh, [strings, strings_stat, data](int rc, zkwire::children_result& r) {
        struct String_vector names {};
        struct Stat stat {};
        if (rc == ZOK) {
          strings_to_c(r.children, &names);
          copy_stat(r.stat, &stat);
        }
        if (strings != nullptr) strings(rc, rc == ZOK ? &names : nullptr, data);
        if (strings_stat != nullptr) {
          strings_stat(rc, rc == ZOK ? &names : nullptr, rc == ZOK ? &stat : nullptr, data);
        }
        deallocate_String_vector(&names);
      }));
  return ZOK;
}

}  // namespace

extern "C" {

ZOOAPI int zoo_acreate(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                       int mode, string_completion_t completion, const void* data) {
  return acreate(zh, path, value, valuelen, acl, mode, -1, string_sink(zh, completion, data));
}

ZOOAPI int zoo_acreate_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                           const struct ACL_vector* acl, int mode, int64_t ttl, string_completion_t completion,
                           const void* data) {
  return acreate(zh, path, value, valuelen, acl, mode, ttl, string_sink(zh, completion, data));
}

ZOOAPI int zoo_acreate2(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                        int mode, string_stat_completion_t completion, const void* data) {
  return acreate(zh, path, value, valuelen, acl, mode, -1, string_stat_sink(zh, completion, data));
}

ZOOAPI int zoo_acreate2_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                            const struct ACL_vector* acl, int mode, int64_t ttl, string_stat_completion_t completion,
                            const void* data) {
  return acreate(zh, path, value, valuelen, acl, mode, ttl, string_stat_sink(zh, completion, data));
}

ZOOAPI int zoo_adelete(zhandle_t* zh, const char* path, int version, void_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_delete(zh, path, version, void_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_aexists(zhandle_t* zh, const char* path, int watch, stat_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_exists(zh, path, watch_arg::from_flag(zh, watch), stat_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_awexists(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                        stat_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_exists(zh, path, watch_arg::own(watcher, watcherCtx), stat_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_aget(zhandle_t* zh, const char* path, int watch, data_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_get(zh, path, watch_arg::from_flag(zh, watch), data_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_awget(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                     data_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_get(zh, path, watch_arg::own(watcher, watcherCtx), data_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_agetconfig(zhandle_t* zh, int watch, data_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  launch_get_config(zh, watch_arg::from_flag(zh, watch), data_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_awgetconfig(zhandle_t* zh, watcher_fn watcher, void* watcherCtx, data_completion_t completion,
                           const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  launch_get_config(zh, watch_arg::own(watcher, watcherCtx), data_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_areconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                         data_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  launch_reconfig(zh, joining, leaving, members, version, data_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_aset(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version,
                    stat_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_set(zh, path, buffer, buflen, version, stat_sink(zh, completion, data));
  return ZOK;
}

ZOOAPI int zoo_aget_children(zhandle_t* zh, const char* path, int watch, strings_completion_t completion,
                             const void* data) {
  return aget_children(zh, path, watch_arg::from_flag(zh, watch), completion, nullptr, data);
}

ZOOAPI int zoo_awget_children(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                              strings_completion_t completion, const void* data) {
  return aget_children(zh, path, watch_arg::own(watcher, watcherCtx), completion, nullptr, data);
}

ZOOAPI int zoo_aget_children2(zhandle_t* zh, const char* path, int watch, strings_stat_completion_t completion,
                              const void* data) {
  return aget_children(zh, path, watch_arg::from_flag(zh, watch), nullptr, completion, data);
}

ZOOAPI int zoo_awget_children2(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                               strings_stat_completion_t completion, const void* data) {
  return aget_children(zh, path, watch_arg::own(watcher, watcherCtx), nullptr, completion, data);
}

ZOOAPI int zoo_async(zhandle_t* zh, const char* path, string_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_sync(zh, path, async_sink<none>(zh, [completion, data, p = std::string(path)](int rc, none&) {
                if (completion != nullptr) completion(rc, rc == ZOK ? p.c_str() : nullptr, data);
              }));
  return ZOK;
}

ZOOAPI int zoo_aget_acl(zhandle_t* zh, const char* path, acl_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_get_acl(zh, path, async_sink<zkwire::acl_result>(zh, [completion, data](int rc, zkwire::acl_result& r) {
                   if (completion == nullptr) return;
                   struct ACL_vector acl {};
                   struct Stat stat {};
                   if (rc == ZOK) {
                     acl_to_c(r.acl, &acl);
                     copy_stat(r.stat, &stat);
                   }
                   completion(rc, rc == ZOK ? &acl : nullptr, rc == ZOK ? &stat : nullptr, data);
                   deallocate_ACL_vector(&acl);
                 }));
  return ZOK;
}

ZOOAPI int zoo_aset_acl(zhandle_t* zh, const char* path, int version, struct ACL_vector* acl,
                        void_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  if (const int rc = check_path(path)) return rc;
  launch_set_acl(zh, path, version, acl_from_c(acl),
                 async_sink<zkwire::stat>(zh, [completion, data](int rc, zkwire::stat&) {
                   if (completion != nullptr) completion(rc, data);
                 }));
  return ZOK;
}

ZOOAPI int zoo_aremove_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, watcher_fn watcher,
                               void* watcherCtx, int local, void_completion_t* completion, const void* data) {
  if (const int rc = check_remove_watches(zh, path, wtype, local != 0)) return rc;
  remove_args args{path, wtype, std::nullopt, local != 0, false};
  if (watcher != nullptr) args.watcher = watcher_ref{watcher, watcherCtx};
  // The declared type is a pointer to the completion; callers pass the completion itself (cast).
  auto* fn = reinterpret_cast<void_completion_t>(completion);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  return launch_remove_watches(zh, args, void_sink(zh, fn, data));
}

ZOOAPI int zoo_aremove_all_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, int local,
                                   void_completion_t* completion, const void* data) {
  if (const int rc = check_remove_watches(zh, path, wtype, local != 0)) return rc;
  const remove_args args{path, wtype, std::nullopt, local != 0, true};
  auto* fn = reinterpret_cast<void_completion_t>(completion);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  return launch_remove_watches(zh, args, void_sink(zh, fn, data));
}

}  // extern "C"
