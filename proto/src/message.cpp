#include "zkwire/proto/message.hpp"

#include "zkwire/proto/create_mode.hpp"

namespace zkwire::proto {
namespace {

using detail::index_of_v;

template <class T>
constexpr std::size_t req = index_of_v<T, request_body>;
template <class T>
constexpr std::size_t rsp = index_of_v<T, response_body>;

}  // namespace

std::size_t request_body_index(op_code op) noexcept {
  switch (op) {
    case op_code::create:
    case op_code::create2:
    case op_code::create_container:
      return req<create_request>;
    case op_code::create_ttl:
      return req<create_ttl_request>;
    case op_code::delete_:
      return req<delete_request>;
    case op_code::exists:
      return req<exists_request>;
    case op_code::get_data:
      return req<get_data_request>;
    case op_code::set_data:
      return req<set_data_request>;
    case op_code::get_acl:
      return req<get_acl_request>;
    case op_code::set_acl:
      return req<set_acl_request>;
    case op_code::get_children:
      return req<get_children_request>;
    case op_code::get_children2:
      return req<get_children2_request>;
    case op_code::sync:
      return req<sync_request>;
    case op_code::check:
      return req<check_version_request>;
    case op_code::multi:
    case op_code::multi_read:
      return req<multi_request>;
    case op_code::reconfig:
      return req<reconfig_request>;
    case op_code::check_watches:
      return req<check_watches_request>;
    case op_code::remove_watches:
      return req<remove_watches_request>;
    case op_code::auth:
      return req<auth_packet>;
    case op_code::set_watches:
      return req<set_watches>;
    case op_code::set_watches2:
      return req<set_watches2>;
    case op_code::add_watch:
      return req<add_watch_request>;
    case op_code::get_ephemerals:
      return req<get_ephemerals_request>;
    case op_code::get_all_children_number:
      return req<get_all_children_number_request>;
    case op_code::sasl:
      return req<get_sasl_request>;
    case op_code::ping:
    case op_code::who_am_i:
    case op_code::close_session:
      return req<no_body>;
    case op_code::notification:
    case op_code::delete_container:
    case op_code::create_session:
    case op_code::error:
      break;
  }
  return std::variant_npos;
}

std::size_t response_body_index(op_code op) noexcept {
  switch (op) {
    case op_code::notification:
      return rsp<watcher_event>;
    case op_code::create:
      return rsp<create_response>;
    case op_code::create2:
    case op_code::create_container:
    case op_code::create_ttl:
      return rsp<create2_response>;
    case op_code::exists:
      return rsp<exists_response>;
    case op_code::get_data:
    case op_code::reconfig:
      return rsp<get_data_response>;
    case op_code::set_data:
      return rsp<set_data_response>;
    case op_code::get_acl:
      return rsp<get_acl_response>;
    case op_code::set_acl:
      return rsp<set_acl_response>;
    case op_code::get_children:
      return rsp<get_children_response>;
    case op_code::get_children2:
      return rsp<get_children2_response>;
    case op_code::sync:
      return rsp<sync_response>;
    case op_code::multi:
    case op_code::multi_read:
      return rsp<multi_response>;
    case op_code::get_ephemerals:
      return rsp<get_ephemerals_response>;
    case op_code::get_all_children_number:
      return rsp<get_all_children_number_response>;
    case op_code::who_am_i:
      return rsp<who_am_i_response>;
    case op_code::sasl:
      return rsp<set_sasl_response>;
    case op_code::add_watch:
      return rsp<error_response>;
    case op_code::delete_:
    case op_code::ping:
    case op_code::check:
    case op_code::check_watches:
    case op_code::remove_watches:
    case op_code::auth:
    case op_code::set_watches:
    case op_code::set_watches2:
    case op_code::close_session:
      return rsp<no_body>;
    case op_code::delete_container:
    case op_code::create_session:
    case op_code::error:
      break;
  }
  return std::variant_npos;
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
