#include "pending_ops.hpp"

#include <algorithm>

namespace zkwire::detail {

pending_ops::taken pending_ops::take(proto::request_id id) {
  const auto first = entries_.begin() + static_cast<std::ptrdiff_t>(head_);
  const auto it =
      std::lower_bound(first, entries_.end(), id, [](const entry& e, proto::request_id value) { return e.id < value; });
  if (it == entries_.end() || it->id != id || !it->op) return {};
  taken result{std::move(it->op), it->watcher};
  while (head_ < entries_.size() && !entries_[head_].op) ++head_;
  if (head_ == entries_.size()) {
    // Drained: a table grown by a burst (thousands of requests at once) gives its memory back; a steady pipeline's
    // stays, so it allocates nothing per request.
    if (entries_.capacity() > keep_capacity) {
      std::vector<entry>().swap(entries_);
    } else {
      entries_.clear();
    }
    head_ = 0;
  } else if (head_ >= compact_after && head_ * 2 >= entries_.size()) {
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return result;
}

std::vector<std::unique_ptr<pending_op>> pending_ops::take_all() {
  std::vector<std::unique_ptr<pending_op>> all;
  for (auto& e : entries_) {
    if (e.op) all.push_back(std::move(e.op));
  }
  entries_.clear();
  head_ = 0;
  return all;
}

}  // namespace zkwire::detail
