#include "zkwire/proto/multi.hpp"

#include <utility>

#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/detail/variant.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/op_traits.hpp"

namespace zkwire::proto {

multi_op::multi_op() = default;
multi_op::multi_op(op_code op, multi_op_body request) : type(op), body(std::move(request)) {}
namespace {

// The multi_op_body alternative an op type carries, or nullopt for a type that cannot appear in a multi.
std::optional<std::size_t> op_body_index(op_code type) noexcept {
  const op_traits* t = find_op_traits(type);
  if (t == nullptr || t->multi_op_body == std::variant_npos) return std::nullopt;
  return t->multi_op_body;
}

// The multi_result_body alternative a result type carries, or nullopt for a type no server sends as a result.
std::optional<std::size_t> result_body_index(op_code type) noexcept {
  const op_traits* t = find_op_traits(type);
  if (t == nullptr || t->multi_result_body == std::variant_npos) return std::nullopt;
  return t->multi_result_body;
}

bool body_fits(const multi_op& op) noexcept { return op_body_index(op.type) == op.body.index(); }

bool create_is_valid(const multi_op& op) noexcept {
  if (const auto* c = std::get_if<create_request>(&op.body)) return is_valid_create(op.type, c->flags);
  if (const auto* t = std::get_if<create_ttl_request>(&op.body)) return is_valid_create(op.type, t->flags, t->ttl);
  return true;
}

constexpr multi_header terminator{op_code::error, true, -1};

}  // namespace

multi_op create_op(create_request request) {
  const op_code type = is_container(request.flags) ? op_code::create_container : op_code::create2;
  return {type, std::move(request)};
}

multi_op create_op(create_ttl_request request) { return {op_code::create_ttl, std::move(request)}; }

multi_op delete_op(std::string path, std::int32_t version) {
  return {op_code::delete_, delete_request{std::move(path), version}};
}

multi_op set_data_op(std::string path, std::optional<std::string> data, std::int32_t version) {
  return {op_code::set_data, set_data_request{std::move(path), std::move(data), version}};
}

multi_op check_op(std::string path, std::int32_t version) {
  return {op_code::check, check_version_request{std::move(path), version}};
}

multi_op get_data_op(std::string path) { return {op_code::get_data, get_data_request{std::move(path), false}}; }

multi_op get_children_op(std::string path) {
  return {op_code::get_children, get_children_request{std::move(path), false}};
}

op_code multi_opcode(const multi_request& request) noexcept {
  if (request.ops.empty()) return op_code::multi;
  for (const auto& op : request.ops) {
    if (!is_multi_read_op(op.type)) return op_code::multi;
  }
  return op_code::multi_read;
}

std::error_code validate(op_code op, const multi_request& request) noexcept {
  if (op != op_code::multi && op != op_code::multi_read) return client_error::invalid_argument;
  bool (*allowed)(op_code) noexcept = op == op_code::multi ? is_multi_write_op : is_multi_read_op;
  for (const auto& o : request.ops) {
    if (!allowed(o.type) || !body_fits(o) || !create_is_valid(o)) return client_error::invalid_argument;
  }
  return {};
}

void encode(jute::writer& w, const multi_op& v) {
  if (!body_fits(v)) {
    w.fail(jute::error::invalid_value);
    return;
  }
  encode(w, multi_header{v.type, false, -1});
  std::visit([&w](const auto& body) { encode(w, body); }, v.body);
}

void encode(jute::writer& w, const multi_request& v) {
  for (const auto& op : v.ops) encode(w, op);
  encode(w, terminator);
}

void decode(jute::reader& r, multi_request& v) {
  v.ops.clear();
  for (;;) {
    multi_header h;
    decode(r, h);
    if (!r.ok() || h.done) return;
    const auto index = op_body_index(h.type);
    if (!index) {
      r.fail(jute::error::invalid_value);
      return;
    }
    multi_op op;
    op.type = h.type;
    detail::emplace_index(op.body, *index);
    std::visit([&r](auto& body) { decode(r, body); }, op.body);
    if (!r.ok()) return;
    v.ops.push_back(std::move(op));
  }
}

void encode(jute::writer& w, const multi_result& v) {
  if (result_body_index(v.type) != v.body.index()) {
    w.fail(jute::error::invalid_value);
    return;
  }
  encode(w, multi_header{v.type, false, v.err});
  if (v.type == op_code::error) {
    encode(w, error_response{v.err});
  } else {
    std::visit([&w](const auto& body) { encode(w, body); }, v.body);
  }
}

void encode(jute::writer& w, const multi_response& v) {
  for (const auto& result : v.results) encode(w, result);
  encode(w, terminator);
}

void decode(jute::reader& r, multi_response& v) {
  v.results.clear();
  for (;;) {
    multi_header h;
    decode(r, h);
    // Like the Java client, any header with done set ends the list, whatever its type and err.
    if (!r.ok() || h.done) return;
    const auto index = result_body_index(h.type);
    if (!index) {
      r.fail(jute::error::invalid_value);
      return;
    }
    multi_result result;
    result.type = h.type;
    result.err = h.err;
    if (h.type == op_code::error) {
      // The body's err is authoritative (it is what the Java client reports); the server copies it to the header.
      error_response e;
      decode(r, e);
      result.err = e.err;
    } else {
      detail::emplace_index(result.body, *index);
      std::visit([&r](auto& body) { decode(r, body); }, result.body);
    }
    if (!r.ok()) return;
    v.results.push_back(std::move(result));
  }
}

std::optional<std::size_t> first_error_index(const multi_response& response) noexcept {
  constexpr auto runtime_inconsistency = static_cast<std::int32_t>(server_error::runtime_inconsistency);
  std::optional<std::size_t> fallback;
  for (std::size_t i = 0; i < response.results.size(); ++i) {
    const std::int32_t err = response.results[i].err;
    if (err == 0) continue;
    if (err != runtime_inconsistency) return i;
    if (!fallback) fallback = i;
  }
  return fallback;
}

std::error_code first_error(const multi_response& response) noexcept {
  const auto index = first_error_index(response);
  if (!index) return {};
  return error_from_wire(response.results[*index].err);
}

std::error_code decode_multi_response(std::string_view body, multi_response& out) { return decode_exact(body, out); }

}  // namespace zkwire::proto
