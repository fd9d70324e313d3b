#include "zkwire/faults/frame_info.hpp"

#include <cstdio>

#include "zkwire/jute/reader.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/op_traits.hpp"
#include "zkwire/proto/opcodes.hpp"

namespace zkwire::faults {

namespace {

using proto::op_code;

// Ops whose request body starts with a ustring path (getEphemerals: its prefix).
bool body_starts_with_path(op_code op) noexcept {
  const proto::op_traits* t = proto::find_op_traits(op);
  return t != nullptr && t->path != proto::op_path::none;
}

// The first path of a request body: the body's own, or for multi/multiRead the first op's. Only the path is
// read (never the data), so a large setData costs nothing; "" if the body is malformed.
std::string first_path(op_code op, jute::reader& r) {
  if (op == op_code::multi || op == op_code::multi_read) {
    proto::multi_header h;
    proto::decode(r, h);
    if (!r.ok() || h.done || !body_starts_with_path(h.type)) return {};
  } else if (!body_starts_with_path(op)) {
    return {};
  }
  const std::string_view path = r.read_ustring_view();
  return r.ok() ? std::string(path) : std::string();
}

std::string op_name(std::int32_t type) { return std::string(proto::op_code_name(static_cast<op_code>(type))); }

}  // namespace

std::string_view direction_name(rule_direction d) noexcept {
  switch (d) {
    case rule_direction::any:
      return "any";
    case rule_direction::request:
      return "request";
    case rule_direction::reply:
      return "reply";
    case rule_direction::accept:
      return "accept";
  }
  return "any";
}

frame_info frame_tracker::on_request(std::string_view payload) {
  frame_info info;
  info.direction = rule_direction::request;
  info.connection = connection_;
  info.length = payload.size();
  if (!request_handshake_done_) {
    request_handshake_done_ = true;
    info.handshake = true;
    info.op = "connect";
    proto::connect_request req;
    if (!proto::decode_connect_request(payload, req)) {
      info.session_id = req.session_id;
      info.timeout = req.timeout;
    }
    return info;
  }
  jute::reader r(payload, payload.size());
  proto::request_header header;
  proto::decode(r, header);
  if (!r.ok()) {
    info.op = "unknown";
    return info;
  }
  info.xid = header.xid;
  info.op = op_name(static_cast<std::int32_t>(header.type));
  info.path = first_path(header.type, r);
  // Pings and auth are answered out of band by their special xid; everything else is matched by xid.
  if (!proto::special_xid_op(header.xid)) sent_.push_back({header.xid, info.op, info.path});
  return info;
}

frame_info frame_tracker::on_reply(std::string_view payload) {
  frame_info info;
  info.direction = rule_direction::reply;
  info.connection = connection_;
  info.length = payload.size();
  if (!reply_handshake_done_) {
    reply_handshake_done_ = true;
    info.handshake = true;
    info.op = "connect";
    proto::connect_response rsp;
    if (!proto::decode_connect_response(payload, rsp)) {
      info.session_id = rsp.session_id;
      info.timeout = rsp.timeout;
    }
    return info;
  }
  proto::reply_header header;
  if (proto::decode_reply_header(payload, header)) {
    info.op = "unknown";
    return info;
  }
  info.xid = header.xid;
  info.zxid = header.zxid;
  info.err = header.err;
  if (auto special = proto::special_xid_op(header.xid)) {
    info.op = std::string(proto::op_code_name(*special));
    if (*special == op_code::notification) {
      proto::watcher_event event;
      if (!proto::decode_notification(payload, event)) info.path = event.path;
    }
    return info;
  }
  // Replies come in send order, so the match is almost always the front; search in case a fault reordered them.
  for (auto it = sent_.begin(); it != sent_.end(); ++it) {
    if (it->xid == header.xid) {
      info.op = std::move(it->op);
      info.path = std::move(it->path);
      sent_.erase(it);
      return info;
    }
  }
  info.op = "unknown";
  return info;
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

std::string frame_log_line(std::int64_t monotonic_us, const frame_info& frame, std::uint64_t rule,
                           std::string_view action) {
  std::string line = "{\"t_us\":" + std::to_string(monotonic_us);
  line += ",\"conn\":" + std::to_string(frame.connection);
  if (frame.member != 0) line += ",\"member\":" + std::to_string(frame.member);
  line += ",\"dir\":" + json_quote(direction_name(frame.direction));
  if (!frame.op.empty()) line += ",\"op\":" + json_quote(frame.op);
  if (frame.xid) line += ",\"xid\":" + std::to_string(*frame.xid);
  if (frame.zxid) line += ",\"zxid\":" + std::to_string(*frame.zxid);
  if (frame.err) line += ",\"err\":" + std::to_string(*frame.err);
  if (!frame.path.empty()) line += ",\"path\":" + json_quote(frame.path);
  if (frame.session_id) line += ",\"session\":" + std::to_string(*frame.session_id);
  if (frame.timeout) line += ",\"timeout\":" + std::to_string(*frame.timeout);
  if (frame.direction != rule_direction::accept) line += ",\"len\":" + std::to_string(frame.length);
  if (rule != 0) line += ",\"rule\":" + std::to_string(rule);
  line += ",\"action\":" + json_quote(action);
  line += '}';
  return line;
}

}  // namespace zkwire::faults
