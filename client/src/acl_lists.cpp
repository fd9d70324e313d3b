#include "acl_lists.hpp"

#include <cstddef>
#include <new>
#include <utility>

namespace zkwire::detail {
namespace {

// Enough spares for a pipeline of creates in flight at once; lists longer than `max_entries` are not kept.
constexpr std::size_t lists_kept = 256;
constexpr std::size_t max_entries = 8;

struct spare_lists {
  spare_lists() = default;
  spare_lists(const spare_lists&) = delete;
  spare_lists& operator=(const spare_lists&) = delete;
  spare_lists(spare_lists&&) = delete;
  spare_lists& operator=(spare_lists&&) = delete;
  ~spare_lists();

  std::vector<std::vector<proto::acl>> lists;
};

// Set when the thread's spares are gone (thread exit): later lists are simply freed.
thread_local bool spares_gone = false;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): per thread
thread_local spare_lists spares;        // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): per thread

spare_lists::~spare_lists() { spares_gone = true; }

}  // namespace

std::vector<proto::acl> copy_acl_list(const std::vector<proto::acl>& acl) {
  if (spares_gone || spares.lists.empty()) return acl;
  std::vector<proto::acl> list = std::move(spares.lists.back());
  spares.lists.pop_back();
  list.assign(acl.begin(), acl.end());
  return list;
}

void recycle_acl_list(std::vector<proto::acl>&& list) noexcept {
  if (spares_gone || list.capacity() == 0 || list.capacity() > max_entries || spares.lists.size() >= lists_kept) return;
  if (spares.lists.capacity() < lists_kept) {
    try {
      spares.lists.reserve(lists_kept);  // once per thread; then the push below never allocates
    } catch (const std::bad_alloc&) {
      return;
    }
  }
  list.clear();
  spares.lists.push_back(std::move(list));
}

}  // namespace zkwire::detail
