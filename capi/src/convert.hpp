#pragma once
// Between zkwire's C++ values and the C API's: result codes, stats, ACLs, string vectors, session states and
// watch events. The C values handed to the application are malloc'ed, as the deallocate_* functions expect.

#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/client/types.hpp"
#include "zookeeper.h"

namespace zkwire::capi {

// The C client's return code for an operation's error (ZOK for none).
int to_rc(const std::error_code& ec) noexcept;

void copy_stat(const zkwire::stat& from, struct Stat* to) noexcept;

// NULL or an empty vector is refused by the server (INVALIDACL) as it is by the C client.
std::vector<zkwire::acl> acl_from_c(const struct ACL_vector* acl);
// Fills `out` with malloc'ed copies (free with deallocate_ACL_vector / deallocate_String_vector).
void acl_to_c(const std::vector<zkwire::acl>& acl, struct ACL_vector* out);
void strings_to_c(const std::vector<std::string>& strings, struct String_vector* out);

// The C session state for a zkwire one (what zoo_state returns and watchers see).
int state_to_c(zkwire::session_state state) noexcept;
int event_to_c(zkwire::event_type type) noexcept;

// A host list as the C client reads it, as a zkwire connect string. The C client takes a host entry's port from after
// its last colon, so programs write an IPv6 address bare ("::1:2181,10.0.0.1:2181/app"); zkwire's connect string
// wants it in brackets ("[::1]:2181"). Such entries get the brackets; every other character, chroot included, is
// left as it is (entries already in brackets too).
std::string hosts_from_c(std::string_view hosts);

// The node data a create, set or multi op stores for the C API's (value, valuelen), as the C client stores it: the
// valuelen bytes at value, so value == NULL with valuelen 0 is empty data (other clients read ""); a negative
// valuelen is null data (getData then reports -1). NULL with a positive valuelen, where the C client reads through
// the NULL pointer, is null data here.
std::optional<std::string> data_from_c(const char* value, int valuelen);

// A create mode of the C API, or nullopt for an unknown value.
bool create_mode_from_c(int mode, zkwire::create_mode& out) noexcept;

}  // namespace zkwire::capi
