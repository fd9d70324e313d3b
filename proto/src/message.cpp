#include "zkwire/proto/message.hpp"

#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/op_traits.hpp"

namespace zkwire::proto {
std::size_t request_body_index(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr ? t->request_body : std::variant_npos;
}

std::size_t response_body_index(op_code op) noexcept {
  const op_traits* t = find_op_traits(op);
  return t != nullptr ? t->response_body : std::variant_npos;
}

std::error_code validate_request(op_code op, const create_request& body) noexcept {
  return is_valid_create(op, body.flags) ? std::error_code() : client_error::invalid_argument;
}

std::error_code validate_request(op_code op, const create_ttl_request& body) noexcept {
  return is_valid_create(op, body.flags, body.ttl) ? std::error_code() : client_error::invalid_argument;
}

std::error_code validate_request(op_code op, const multi_request& body) noexcept { return validate(op, body); }

std::error_code encode_request_frame(std::string& out, const request& req, std::size_t max_frame_size) {
  return std::visit(
      [&](const auto& body) {
        return encode_request_frame(out, req.header.xid, req.header.type, body, max_frame_size);
      },
      req.body);
}

std::error_code encode_reply_frame(std::string& out, const reply& rep) {
  return std::visit([&](const auto& body) { return encode_reply_frame(out, rep.header, body); }, rep.body);
}

std::error_code decode_reply_header(std::string_view payload, reply_header& out) {
  jute::reader r(payload, payload.size());
  decode(r, out);
  return complete_input_error(r.error());
}

std::error_code decode_reply(std::string_view payload, op_code op, reply& out) {
  const std::size_t index = response_body_index(op);
  if (index == std::variant_npos) return client_error::invalid_argument;
  jute::reader r(payload, payload.size());
  decode(r, out.header);
  out.body.emplace<no_body>();
  if (!r.ok()) return complete_input_error(r.error());
  // With an error the server normally sends no body, but its reply path can attach one; the frame length
  // already delimits it, so it is simply not read.
  if (out.header.err != 0) return {};
  detail::emplace_index(out.body, index);
  std::visit([&r](auto& body) { decode(r, body); }, out.body);
  return complete_input_error(r.finish());
}

std::error_code decode_notification(std::string_view payload, watcher_event& out) {
  reply_header header;
  if (auto ec = decode_reply(payload, header, out)) return ec;
  if (header.xid != special_xid::notification || header.err != 0) return client_error::protocol_violation;
  return {};
}

std::error_code decode_request(std::string_view payload, request& out) {
  jute::reader r(payload, payload.size());
  decode(r, out.header);
  if (!r.ok()) return complete_input_error(r.error());
  const std::size_t index = request_body_index(out.header.type);
  if (index == std::variant_npos) return client_error::protocol_violation;
  detail::emplace_index(out.body, index);
  std::visit([&r](auto& body) { decode(r, body); }, out.body);
  return complete_input_error(r.finish());
}

}  // namespace zkwire::proto
