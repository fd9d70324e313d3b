#pragma once
// Id, ACL, permission bits and the common ACL lists (ZooDefs.Ids, docs/protocol.md#acls, docs/protocol.md#auth).
// Plain values; the common lists are immutable and safe to share between threads.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"

namespace zkwire::proto {

// Permission bits of an ACL entry; combine with |.
namespace perms {
inline constexpr std::int32_t read = 1;
inline constexpr std::int32_t write = 2;
inline constexpr std::int32_t create = 4;
inline constexpr std::int32_t delete_ = 8;  // trailing underscore: `delete` is a keyword
inline constexpr std::int32_t admin = 16;
inline constexpr std::int32_t all = 31;
}  // namespace perms

// An identity (the Id record): scheme "world" (id "anyone"), "digest" ("user:base64(sha1(user:password))"), "ip"
// ("a.b.c.d[/bits]"), "auth" (ACLs only: every identity the caller has authenticated), "sasl", ...
// Not an aggregate, nor is acl: GCC 12 destroys an aggregate temporary built with braces inside a co_await
// expression twice when the awaited operation throws; with constructors, `acl{perms::read, {"world", "anyone"}}`
// and `acl_id{}` are built and destroyed once there too.
struct acl_id {
  std::string scheme;
  std::string id;

  acl_id();
  acl_id(std::string scheme_name, std::string identity);

  bool operator==(const acl_id&) const = default;
};

struct acl {
  std::int32_t perms = 0;
  proto::acl_id id;

  acl();
  acl(std::int32_t permissions, proto::acl_id identity);
  // acl(perms::read, "world", "anyone"): no braces needed.
  acl(std::int32_t permissions, std::string scheme_name, std::string identity);

  bool operator==(const acl&) const = default;
};

// Smallest encodings, for bounding hostile vector counts before allocating.
inline constexpr std::size_t min_id_size = 8;                 // two empty ustrings
inline constexpr std::size_t min_acl_size = 4 + min_id_size;  // perms + Id

void encode(jute::writer& w, const acl_id& v);
void decode(jute::reader& r, acl_id& v);
void encode(jute::writer& w, const acl& v);
void decode(jute::reader& r, acl& v);

// Writes an ACL list. The server rejects an empty (or null) list with INVALIDACL; that is its decision, the encoder
// sends what it is given (never null).
void write_acl_list(jute::writer& w, const std::vector<acl>& list);
void read_acl_list(jute::reader& r, std::vector<acl>& list);

// [(ALL, world:anyone)]: anyone may do anything.
const std::vector<acl>& open_acl_unsafe();
// [(READ, world:anyone)]
const std::vector<acl>& read_acl_unsafe();
// [(ALL, auth:"")]: everything for the identities the creating connection authenticated; INVALIDACL without one.
const std::vector<acl>& creator_all_acl();

}  // namespace zkwire::proto
