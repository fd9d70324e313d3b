#include "zkwire/proto/multi.hpp"

#include <utility>

#include "record_fields.hpp"
#include "zkwire/proto/create_mode.hpp"
#include "zkwire/proto/detail/variant.hpp"
#include "zkwire/proto/error.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/op_traits.hpp"

namespace zkwire::proto {

multi_op::multi_op() = default;
multi_op::multi_op(op_code op, multi_op_body request) : type(op), body(std::move(request)) {}
namespace {

// The op_traits column naming the body alternative of an entry: multi_op_body for ops, multi_result_body for results.
template <class Entry>
constexpr std::size_t op_traits::*body_column = &op_traits::multi_op_body;
template <>
constexpr std::size_t op_traits::*body_column<multi_result> = &op_traits::multi_result_body;

// The body alternative an entry of this type carries, or nullopt for a type that cannot appear in its list.
template <class Entry>
std::optional<std::size_t> body_index(op_code type) noexcept {
  const op_traits* t = find_op_traits(type);
  if (t == nullptr || t->*body_column<Entry> == std::variant_npos) return std::nullopt;
  return t->*body_column<Entry>;
}

template <class Entry>
bool body_fits(const Entry& entry) noexcept {
  return body_index<Entry>(entry.type) == entry.body.index();
}

// Results carry an err; a failed or rolled-back one (type error) has an ErrorResponse with it instead of a body.
template <class Entry>
concept has_err = requires(Entry entry) {
  entry.err;
};

// One entry of a multi list, both directions: the header {type, false, err} (err -1 for an op, the result's err for
// a result), then the body of that type.
template <class Entry>
void write_entry(jute::writer& w, const Entry& v) {
  if (!body_fits(v)) {
    w.fail(jute::error::invalid_value);
    return;
  }
  std::int32_t err = -1;
  if constexpr (has_err<Entry>) err = v.err;
  encode(w, multi_header{v.type, false, err});
  if constexpr (has_err<Entry>) {
    if (v.type == op_code::error) {
      encode(w, error_response{v.err});
      return;
    }
  }
  std::visit([&w](const auto& body) { encode(w, body); }, v.body);
}

template <class Entry>
void write_entries(jute::writer& w, const std::vector<Entry>& list) {
  for (const auto& entry : list) write_entry(w, entry);
  encode(w, multi_header{op_code::error, true, -1});
}

template <class Entry>
void read_body(jute::reader& r, Entry& entry, const multi_header& h, std::size_t index) {
  if constexpr (has_err<Entry>) {
    entry.err = h.err;
    if (entry.type == op_code::error) {
      // The body's err is authoritative (it is what the Java client reports); the server copies it to the header.
      error_response e;
      decode(r, e);
      entry.err = e.err;
      return;
    }
  }
  detail::emplace_index(entry.body, index);
  std::visit([&r](auto& body) { decode(r, body); }, entry.body);
}

template <class Entry>
void read_entries(jute::reader& r, std::vector<Entry>& list) {
  list.clear();
  for (;;) {
    multi_header h;
    decode(r, h);
    // Like the Java client, any header with done set ends the list, whatever its type and err.
    if (!r.ok() || h.done) return;
    const auto index = body_index<Entry>(h.type);
    if (!index) {
      r.fail(jute::error::invalid_value);
      return;
    }
    Entry entry;
    entry.type = h.type;
    read_body(r, entry, h, *index);
    if (!r.ok()) return;
    list.push_back(std::move(entry));
  }
}

bool create_is_valid(const multi_op& op) noexcept {
  if (const auto* c = std::get_if<create_request>(&op.body)) return is_valid_create(op.type, c->flags);
  if (const auto* t = std::get_if<create_ttl_request>(&op.body)) return is_valid_create(op.type, t->flags, t->ttl);
  return true;
}

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

void encode(jute::writer& w, const multi_op& v) { write_entry(w, v); }

void encode(jute::writer& w, const multi_request& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, multi_request& v) { detail::decode_fields(r, v); }

void encode(jute::writer& w, const multi_result& v) { write_entry(w, v); }

void encode(jute::writer& w, const multi_response& v) { detail::encode_fields(w, v); }

void decode(jute::reader& r, multi_response& v) { detail::decode_fields(r, v); }

namespace detail {

void write_multi_list(jute::writer& w, const std::vector<multi_op>& ops) { write_entries(w, ops); }

void read_multi_list(jute::reader& r, std::vector<multi_op>& ops) { read_entries(r, ops); }

void write_multi_list(jute::writer& w, const std::vector<multi_result>& results) { write_entries(w, results); }

void read_multi_list(jute::reader& r, std::vector<multi_result>& results) { read_entries(r, results); }

}  // namespace detail

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
