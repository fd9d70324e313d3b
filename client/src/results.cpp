// Completions of the session engine turned into the client's result structs, and the multi op builders.

#include <utility>
#include <variant>

#include "acl_lists.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/core.hpp"
#include "zkwire/client/types.hpp"

namespace zkwire {
namespace detail {
namespace {

// The body alternative T of a successful completion, or nullptr (a client-side failure has no body; a body of
// another type would be a bug in the engine and is reported as a protocol violation by the callers).
template <class T>
T* body_of(proto::completion& c) {
  return std::get_if<T>(&c.result.body);
}

void take_data(std::optional<std::string>&& data, std::string& out, bool& null_data) {
  null_data = !data.has_value();
  out = data ? std::move(*data) : std::string();
}

const std::error_code unexpected_body = proto::client_error::protocol_violation;

}  // namespace

std::error_code convert(proto::completion&& c, no_result& /*out*/) { return c.error; }

std::error_code convert(proto::completion&& c, create_result& out) {
  if (c.error) return c.error;
  if (auto* b = body_of<proto::create2_response>(c)) {
    out.path = std::move(b->path);
    out.stat = b->stat;
    return {};
  }
  if (auto* b = body_of<proto::create_response>(c)) {
    out.path = std::move(b->path);
    return {};
  }
  return unexpected_body;
}

std::error_code convert(proto::completion&& c, get_result& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::get_data_response>(c);
  if (b == nullptr) return unexpected_body;
  take_data(std::move(b->data), out.data, out.null_data);
  out.stat = b->stat;
  out.zxid = c.result.header.zxid;
  return {};
}

std::error_code convert(proto::completion&& c, std::optional<zkwire::stat>& out) {
  out.reset();
  if (c.error == proto::server_error::no_node) return {};
  if (c.error) return c.error;
  auto* b = body_of<proto::exists_response>(c);
  if (b == nullptr) return unexpected_body;
  out = b->stat;
  return {};
}

std::error_code convert(proto::completion&& c, zkwire::stat& out) {
  if (c.error) return c.error;
  if (auto* b = body_of<proto::set_data_response>(c)) {
    out = b->stat;
    return {};
  }
  if (auto* b = body_of<proto::set_acl_response>(c)) {
    out = b->stat;
    return {};
  }
  return unexpected_body;
}

std::error_code convert(proto::completion&& c, children_result& out) {
  if (c.error) return c.error;
  out.zxid = c.result.header.zxid;
  if (auto* b = body_of<proto::get_children2_response>(c)) {
    out.children = std::move(b->children);
    out.stat = b->stat;
    return {};
  }
  if (auto* b = body_of<proto::get_children_response>(c)) {
    out.children = std::move(b->children);
    return {};
  }
  return unexpected_body;
}

std::error_code convert(proto::completion&& c, acl_result& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::get_acl_response>(c);
  if (b == nullptr) return unexpected_body;
  out.acl = std::move(b->acl);
  out.stat = b->stat;
  return {};
}

std::error_code convert(proto::completion&& c, std::vector<op_result>& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::multi_response>(c);
  if (b == nullptr) return unexpected_body;
  out.clear();
  out.reserve(b->results.size());
  for (auto& r : b->results) {
    op_result o;
    o.type = r.type;
    o.error = proto::error_from_wire(r.err);
    std::visit(
        [&o](auto& body) {
          using T = std::decay_t<decltype(body)>;
          if constexpr (std::is_same_v<T, proto::create_response>) {
            o.path = std::move(body.path);
          } else if constexpr (std::is_same_v<T, proto::create2_response>) {
            o.path = std::move(body.path);
            o.stat = body.stat;
          } else if constexpr (std::is_same_v<T, proto::set_data_response>) {
            o.stat = body.stat;
          } else if constexpr (std::is_same_v<T, proto::get_children_response>) {
            o.children = std::move(body.children);
          } else if constexpr (std::is_same_v<T, proto::get_data_response>) {
            take_data(std::move(body.data), o.data, o.null_data);
            o.stat = body.stat;
          }
        },
        r.body);
    out.push_back(std::move(o));
  }
  return proto::first_error(*b);
}

std::error_code convert(proto::completion&& c, std::vector<std::string>& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::get_ephemerals_response>(c);
  if (b == nullptr) return unexpected_body;
  out = std::move(b->ephemerals);
  return {};
}

std::error_code convert(proto::completion&& c, std::int32_t& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::get_all_children_number_response>(c);
  if (b == nullptr) return unexpected_body;
  out = b->total_number;
  return {};
}

std::error_code convert(proto::completion&& c, std::vector<client_info>& out) {
  if (c.error) return c.error;
  auto* b = body_of<proto::who_am_i_response>(c);
  if (b == nullptr) return unexpected_body;
  out = std::move(b->client_info);
  return {};
}

}  // namespace detail

namespace {

std::optional<std::string> data_of(std::string data, bool null_data) {
  if (null_data) return std::nullopt;
  return data;  // implicitly moved
}

}  // namespace

namespace ops {

multi_op create(std::string path, std::string data, const create_options& options) {
  if (proto::is_ttl(options.mode)) {
    return proto::create_op(proto::create_ttl_request{std::move(path), data_of(std::move(data), options.null_data),
                                                      options.acl, options.mode, options.ttl});
  }
  return proto::create_op(
      proto::create_request{std::move(path), data_of(std::move(data), options.null_data), options.acl, options.mode});
}

multi_op remove(std::string path, std::int32_t version) { return proto::delete_op(std::move(path), version); }

multi_op set(std::string path, std::string data, std::int32_t version) {
  return proto::set_data_op(std::move(path), std::move(data), version);
}

multi_op check(std::string path, std::int32_t version) { return proto::check_op(std::move(path), version); }

multi_op get(std::string path) { return proto::get_data_op(std::move(path)); }

multi_op get_children(std::string path) { return proto::get_children_op(std::move(path)); }

}  // namespace ops

detail::request_spec client::make_create(std::string path, std::string data, const create_options& options) {
  const proto::op_code op = proto::create_opcode(options.mode);
  if (proto::is_ttl(options.mode)) {
    return spec(op, proto::create_ttl_request{std::move(path), data_of(std::move(data), options.null_data),
                                              detail::copy_acl_list(options.acl), options.mode, options.ttl});
  }
  return spec(op, proto::create_request{std::move(path), data_of(std::move(data), options.null_data),
                                        detail::copy_acl_list(options.acl), options.mode});
}

detail::request_spec client::make_create(std::string path, std::string data, create_mode mode) {
  // The open ACL of create_options' default, without building a create_options (its own copy of the list).
  if (proto::is_ttl(mode)) return make_create(std::move(path), std::move(data), create_options::with_mode(mode));
  return spec(proto::create_opcode(mode), proto::create_request{std::move(path), std::move(data),
                                                                detail::copy_acl_list(proto::open_acl_unsafe()), mode});
}

}  // namespace zkwire
