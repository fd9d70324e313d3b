#include "pending_table.hpp"

namespace zkwire::proto::session_detail {

std::optional<op_code> pending_table::cancel(request_id id) noexcept {
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    if (queued_[i].id == id) {
      const op_code op = queued_[i].op;
      queued_.erase(i);
      return op;
    }
  }
  for (std::size_t i = 0; i < sent_.size(); ++i) {
    sent_request& s = sent_[i];
    if (s.from == origin::user && s.id == id && !s.abandoned) {
      s.abandoned = true;
      return s.op;
    }
  }
  return std::nullopt;
}

std::size_t pending_table::user_pending() const noexcept {
  std::size_t n = queued_.size();
  for (std::size_t i = 0; i < sent_.size(); ++i) {
    if (sent_[i].from == origin::user && !sent_[i].abandoned) ++n;
  }
  return n;
}

}  // namespace zkwire::proto::session_detail
