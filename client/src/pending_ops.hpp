#pragma once
// Pending operations by request id. The engine assigns ids in increasing order and replies complete them mostly in
// that order, so a vector kept in id order (binary search, the completed prefix dropped lazily) finds them at once
// and, unlike a node-based map, allocates nothing per request once it has grown.

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "zkwire/client/detail/core.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::detail {

class pending_ops {
 public:
  struct taken {
    std::unique_ptr<pending_op> op;  // null if the table had no operation of that id
    proto::watcher_id watcher = 0;   // the watcher the request was submitted with, 0 for none
  };

  // `id` must be larger than every id added before.
  void add(proto::request_id id, std::unique_ptr<pending_op> op, proto::watcher_id watcher = 0) {
    entries_.push_back(entry{id, watcher, std::move(op)});
  }

  // The operation of `id`, removed from the table.
  taken take(proto::request_id id);

  // Every pending operation, in id order; the table is left empty.
  std::vector<std::unique_ptr<pending_op>> take_all();

 private:
  struct entry {
    proto::request_id id = 0;
    proto::watcher_id watcher = 0;
    std::unique_ptr<pending_op> op;  // null once completed
  };
  static constexpr std::size_t compact_after = 64;
  static constexpr std::size_t keep_capacity = 256;
  std::vector<entry> entries_;
  std::size_t head_ = 0;  // entries before it are completed
};

}  // namespace zkwire::detail
