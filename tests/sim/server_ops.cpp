// The simulated server's request handlers: what each operation checks, changes, fires and replies, in the order a
// ZooKeeper 3.8.0 server does it (docs/protocol.md). Every write, failed or not, consumes a zxid.

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>

#include "server.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::sim {
namespace {

using proto::op_code;
using proto::server_error;

// The id a digest credential authenticates as: the user, a colon, and base64(sha1(user:password)) of the whole
// credential (how the server's digest provider derives it; the same string is what digest ACL entries hold).
std::string digest_id(const std::string& credential) {
  unsigned char hash[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(credential.data()), credential.size(), hash);
  std::string encoded(4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()), hash, SHA_DIGEST_LENGTH);
  encoded.resize(static_cast<std::size_t>(n));
  return credential.substr(0, credential.find(':')) + ":" + encoded;
}

bool is_write(op_code op) {
  switch (op) {
    case op_code::create:
    case op_code::create2:
    case op_code::create_container:
    case op_code::create_ttl:
    case op_code::delete_:
    case op_code::set_data:
    case op_code::check:
      return true;
    default:
      return false;
  }
}

}  // namespace

void server::process(connection_id id, connection& conn, std::string_view payload, sim_time now) {
  if (const auto s = sessions_.find(conn.session); s != sessions_.end()) s->second.last_heard = now;
  who_.digest = conn.digest_ids;
  proto::request req;
  if (proto::decode_request(payload, req)) {
    // An opcode the server does not know gets UNIMPLEMENTED (zxid -1), then the connection is closed.
    proto::request_header header;
    jute::reader r(payload, payload.size());
    proto::decode(r, header);
    if (r.ok()) fail(conn, header.xid, -1, server_error::unimplemented);
    close(id, conn);
    return;
  }
  context ctx{id, conn, now, req.header.xid};
  const op_code op = req.header.type;
  switch (op) {
    case op_code::ping:
      reply(conn, proto::special_xid::ping, zxid_, proto::no_body{});
      return;
    case op_code::auth: {
      const auto& packet = std::get<proto::auth_packet>(req.body);
      // "digest" accepts any user:password (as the real DigestAuthenticationProvider); "ext" stands for a
      // provider backed by an outside service, failing while it is down. A failure answers AUTHFAILED and closes
      // the connection, as the real server does; the session is NOT closed: it lives on, with its ephemeral nodes,
      // until it expires, even though its client has given it up (and may already run a new session).
      const bool accepted = packet.scheme == "digest" || (packet.scheme == "ext" && now >= auth_outage_until_);
      if (!accepted) {
        fail(conn, proto::special_xid::auth, 0, server_error::auth_failed);
        close(id, conn);
        return;
      }
      if (packet.scheme == "digest") {
        const std::string mine = digest_id(packet.auth);
        if (std::find(conn.digest_ids.begin(), conn.digest_ids.end(), mine) == conn.digest_ids.end()) {
          conn.digest_ids.push_back(mine);
        }
      }
      reply(conn, proto::special_xid::auth, 0, proto::no_body{});
      return;
    }
    case op_code::close_session: {
      // The ephemerals go first (their watch events precede the reply), then the reply, then the socket.
      end_session(conn.session, now);
      reply(conn, ctx.xid, zxid_, proto::no_body{});
      close(id, conn);
      return;
    }
    case op_code::check:  // standalone, a 3.8.0 server fails to serialize the reply and drops the connection
    case op_code::sasl:
    case op_code::reconfig:
      close(id, conn);
      return;
    case op_code::create:
    case op_code::create2:
    case op_code::create_container:
      op_create(ctx, op, std::get<proto::create_request>(req.body));
      return;
    case op_code::create_ttl:  // a server without extended types refuses it (the zxid is used all the same)
      fail(conn, ctx.xid, next_zxid(), server_error::unimplemented);
      return;
    case op_code::delete_:
      op_delete(ctx, std::get<proto::delete_request>(req.body));
      return;
    case op_code::set_data:
      op_set_data(ctx, std::get<proto::set_data_request>(req.body));
      return;
    case op_code::set_acl:
      op_set_acl(ctx, std::get<proto::set_acl_request>(req.body));
      return;
    case op_code::multi:
      op_multi(ctx, std::get<proto::multi_request>(req.body));
      return;
    case op_code::multi_read:
      op_multi_read(ctx, std::get<proto::multi_request>(req.body));
      return;
    case op_code::set_watches: {
      const auto& w = std::get<proto::set_watches>(req.body);
      op_set_watches(ctx,
                     proto::set_watches2{w.relative_zxid, w.data_watches, w.exist_watches, w.child_watches, {}, {}});
      return;
    }
    case op_code::set_watches2:
      op_set_watches(ctx, std::get<proto::set_watches2>(req.body));
      return;
    case op_code::check_watches:
    case op_code::remove_watches:
    case op_code::add_watch:
      op_watches(ctx, op, req.body);
      return;
    default:
      op_read(ctx, op, req.body);
      return;
  }
}

std::error_code server::apply_create(context& ctx, op_code op, const proto::create_request& req, std::int64_t zxid,
                                     std::string* created, triggers& out) {
  const auto mode = req.flags;
  if (mode == proto::create_mode::persistent_with_ttl || mode == proto::create_mode::persistent_sequential_with_ttl) {
    return server_error::unimplemented;
  }
  if (req.path.find('/') == std::string::npos) return server_error::bad_arguments;
  std::vector<proto::acl> acl = req.acl;
  if (auto ec = fix_acl(ctx.conn, acl)) return ec;
  create_args args;
  args.path = req.path;
  args.data = req.data.value_or("");
  args.acl = std::move(acl);
  // Only the createContainer opcode makes a container; create and create2 with the container flag make a plain
  // persistent node.
  args.mode = mode == proto::create_mode::container ? proto::create_mode::persistent : mode;
  args.container = op == op_code::create_container;
  args.session = ctx.conn.session;
  return tree_.create(args, zxid, wall_ms(ctx.now), created, out, &who_);
}

void server::op_create(context& ctx, op_code op, const proto::create_request& req) {
  const std::int64_t zxid = next_zxid();
  std::string created;
  triggers t;
  if (auto ec = apply_create(ctx, op, req, zxid, &created, t)) {
    fail(ctx.conn, ctx.xid, zxid, ec);
    return;
  }
  fire(t);
  if (op == op_code::create) {
    reply(ctx.conn, ctx.xid, zxid, proto::create_response{created});
  } else {
    reply(ctx.conn, ctx.xid, zxid, proto::create2_response{created, tree_.find(created)->stat});
  }
}

void server::op_delete(context& ctx, const proto::delete_request& req) {
  const std::int64_t zxid = next_zxid();
  triggers t;
  if (auto ec = tree_.remove(req.path, req.version, zxid, t, &who_)) {
    fail(ctx.conn, ctx.xid, zxid, ec);
    return;
  }
  fire(t);
  reply(ctx.conn, ctx.xid, zxid, proto::no_body{});
}

void server::op_set_data(context& ctx, const proto::set_data_request& req) {
  const std::int64_t zxid = next_zxid();
  triggers t;
  if (auto ec = tree_.set_data(req.path, req.data.value_or(""), req.version, zxid, wall_ms(ctx.now), t, &who_)) {
    fail(ctx.conn, ctx.xid, zxid, ec);
    return;
  }
  fire(t);
  reply(ctx.conn, ctx.xid, zxid, proto::set_data_response{tree_.find(req.path)->stat});
}

void server::op_set_acl(context& ctx, const proto::set_acl_request& req) {
  const std::int64_t zxid = next_zxid();
  std::vector<proto::acl> acl = req.acl;
  std::error_code ec;
  if (proto::validate_path(req.path)) {
    ec = server_error::bad_arguments;
  } else if (!(ec = fix_acl(ctx.conn, acl))) {
    ec = tree_.set_acl(req.path, std::move(acl), req.version, &who_);
  }
  if (ec) {
    fail(ctx.conn, ctx.xid, zxid, ec);
    return;
  }
  reply(ctx.conn, ctx.xid, zxid, proto::set_acl_response{tree_.find(req.path)->stat});
}

void server::op_read(context& ctx, op_code op, const proto::request_body& body) {
  connection& conn = ctx.conn;
  const auto no_node = [&] { fail(conn, ctx.xid, zxid_, server_error::no_node); };
  const auto no_auth = [&] { fail(conn, ctx.xid, zxid_, server_error::no_auth); };
  // exists checks no ACL on 3.8.0 (READ is required from 3.8.4 on).
  switch (op) {
    case op_code::exists: {
      const auto& req = std::get<proto::exists_request>(body);
      // A watch is set whether or not the node exists (an exist watch on a missing one).
      if (req.watch) watches_.add_data(req.path, ctx.id);
      if (const znode* n = tree_.find(req.path)) {
        reply(conn, ctx.xid, zxid_, proto::exists_response{n->stat});
      } else {
        no_node();
      }
      return;
    }
    case op_code::get_data: {
      const auto& req = std::get<proto::get_data_request>(body);
      const znode* n = tree_.find(req.path);
      if (!n) return no_node();
      if (!who_.allows(n->acl, proto::perms::read)) return no_auth();
      if (req.watch) watches_.add_data(req.path, ctx.id);
      reply(conn, ctx.xid, zxid_, proto::get_data_response{n->data, n->stat});
      return;
    }
    case op_code::get_children:
    case op_code::get_children2: {
      const bool two = op == op_code::get_children2;
      const std::string& path =
          two ? std::get<proto::get_children2_request>(body).path : std::get<proto::get_children_request>(body).path;
      const bool watch =
          two ? std::get<proto::get_children2_request>(body).watch : std::get<proto::get_children_request>(body).watch;
      const znode* n = tree_.find(path);
      if (!n) return no_node();
      if (!who_.allows(n->acl, proto::perms::read)) return no_auth();
      if (watch) watches_.add_child(path, ctx.id);
      if (two) {
        reply(conn, ctx.xid, zxid_, proto::get_children2_response{listing(path), n->stat});
      } else {
        reply(conn, ctx.xid, zxid_, proto::get_children_response{listing(path)});
      }
      return;
    }
    case op_code::get_acl: {
      const znode* n = tree_.find(std::get<proto::get_acl_request>(body).path);
      if (!n) return no_node();
      if (!who_.allows(n->acl, proto::perms::read | proto::perms::admin)) return no_auth();
      reply(conn, ctx.xid, zxid_, proto::get_acl_response{n->acl, n->stat});
      return;
    }
    case op_code::sync:
      reply(conn, ctx.xid, zxid_, proto::sync_response{std::get<proto::sync_request>(body).path});
      return;
    case op_code::get_ephemerals: {
      const auto& prefix = std::get<proto::get_ephemerals_request>(body).prefix_path;
      reply(conn, ctx.xid, zxid_, proto::get_ephemerals_response{tree_.ephemerals(conn.session, prefix)});
      return;
    }
    case op_code::get_all_children_number: {
      const auto& path = std::get<proto::get_all_children_number_request>(body).path;
      const znode* n = tree_.find(path);
      if (!n) return no_node();
      if (!who_.allows(n->acl, proto::perms::read)) return no_auth();
      reply(conn, ctx.xid, zxid_, proto::get_all_children_number_response{tree_.descendants(path)});
      return;
    }
    case op_code::who_am_i: {
      proto::who_am_i_response who;
      who.client_info.push_back({"ip", "127.0.0.1"});
      for (const auto& mine : conn.digest_ids) who.client_info.push_back({"digest", mine.substr(0, mine.find(':'))});
      reply(conn, ctx.xid, zxid_, who);
      return;
    }
    default:
      fail(conn, ctx.xid, -1, server_error::unimplemented);
      close(ctx.id, conn);
      return;
  }
}

void server::op_multi(context& ctx, const proto::multi_request& req) {
  if (std::any_of(req.ops.begin(), req.ops.end(), [](const proto::multi_op& o) { return !is_write(o.type); })) {
    fail(ctx.conn, ctx.xid, next_zxid(), server_error::marshalling_error);
    return;
  }
  const std::int64_t zxid = next_zxid();
  // The ops run against a copy; the copy replaces the tree only if every op succeeded.
  const data_tree before = tree_;
  triggers all;
  proto::multi_response response;
  std::optional<std::size_t> failed;
  std::error_code failure;
  for (std::size_t i = 0; i < req.ops.size() && !failed; ++i) {
    const auto& o = req.ops[i];
    triggers t;
    proto::multi_result result;
    result.type = o.type;
    std::error_code ec;
    if (const auto* create = std::get_if<proto::create_request>(&o.body)) {
      std::string created;
      ec = apply_create(ctx, o.type, *create, zxid, &created, t);
      // 3.8.0 answers create and create2 with a path-only (type 1) result; createContainer with path and stat.
      if (!ec && o.type == op_code::create_container) {
        result.body = proto::create2_response{created, tree_.find(created)->stat};
      } else if (!ec) {
        result.type = op_code::create;
        result.body = proto::create_response{created};
      }
    } else if (std::holds_alternative<proto::create_ttl_request>(o.body)) {
      ec = server_error::unimplemented;
    } else if (const auto* del = std::get_if<proto::delete_request>(&o.body)) {
      ec = tree_.remove(del->path, del->version, zxid, t, &who_);
    } else if (const auto* set = std::get_if<proto::set_data_request>(&o.body)) {
      ec = tree_.set_data(set->path, set->data.value_or(""), set->version, zxid, wall_ms(ctx.now), t, &who_);
      if (!ec) result.body = proto::set_data_response{tree_.find(set->path)->stat};
    } else if (const auto* check = std::get_if<proto::check_version_request>(&o.body)) {
      ec = tree_.check_version(check->path, check->version, &who_);
    }
    if (ec) {
      failed = i;
      failure = ec;
    }
    all.insert(all.end(), t.begin(), t.end());
    response.results.push_back(std::move(result));
  }
  if (failed) {
    tree_ = before;
    // Every result becomes an error result: 0 before the failed op, its error, RUNTIMEINCONSISTENCY after it.
    response.results.assign(req.ops.size(), proto::multi_result{});
    for (std::size_t i = 0; i < req.ops.size(); ++i) {
      auto& r = response.results[i];
      r.type = op_code::error;
      r.err = i < *failed ? 0 : i == *failed ? failure.value() : static_cast<int>(server_error::runtime_inconsistency);
    }
  } else {
    fire(all);
  }
  reply(ctx.conn, ctx.xid, zxid, response);
}

void server::op_multi_read(context& ctx, const proto::multi_request& req) {
  proto::multi_response response;
  for (const auto& o : req.ops) {
    proto::multi_result result;
    result.type = o.type;
    const znode* n = nullptr;
    if (const auto* get = std::get_if<proto::get_data_request>(&o.body)) {
      if ((n = tree_.find(get->path))) result.body = proto::get_data_response{n->data, n->stat};
    } else if (const auto* ls = std::get_if<proto::get_children_request>(&o.body)) {
      if ((n = tree_.find(ls->path))) result.body = proto::get_children_response{listing(ls->path)};
    } else {
      fail(ctx.conn, ctx.xid, zxid_, server_error::marshalling_error);
      return;
    }
    if (!n) {
      result.type = op_code::error;
      result.err = static_cast<int>(server_error::no_node);
    }
    response.results.push_back(std::move(result));
  }
  reply(ctx.conn, ctx.xid, zxid_, response);
}

void server::op_set_watches(context& ctx, const proto::set_watches2& req) {
  triggers events;  // fired at this connection only, before the reply
  const auto tell = [&](const std::string& path, proto::event_type type) {
    proto::encode_reply_frame(ctx.conn.output, proto::reply_header{proto::special_xid::notification, -1, 0},
                              proto::watcher_event{type, proto::keeper_state::sync_connected, path});
  };
  for (const auto& path : req.data_watches) {
    const znode* n = tree_.find(path);
    if (!n) {
      tell(path, proto::event_type::node_deleted);
    } else if (n->stat.mzxid > req.relative_zxid) {
      tell(path, proto::event_type::node_data_changed);
    } else {
      watches_.add_data(path, ctx.id);
    }
  }
  for (const auto& path : req.exist_watches) {
    if (tree_.find(path)) {
      tell(path, proto::event_type::node_created);
    } else {
      watches_.add_data(path, ctx.id);
    }
  }
  for (const auto& path : req.child_watches) {
    const znode* n = tree_.find(path);
    if (!n) {
      tell(path, proto::event_type::node_deleted);
    } else if (n->stat.pzxid > req.relative_zxid) {
      tell(path, proto::event_type::node_children_changed);
    } else {
      watches_.add_child(path, ctx.id);
    }
  }
  // Persistent watches are simply added again, with no catch-up events.
  for (const auto& path : req.persistent_watches) watches_.add_persistent(path, ctx.id, false);
  for (const auto& path : req.persistent_recursive_watches) watches_.add_persistent(path, ctx.id, true);
  reply(ctx.conn, ctx.xid, zxid_, proto::no_body{});
}

void server::op_watches(context& ctx, op_code op, const proto::request_body& body) {
  if (op == op_code::add_watch) {
    const auto& req = std::get<proto::add_watch_request>(body);
    watches_.add_persistent(req.path, ctx.id, req.mode == proto::add_watch_mode::persistent_recursive);
    reply(ctx.conn, ctx.xid, zxid_, proto::error_response{0});
    return;
  }
  bool found = false;
  if (op == op_code::check_watches) {
    const auto& req = std::get<proto::check_watches_request>(body);
    found = watches_.contains(req.path, ctx.id, req.type);
  } else {
    const auto& req = std::get<proto::remove_watches_request>(body);
    found = watches_.remove(req.path, ctx.id, req.type);
  }
  if (found) {
    reply(ctx.conn, ctx.xid, zxid_, proto::no_body{});
  } else {
    fail(ctx.conn, ctx.xid, zxid_, server_error::no_watcher);
  }
}

}  // namespace zkwire::sim
