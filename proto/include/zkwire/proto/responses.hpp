#pragma once
// Reply bodies (docs/protocol.md#opcodes): the Jute record after a ReplyHeader whose err is 0. Plain values.
//
// Null vs empty: buffers the server can send as null are std::optional (getData data: a node created with null
// data reads back null, not empty; a SASL token). Vectors and strings the server never sends null read a null as
// empty.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/stat.hpp"

namespace zkwire::proto {

// Reply to create (1).
struct create_response {
  std::string path;  // the name actually created, with the sequential suffix; strip the chroot before use

  bool operator==(const create_response&) const = default;
};

// Reply to create2 (15), createContainer (19) and createTTL (21).
struct create2_response {
  std::string path;
  proto::stat stat;

  bool operator==(const create2_response&) const = default;
};

// Reply to exists (3) when the node exists; NONODE has no body.
struct exists_response {
  proto::stat stat;

  bool operator==(const exists_response&) const = default;
};

// Reply to getData (4), and to reconfig (16) where data is the new configuration.
struct get_data_response {
  std::optional<std::string> data;
  proto::stat stat;

  bool operator==(const get_data_response&) const = default;
};

struct set_data_response {
  proto::stat stat;

  bool operator==(const set_data_response&) const = default;
};

// Without ADMIN on the node, digest ids come back masked as "user:x".
struct get_acl_response {
  std::vector<proto::acl> acl;
  proto::stat stat;

  bool operator==(const get_acl_response&) const = default;
};

struct set_acl_response {
  proto::stat stat;

  bool operator==(const set_acl_response&) const = default;
};

// Child names only (not paths), in no particular order.
struct get_children_response {
  std::vector<std::string> children;

  bool operator==(const get_children_response&) const = default;
};

struct get_children2_response {
  std::vector<std::string> children;
  proto::stat stat;

  bool operator==(const get_children2_response&) const = default;
};

struct sync_response {
  std::string path;

  bool operator==(const sync_response&) const = default;
};

// Full server paths (no chroot is stripped).
struct get_ephemerals_response {
  std::vector<std::string> ephemerals;

  bool operator==(const get_ephemerals_response&) const = default;
};

struct get_all_children_number_response {
  std::int32_t total_number = 0;  // every descendant, not just the children

  bool operator==(const get_all_children_number_response&) const = default;
};

// One identity of the connection, e.g. ("digest", "bob") or ("ip", "127.0.0.1").
struct client_info {
  std::string auth_scheme;
  std::string user;

  bool operator==(const client_info&) const = default;
};
inline constexpr std::size_t min_client_info_size = 8;

// Reply to whoAmI (107).
struct who_am_i_response {
  std::vector<proto::client_info> client_info;

  bool operator==(const who_am_i_response&) const = default;
};

// Reply to sasl (102). The token is null when the mechanism has nothing more to send.
struct set_sasl_response {
  std::optional<std::string> token;

  bool operator==(const set_sasl_response&) const = default;
};

// The 4-byte body of an addWatch (106) reply (err 0), and of every error result inside a multi response.
struct error_response {
  std::int32_t err = 0;

  bool operator==(const error_response&) const = default;
};

void encode(jute::writer& w, const create_response& v);
void decode(jute::reader& r, create_response& v);
void encode(jute::writer& w, const create2_response& v);
void decode(jute::reader& r, create2_response& v);
void encode(jute::writer& w, const exists_response& v);
void decode(jute::reader& r, exists_response& v);
void encode(jute::writer& w, const get_data_response& v);
void decode(jute::reader& r, get_data_response& v);
void encode(jute::writer& w, const set_data_response& v);
void decode(jute::reader& r, set_data_response& v);
void encode(jute::writer& w, const get_acl_response& v);
void decode(jute::reader& r, get_acl_response& v);
void encode(jute::writer& w, const set_acl_response& v);
void decode(jute::reader& r, set_acl_response& v);
void encode(jute::writer& w, const get_children_response& v);
void decode(jute::reader& r, get_children_response& v);
void encode(jute::writer& w, const get_children2_response& v);
void decode(jute::reader& r, get_children2_response& v);
void encode(jute::writer& w, const sync_response& v);
void decode(jute::reader& r, sync_response& v);
void encode(jute::writer& w, const get_ephemerals_response& v);
void decode(jute::reader& r, get_ephemerals_response& v);
void encode(jute::writer& w, const get_all_children_number_response& v);
void decode(jute::reader& r, get_all_children_number_response& v);
void encode(jute::writer& w, const client_info& v);
void decode(jute::reader& r, client_info& v);
void encode(jute::writer& w, const who_am_i_response& v);
void decode(jute::reader& r, who_am_i_response& v);
void encode(jute::writer& w, const set_sasl_response& v);
void decode(jute::reader& r, set_sasl_response& v);
void encode(jute::writer& w, const error_response& v);
void decode(jute::reader& r, error_response& v);

// A vector<ustring> (children, ephemerals, watch paths); never written as null.
void write_string_list(jute::writer& w, const std::vector<std::string>& list);

}  // namespace zkwire::proto
