#pragma once
// Every Jute record zkwire reads or writes, each described once: its fields in wire order (member pointers, or a
// member wrapped in one of the two field kinds below). This list is the registry: record_fields.hpp derives each
// record's encode and decode from it, and the round-trip, truncation and golden tests and the fuzz_records target
// walk it, so a record added here is encoded, decoded, tested and fuzzed without another list to update. A record
// described anywhere else does not compile: record_fields<R> is only ever looked up here.

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "zkwire/proto/acl.hpp"
#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/multi.hpp"
#include "zkwire/proto/requests.hpp"
#include "zkwire/proto/responses.hpp"
#include "zkwire/proto/stat.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto::detail {

// A field a peer may leave off: the record may end right before it, and then it reads as its default. The encoder
// always writes it. Only the connect handshake's readOnly byte is one (docs/protocol.md#handshake).
template <class Member>
struct optional_at_end {
  Member member;
};
template <class Member>
optional_at_end(Member) -> optional_at_end<Member>;

// A list with no count: each entry behind a MultiHeader naming its type, ended by the header {-1, true, -1}
// (docs/protocol.md#multi). The entry's body is the alternative op_traits gives its type (multi.cpp).
template <class Member>
struct multi_list {
  Member member;
};
template <class Member>
multi_list(Member) -> multi_list<Member>;

template <class Record, class... Fields>
struct description {
  using record = Record;
  std::tuple<Fields...> fields;
};

template <class Record, class... Fields>
constexpr description<Record, Fields...> describe(Fields... fields) {
  return {{fields...}};
}

// clang-format off
inline constexpr auto records = std::tuple{
    describe<no_body>(),
    describe<stat>(&stat::czxid, &stat::mzxid, &stat::ctime, &stat::mtime, &stat::version, &stat::cversion,
                   &stat::aversion, &stat::ephemeral_owner, &stat::data_length, &stat::num_children, &stat::pzxid),
    describe<acl_id>(&acl_id::scheme, &acl_id::id),
    describe<acl>(&acl::perms, &acl::id),

    // The handshake (connect.hpp): passwd is a buffer a peer may send as null, read as empty.
    describe<connect_request>(&connect_request::protocol_version, &connect_request::last_zxid_seen,
                              &connect_request::timeout, &connect_request::session_id, &connect_request::passwd,
                              optional_at_end{&connect_request::read_only}),
    describe<connect_response>(&connect_response::protocol_version, &connect_response::timeout,
                               &connect_response::session_id, &connect_response::passwd,
                               optional_at_end{&connect_response::read_only}),

    describe<request_header>(&request_header::xid, &request_header::type),
    describe<reply_header>(&reply_header::xid, &reply_header::zxid, &reply_header::err),
    describe<multi_header>(&multi_header::type, &multi_header::done, &multi_header::err),

    // Requests (requests.hpp).
    describe<create_request>(&create_request::path, &create_request::data, &create_request::acl,
                             &create_request::flags),
    describe<create_ttl_request>(&create_ttl_request::path, &create_ttl_request::data, &create_ttl_request::acl,
                                 &create_ttl_request::flags, &create_ttl_request::ttl),
    describe<delete_request>(&delete_request::path, &delete_request::version),
    describe<exists_request>(&exists_request::path, &exists_request::watch),
    describe<get_data_request>(&get_data_request::path, &get_data_request::watch),
    describe<set_data_request>(&set_data_request::path, &set_data_request::data, &set_data_request::version),
    describe<get_acl_request>(&get_acl_request::path),
    describe<set_acl_request>(&set_acl_request::path, &set_acl_request::acl, &set_acl_request::version),
    describe<get_children_request>(&get_children_request::path, &get_children_request::watch),
    describe<get_children2_request>(&get_children2_request::path, &get_children2_request::watch),
    describe<sync_request>(&sync_request::path),
    describe<check_version_request>(&check_version_request::path, &check_version_request::version),
    describe<reconfig_request>(&reconfig_request::joining_servers, &reconfig_request::leaving_servers,
                               &reconfig_request::new_members, &reconfig_request::cur_config_id),
    describe<auth_packet>(&auth_packet::type, &auth_packet::scheme, &auth_packet::auth),
    describe<get_ephemerals_request>(&get_ephemerals_request::prefix_path),
    describe<get_all_children_number_request>(&get_all_children_number_request::path),
    describe<get_sasl_request>(&get_sasl_request::token),

    // Responses (responses.hpp).
    describe<create_response>(&create_response::path),
    describe<create2_response>(&create2_response::path, &create2_response::stat),
    describe<exists_response>(&exists_response::stat),
    describe<get_data_response>(&get_data_response::data, &get_data_response::stat),
    describe<set_data_response>(&set_data_response::stat),
    describe<get_acl_response>(&get_acl_response::acl, &get_acl_response::stat),
    describe<set_acl_response>(&set_acl_response::stat),
    describe<get_children_response>(&get_children_response::children),
    describe<get_children2_response>(&get_children2_response::children, &get_children2_response::stat),
    describe<sync_response>(&sync_response::path),
    describe<get_ephemerals_response>(&get_ephemerals_response::ephemerals),
    describe<get_all_children_number_response>(&get_all_children_number_response::total_number),
    describe<client_info>(&client_info::auth_scheme, &client_info::user),
    describe<who_am_i_response>(&who_am_i_response::client_info),
    describe<set_sasl_response>(&set_sasl_response::token),
    describe<error_response>(&error_response::err),

    // Watches (watches.hpp).
    describe<watcher_event>(&watcher_event::type, &watcher_event::state, &watcher_event::path),
    describe<set_watches>(&set_watches::relative_zxid, &set_watches::data_watches, &set_watches::exist_watches,
                          &set_watches::child_watches),
    describe<set_watches2>(&set_watches2::relative_zxid, &set_watches2::data_watches, &set_watches2::exist_watches,
                           &set_watches2::child_watches, &set_watches2::persistent_watches,
                           &set_watches2::persistent_recursive_watches),
    describe<check_watches_request>(&check_watches_request::path, &check_watches_request::type),
    describe<remove_watches_request>(&remove_watches_request::path, &remove_watches_request::type),
    describe<add_watch_request>(&add_watch_request::path, &add_watch_request::mode),

    // multi and multiRead (multi.hpp).
    describe<multi_request>(multi_list{&multi_request::ops}),
    describe<multi_response>(multi_list{&multi_response::results}),
};
// clang-format on

inline constexpr std::size_t record_count = std::tuple_size_v<decltype(records)>;

// The record at position I of the registry.
template <std::size_t I>
using record_at = typename std::tuple_element_t<I, decltype(records)>::record;

// How often Record is described here: once, or 0 for a type that is not a record.
template <class Record>
constexpr std::size_t occurrences() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + std::size_t{std::is_same_v<record_at<I>, Record>});
  }
  (std::make_index_sequence<record_count>{});
}

template <class Record>
inline constexpr bool is_described = occurrences<Record>() != 0;

template <class Record>
constexpr std::size_t record_index() {
  static_assert(occurrences<Record>() == 1, "a record needs exactly one description in records.hpp");
  return []<std::size_t... I>(std::index_sequence<I...>) {
    std::size_t found = 0;
    ((std::is_same_v<record_at<I>, Record> ? (found = I) : found), ...);
    return found;
  }
  (std::make_index_sequence<record_count>{});
}

// A record's fields in wire order.
template <class Record>
inline constexpr auto record_fields = std::get<record_index<Record>()>(records).fields;

// Calls f(std::type_identity<R>{}) for every described record R, in registry order.
template <class F>
constexpr void for_each_record(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) { (f(std::type_identity<record_at<I>>{}), ...); }
  (std::make_index_sequence<record_count>{});
}

}  // namespace zkwire::proto::detail
