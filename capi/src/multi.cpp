// zoo_multi / zoo_amulti and the zoo_*_op_init helpers: the C ops become zkwire::ops, and each result goes back
// into the caller's zoo_op_result_t (a create's path into the op's buffer, a set's stat into the op's Stat).
#include <cstring>

#include "operations.hpp"
#include "zkwire/proto/multi.hpp"

using namespace zkwire::capi;  // NOLINT(google-build-using-namespace): the C entry points below use it throughout

namespace {

// The C client refuses an op's invalid path with ZMARSHALLINGERROR (its serialization fails), an unknown create
// mode with ZBADARGUMENTS.
int path_rc(const char* path, bool sequential = false) {
  return check_path(path, sequential) ? ZMARSHALLINGERROR : ZOK;
}

int to_multi_ops(int count, const zoo_op_t* ops, std::vector<zkwire::multi_op>& out) {
  if (count < 0 || (count > 0 && ops == nullptr)) return ZBADARGUMENTS;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const zoo_op_t& op = ops[i];
    switch (op.type) {
      case ZOO_CREATE_OP:
      case ZOO_CREATE2_OP: {
        create_args args;
        const auto& c = op.create_op;
        zkwire::create_mode mode{};
        if (!create_mode_from_c(c.flags, mode)) return ZBADARGUMENTS;
        if (const int rc = path_rc(c.path, zkwire::proto::is_sequential(mode))) return rc;
        // zoo_create_op_init leaves ttl at 0 whatever the mode: only a TTL mode reads it.
        const bool ttl_mode = c.flags == ZOO_PERSISTENT_WITH_TTL || c.flags == ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL;
        if (const int rc = make_create_args(c.path, c.data, c.datalen, c.acl, c.flags, ttl_mode ? c.ttl : -1, args)) {
          return rc;
        }
        out.push_back(zkwire::ops::create(std::move(args.path), std::move(args.data), args.options));
        break;
      }
      case ZOO_DELETE_OP:
        if (const int rc = path_rc(op.delete_op.path)) return rc;
        out.push_back(zkwire::ops::remove(op.delete_op.path, op.delete_op.version));
        break;
      case ZOO_SETDATA_OP: {
        const auto& s = op.set_op;
        if (const int rc = path_rc(s.path)) return rc;
        out.push_back(zkwire::proto::set_data_op(s.path, data_from_c(s.data, s.datalen), s.version));
        break;
      }
      case ZOO_CHECK_OP:
        if (const int rc = path_rc(op.check_op.path)) return rc;
        out.push_back(zkwire::ops::check(op.check_op.path, op.check_op.version));
        break;
      default:
        return ZUNIMPLEMENTED;
    }
  }
  return ZOK;
}

// Called once the multi completed (rc), before the application hears of it. As the C client: each op's err; a
// create's path into its buffer (value = the buffer, valuelen its size) and a set's Stat into its Stat only when
// the multi succeeded, value and stat NULL otherwise; the fields of delete and check results untouched.
void fill_results(int rc, const std::vector<zkwire::op_result>& got, int count, const zoo_op_t* ops,
                  zoo_op_result_t* results) {
  if (results == nullptr) return;
  for (int i = 0; i < count; ++i) {
    zoo_op_result_t& out = results[i];
    const auto index = static_cast<std::size_t>(i);
    // The request as a whole failed (connection loss, ...): no op has a result of its own.
    out.err = index < got.size() ? to_rc(got[index].error) : rc;
    const bool applied = rc == ZOK && out.err == ZOK && index < got.size();
    const zoo_op_t& op = ops[i];
    if (op.type == ZOO_CREATE_OP || op.type == ZOO_CREATE2_OP) {
      out.valuelen = op.create_op.buflen;
      out.value = applied ? op.create_op.buf : nullptr;
      if (applied) copy_string(got[index].path, op.create_op.buf, op.create_op.buflen);
    } else if (op.type == ZOO_SETDATA_OP) {
      out.stat = applied ? op.set_op.stat : nullptr;
      if (applied) copy_stat(got[index].stat, op.set_op.stat);
    }
  }
}

}  // namespace

extern "C" {

ZOOAPI void zoo_create_op_init(zoo_op_t* op, const char* path, const char* value, int valuelen,
                               const struct ACL_vector* acl, int mode, char* path_buffer, int path_buffer_len) {
  if (op == nullptr) return;
  std::memset(op, 0, sizeof *op);
  op->type = ZOO_CREATE_OP;
  op->create_op.path = path;
  op->create_op.data = value;
  op->create_op.datalen = valuelen;
  op->create_op.acl = acl;
  op->create_op.flags = mode;
  op->create_op.buf = path_buffer;
  op->create_op.buflen = path_buffer_len;
}

ZOOAPI void zoo_create2_op_init(zoo_op_t* op, const char* path, const char* value, int valuelen,
                                const struct ACL_vector* acl, int mode, char* path_buffer, int path_buffer_len) {
  zoo_create_op_init(op, path, value, valuelen, acl, mode, path_buffer, path_buffer_len);
  if (op != nullptr) op->type = ZOO_CREATE2_OP;
}

ZOOAPI void zoo_delete_op_init(zoo_op_t* op, const char* path, int version) {
  if (op == nullptr) return;
  std::memset(op, 0, sizeof *op);
  op->type = ZOO_DELETE_OP;
  op->delete_op.path = path;
  op->delete_op.version = version;
}

ZOOAPI void zoo_set_op_init(zoo_op_t* op, const char* path, const char* buffer, int buflen, int version,
                            struct Stat* stat) {
  if (op == nullptr) return;
  std::memset(op, 0, sizeof *op);
  op->type = ZOO_SETDATA_OP;
  op->set_op.path = path;
  op->set_op.data = buffer;
  op->set_op.datalen = buflen;
  op->set_op.version = version;
  op->set_op.stat = stat;
}

ZOOAPI void zoo_check_op_init(zoo_op_t* op, const char* path, int version) {
  if (op == nullptr) return;
  std::memset(op, 0, sizeof *op);
  op->type = ZOO_CHECK_OP;
  op->check_op.path = path;
  op->check_op.version = version;
}

ZOOAPI int zoo_amulti(zhandle_t* zh, int count, const zoo_op_t* ops, zoo_op_result_t* results,
                      void_completion_t completion, const void* data) {
  if (const int rc = check_handle(zh)) return rc;
  std::vector<zkwire::multi_op> multi;
  if (const int rc = to_multi_ops(count, ops, multi)) return rc;
  start_op<std::vector<zkwire::op_result>>(
      zh,
      [multi = std::move(multi)](zkwire::client& c, auto done) mutable {
        c.async_multi(std::move(multi), std::move(done));
      },
      async_sink<std::vector<zkwire::op_result>>(
          zh, [count, ops, results, completion, data](int rc, std::vector<zkwire::op_result>& got) {
            fill_results(rc, got, count, ops, results);
            if (completion != nullptr) completion(rc, data);
          }));
  return ZOK;
}

ZOOAPI int zoo_multi(zhandle_t* zh, int count, const zoo_op_t* ops, zoo_op_result_t* results) {
  if (const int rc = check_handle(zh)) return rc;
  std::vector<zkwire::multi_op> multi;
  if (const int rc = to_multi_ops(count, ops, multi)) return rc;
  return wait_sync(zh, [&](const std::function<void(int)>& done) {
    start_op<std::vector<zkwire::op_result>>(
        zh,
        [multi = std::move(multi)](zkwire::client& c, auto next) mutable {
          c.async_multi(std::move(multi), std::move(next));
        },
        [&, done](int rc, std::vector<zkwire::op_result>&& got) {
          fill_results(rc, got, count, ops, results);
          done(rc);
        });
  });
}

}  // extern "C"
