#pragma once
// Request bodies of the client opcodes (docs/protocol.md#opcodes), each the Jute record that follows the RequestHeader.
// Watch requests are in watches.hpp, multi in multi.hpp. Plain values.
//
// Null vs empty: the encoders never write a null string or vector, which the server rejects (MARSHALLINGERROR or
// INVALIDACL). The exceptions are fields whose null has a meaning and which are std::optional here: create and
// setData data (null data is stored as null and read back as null, as the Java client allows), and reconfig's
// three strings (null newMembers selects an incremental reconfig).
//
// Paths are sent as given: validate them (path.hpp) and prepend the chroot before encoding.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/create_mode.hpp"

namespace zkwire::proto {

// Body of create (1), create2 (15) and createContainer (19). Pick the opcode with create_opcode(flags).
struct create_request {
  std::string path;  // with a sequential mode, the prefix the server appends a 10-digit counter to
  std::optional<std::string> data;
  std::vector<proto::acl> acl;
  create_mode flags = create_mode::persistent;

  bool operator==(const create_request&) const = default;
};

// Body of createTTL (21); the server answers UNIMPLEMENTED unless started with extendedTypesEnabled.
struct create_ttl_request {
  std::string path;
  std::optional<std::string> data;
  std::vector<proto::acl> acl;
  create_mode flags = create_mode::persistent_with_ttl;
  std::int64_t ttl = 0;  // ms, min_ttl_ms .. max_ttl_ms

  bool operator==(const create_ttl_request&) const = default;
};

struct delete_request {
  std::string path;
  std::int32_t version = -1;  // -1: any version

  bool operator==(const delete_request&) const = default;
};

struct exists_request {
  std::string path;
  bool watch = false;  // registers an exist watch even when the node does not exist

  bool operator==(const exists_request&) const = default;
};

struct get_data_request {
  std::string path;
  bool watch = false;

  bool operator==(const get_data_request&) const = default;
};

struct set_data_request {
  std::string path;
  std::optional<std::string> data;
  std::int32_t version = -1;  // -1: any version

  bool operator==(const set_data_request&) const = default;
};

struct get_acl_request {
  std::string path;

  bool operator==(const get_acl_request&) const = default;
};

struct set_acl_request {
  std::string path;
  std::vector<proto::acl> acl;
  std::int32_t version = -1;  // compared with the node's aversion; -1: any

  bool operator==(const set_acl_request&) const = default;
};

struct get_children_request {
  std::string path;
  bool watch = false;  // ignored inside multiRead

  bool operator==(const get_children_request&) const = default;
};

struct get_children2_request {
  std::string path;
  bool watch = false;

  bool operator==(const get_children2_request&) const = default;
};

struct sync_request {
  std::string path;

  bool operator==(const sync_request&) const = default;
};

// check (13): use inside multi only; standalone, a 3.8.0 server fails to serialize the reply and drops the
// connection.
struct check_version_request {
  std::string path;
  std::int32_t version = -1;

  bool operator==(const check_version_request&) const = default;
};

// reconfig (16); the reply is a get_data_response with the new configuration. RECONFIGDISABLED unless the ensemble
// runs with reconfigEnabled=true. Null and empty differ: a non-null new_members asks for a non-incremental
// reconfig, so leave the fields you do not use as nullopt.
struct reconfig_request {
  std::optional<std::string> joining_servers;
  std::optional<std::string> leaving_servers;
  std::optional<std::string> new_members;
  std::int64_t cur_config_id = -1;  // -1: do not check the configuration version

  bool operator==(const reconfig_request&) const = default;
};

// auth (100), sent with xid -4. Auth is per connection: re-send it after every reconnect.
struct auth_packet {
  std::int32_t type = 0;  // ignored by the server
  std::string scheme;     // "digest", "ip", "sasl", ...; an unknown scheme gets AUTHFAILED and a closed socket
  std::string auth;       // for digest: "user:password"

  bool operator==(const auth_packet&) const = default;
};

// getEphemerals (103): the caller's session's ephemerals whose full server path starts with prefix_path
// (a plain string prefix; "/" or "" means all). No chroot is applied either way.
struct get_ephemerals_request {
  std::string prefix_path;

  bool operator==(const get_ephemerals_request&) const = default;
};

// getAllChildrenNumber (104): counts all descendants, not just children.
struct get_all_children_number_request {
  std::string path;

  bool operator==(const get_all_children_number_request&) const = default;
};

// sasl (102): GetSASLRequest; the reply (set_sasl_response) may overtake earlier replies.
struct get_sasl_request {
  std::string token;

  bool operator==(const get_sasl_request&) const = default;
};

void encode(jute::writer& w, const create_request& v);
void decode(jute::reader& r, create_request& v);
void encode(jute::writer& w, const create_ttl_request& v);
void decode(jute::reader& r, create_ttl_request& v);
void encode(jute::writer& w, const delete_request& v);
void decode(jute::reader& r, delete_request& v);
void encode(jute::writer& w, const exists_request& v);
void decode(jute::reader& r, exists_request& v);
void encode(jute::writer& w, const get_data_request& v);
void decode(jute::reader& r, get_data_request& v);
void encode(jute::writer& w, const set_data_request& v);
void decode(jute::reader& r, set_data_request& v);
void encode(jute::writer& w, const get_acl_request& v);
void decode(jute::reader& r, get_acl_request& v);
void encode(jute::writer& w, const set_acl_request& v);
void decode(jute::reader& r, set_acl_request& v);
void encode(jute::writer& w, const get_children_request& v);
void decode(jute::reader& r, get_children_request& v);
void encode(jute::writer& w, const get_children2_request& v);
void decode(jute::reader& r, get_children2_request& v);
void encode(jute::writer& w, const sync_request& v);
void decode(jute::reader& r, sync_request& v);
void encode(jute::writer& w, const check_version_request& v);
void decode(jute::reader& r, check_version_request& v);
void encode(jute::writer& w, const reconfig_request& v);
void decode(jute::reader& r, reconfig_request& v);
void encode(jute::writer& w, const auth_packet& v);
void decode(jute::reader& r, auth_packet& v);
void encode(jute::writer& w, const get_ephemerals_request& v);
void decode(jute::reader& r, get_ephemerals_request& v);
void encode(jute::writer& w, const get_all_children_number_request& v);
void decode(jute::reader& r, get_all_children_number_request& v);
void encode(jute::writer& w, const get_sasl_request& v);
void decode(jute::reader& r, get_sasl_request& v);

}  // namespace zkwire::proto
