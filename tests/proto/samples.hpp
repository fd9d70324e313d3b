#pragma once
// Representative values of every record, including the edge cases of each field (null vs empty buffers, empty
// vectors, negative and extreme integers, non-ASCII strings), for round-trip tests.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "described_records.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto::test {

inline stat sample_stat(std::int64_t base = 100) {
  return stat{base,
              base + 1,
              base + 2,
              base + 3,
              static_cast<std::int32_t>(base + 4),
              static_cast<std::int32_t>(base + 5),
              static_cast<std::int32_t>(base + 6),
              base + 7,
              static_cast<std::int32_t>(base + 8),
              static_cast<std::int32_t>(base + 9),
              base + 10};
}

inline std::vector<acl> sample_acls() {
  return {acl{perms::all, acl_id{"world", "anyone"}},
          acl{perms::read | perms::admin, acl_id{"digest", "bob:fyVmFCwVbTJYrz="}}, acl{0, acl_id{"", ""}}};
}

inline std::string binary_bytes() { return std::string("\0\x01\xff\x7f\x80 z", 7); }

// The encoding of `value` (a failure to encode fails the test).
template <class Record>
std::string encoded(const Record& value) {
  std::string out;
  EXPECT_FALSE(encode_append(out, value));
  return out;
}

// samples<T>() gives several values of T: hand-picked edge cases where specialised below, else values generated
// from the record's description (described_records.hpp).
template <class T>
std::vector<T> samples() {
  return generated_samples<T>();
}

template <>
inline std::vector<no_body> samples() {
  return {no_body{}};
}
template <>
inline std::vector<stat> samples() {
  return {stat{}, sample_stat(),
          stat{std::numeric_limits<std::int64_t>::min(), -1, 0, std::numeric_limits<std::int64_t>::max(),
               std::numeric_limits<std::int32_t>::min(), -1, std::numeric_limits<std::int32_t>::max(), 1, 2, 3, 4}};
}
template <>
inline std::vector<acl_id> samples() {
  return {acl_id{}, acl_id{"world", "anyone"}, acl_id{"ip", "127.0.0.1/8"}};
}
template <>
inline std::vector<acl> samples() {
  return sample_acls();
}
template <>
inline std::vector<connect_request> samples() {
  return {connect_request{},
          connect_request{0, 0x1122334455667788, 30000, 0x0123456789abcdef, std::string("0123456789abcdef"), true}};
}
template <>
inline std::vector<connect_response> samples() {
  return {connect_response{}, connect_response{0, 4000, 0x72d0001, std::string(16, '\x5a'), false},
          connect_response{0, 6000, -5, std::string(16, '\0'), true}};
}
template <>
inline std::vector<request_header> samples() {
  return {request_header{}, request_header{1, op_code::create2}, request_header{-2, op_code::ping},
          request_header{std::numeric_limits<std::int32_t>::max(), static_cast<op_code>(999)}};
}
template <>
inline std::vector<reply_header> samples() {
  return {reply_header{}, reply_header{-1, -1, 0}, reply_header{7, 0x100000005, -101}};
}
template <>
inline std::vector<multi_header> samples() {
  return {multi_header{}, multi_header{op_code::error, true, -1}, multi_header{op_code::create2, false, 0}};
}
template <>
inline std::vector<create_request> samples() {
  return {create_request{}, create_request{"/a", std::nullopt, sample_acls(), create_mode::ephemeral_sequential},
          create_request{"/a/b", std::string(), {}, create_mode::persistent},
          create_request{"/\xc3\xa9t\xc3\xa9", binary_bytes(), sample_acls(), create_mode::container}};
}
template <>
inline std::vector<create_ttl_request> samples() {
  return {create_ttl_request{},
          create_ttl_request{"/t", std::nullopt, sample_acls(), create_mode::persistent_sequential_with_ttl, 1},
          create_ttl_request{"/t", std::string("x"), {}, create_mode::persistent_with_ttl, max_ttl_ms}};
}
template <>
inline std::vector<delete_request> samples() {
  return {delete_request{}, delete_request{"/a", 7}};
}
template <>
inline std::vector<exists_request> samples() {
  return {exists_request{}, exists_request{"/a", true}};
}
template <>
inline std::vector<get_data_request> samples() {
  return {get_data_request{}, get_data_request{"/a", true}};
}
template <>
inline std::vector<set_data_request> samples() {
  return {set_data_request{}, set_data_request{"/a", std::string(), 3}, set_data_request{"/a", binary_bytes(), -1}};
}
template <>
inline std::vector<get_acl_request> samples() {
  return {get_acl_request{}, get_acl_request{"/a"}};
}
template <>
inline std::vector<set_acl_request> samples() {
  return {set_acl_request{}, set_acl_request{"/a", sample_acls(), 2}};
}
template <>
inline std::vector<get_children_request> samples() {
  return {get_children_request{}, get_children_request{"/", true}};
}
template <>
inline std::vector<get_children2_request> samples() {
  return {get_children2_request{}, get_children2_request{"/x", true}};
}
template <>
inline std::vector<sync_request> samples() {
  return {sync_request{}, sync_request{"/"}};
}
template <>
inline std::vector<check_version_request> samples() {
  return {check_version_request{}, check_version_request{"/a", 0}};
}
template <>
inline std::vector<reconfig_request> samples() {
  return {reconfig_request{},
          reconfig_request{std::string("server.4=127.0.0.1:2888:3888;2181"), std::nullopt, std::nullopt, 0x100000000},
          reconfig_request{std::nullopt, std::string("2,3"), std::string(), -1}};
}
template <>
inline std::vector<auth_packet> samples() {
  return {auth_packet{}, auth_packet{0, "digest", "bob:secret"}, auth_packet{5, "x", binary_bytes()}};
}
template <>
inline std::vector<get_ephemerals_request> samples() {
  return {get_ephemerals_request{}, get_ephemerals_request{"/app/"}};
}
template <>
inline std::vector<get_all_children_number_request> samples() {
  return {get_all_children_number_request{}, get_all_children_number_request{"/a"}};
}
template <>
inline std::vector<get_sasl_request> samples() {
  return {get_sasl_request{}, get_sasl_request{binary_bytes()}};
}
template <>
inline std::vector<create_response> samples() {
  return {create_response{}, create_response{"/a/seq-0000000003"}};
}
template <>
inline std::vector<create2_response> samples() {
  return {create2_response{}, create2_response{"/a", sample_stat()}};
}
template <>
inline std::vector<exists_response> samples() {
  return {exists_response{}, exists_response{sample_stat(5)}};
}
template <>
inline std::vector<get_data_response> samples() {
  return {get_data_response{}, get_data_response{std::string(), sample_stat()},
          get_data_response{binary_bytes(), sample_stat(9)}};
}
template <>
inline std::vector<set_data_response> samples() {
  return {set_data_response{}, set_data_response{sample_stat()}};
}
template <>
inline std::vector<get_acl_response> samples() {
  return {get_acl_response{}, get_acl_response{sample_acls(), sample_stat()}};
}
template <>
inline std::vector<set_acl_response> samples() {
  return {set_acl_response{}, set_acl_response{sample_stat()}};
}
template <>
inline std::vector<get_children_response> samples() {
  return {get_children_response{}, get_children_response{{"b", "a", "", "\xe2\x82\xac"}}};
}
template <>
inline std::vector<get_children2_response> samples() {
  return {get_children2_response{}, get_children2_response{{"x"}, sample_stat()}};
}
template <>
inline std::vector<sync_response> samples() {
  return {sync_response{}, sync_response{"/a"}};
}
template <>
inline std::vector<get_ephemerals_response> samples() {
  return {get_ephemerals_response{}, get_ephemerals_response{{"/e1", "/a/e2"}}};
}
template <>
inline std::vector<get_all_children_number_response> samples() {
  return {get_all_children_number_response{}, get_all_children_number_response{12345}};
}
template <>
inline std::vector<client_info> samples() {
  return {client_info{}, client_info{"ip", "127.0.0.1"}};
}
template <>
inline std::vector<who_am_i_response> samples() {
  return {who_am_i_response{}, who_am_i_response{{{"digest", "bob"}, {"ip", "127.0.0.1"}}}};
}
template <>
inline std::vector<set_sasl_response> samples() {
  return {set_sasl_response{}, set_sasl_response{std::string()}, set_sasl_response{binary_bytes()}};
}
template <>
inline std::vector<error_response> samples() {
  return {error_response{}, error_response{-101}};
}
template <>
inline std::vector<watcher_event> samples() {
  return {watcher_event{}, watcher_event{event_type::node_children_changed, keeper_state::sync_connected, "/a"}};
}
template <>
inline std::vector<set_watches> samples() {
  return {set_watches{}, set_watches{42, {"/d1", "/d2"}, {"/e"}, {}}};
}
template <>
inline std::vector<set_watches2> samples() {
  return {set_watches2{}, set_watches2{42, {"/d"}, {}, {"/c"}, {"/p1", "/p2"}, {"/r"}}};
}
template <>
inline std::vector<check_watches_request> samples() {
  return {check_watches_request{}, check_watches_request{"/a", watcher_type::children}};
}
template <>
inline std::vector<remove_watches_request> samples() {
  return {remove_watches_request{}, remove_watches_request{"/a", watcher_type::data}};
}
template <>
inline std::vector<add_watch_request> samples() {
  return {add_watch_request{}, add_watch_request{"/a", add_watch_mode::persistent_recursive}};
}
template <>
inline std::vector<multi_request> samples() {
  return {multi_request{},
          multi_request{
              {create_op(create_request{"/m", std::string("d"), sample_acls(), create_mode::persistent}),
               create_op(create_ttl_request{"/t", std::nullopt, sample_acls(), create_mode::persistent_with_ttl, 1000}),
               multi_op{op_code::create, create_request{"/c", std::nullopt, {}, create_mode::ephemeral}},
               delete_op("/m", 3), set_data_op("/m", std::nullopt, -1), check_op("/m", 0)}},
          multi_request{{get_data_op("/a"), get_children_op("/b")}}};
}
template <>
inline std::vector<multi_response> samples() {
  return {multi_response{},
          multi_response{{multi_result{op_code::create, 0, create_response{"/m"}},
                          multi_result{op_code::create2, 0, create2_response{"/t", sample_stat()}},
                          multi_result{op_code::delete_, 0, no_body{}}, multi_result{op_code::check, 0, no_body{}},
                          multi_result{op_code::set_data, 0, set_data_response{sample_stat(3)}}}},
          multi_response{{multi_result{op_code::error, 0, no_body{}}, multi_result{op_code::error, -101, no_body{}},
                          multi_result{op_code::error, -2, no_body{}}}},
          multi_response{{multi_result{op_code::get_data, 0, get_data_response{std::nullopt, sample_stat()}},
                          multi_result{op_code::get_children, 0, get_children_response{{"a", "b"}}},
                          multi_result{op_code::error, -101, no_body{}}}}};
}

}  // namespace zkwire::proto::test
