#pragma once
// Recycled ACL lists for create requests. A create carries its ACL as a std::vector<acl> (proto::create_request),
// which would otherwise be one heap allocation per create: the engine encodes the request at once and leaves the
// body with the caller (session::submit), so the driver hands the list back here and the next create on the same
// thread refills it (assigning the usual short entries, world:anyone and the like, allocates nothing). Per thread,
// like the operation memory (op_memory.cpp); a list freed on another thread joins that thread's spares.

#include <vector>

#include "zkwire/proto/acl.hpp"

namespace zkwire::detail {

// A copy of `acl`, in a spare list's storage when this thread has one.
std::vector<proto::acl> copy_acl_list(const std::vector<proto::acl>& acl);
// Keeps `list`'s storage for a later copy_acl_list (bounded; the rest is freed).
void recycle_acl_list(std::vector<proto::acl>&& list) noexcept;

}  // namespace zkwire::detail
