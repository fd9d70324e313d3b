#include "pending_table.hpp"

#include <utility>

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

void pending_table::push_sent(std::int32_t xid, op_code op, request_id id, origin from, time_point send_time,
                              time_point deadline, watch_intent* watch) {
  sent_request& s = sent_.push_back();
  s.xid = xid;
  s.op = op;
  s.id = id;
  s.from = from;
  s.abandoned = false;
  s.send_time = send_time;
  s.deadline = deadline;
  if (watch != nullptr) {
    std::swap(s.watch, *watch);
  } else {
    s.watch.watcher = 0;  // the path keeps its buffer for the next user request in this slot
    s.watch.registers.reset();
    s.watch.removes.reset();
  }
}

std::size_t pending_table::user_pending() const noexcept {
  std::size_t n = queued_.size();
  for (std::size_t i = 0; i < sent_.size(); ++i) {
    if (sent_[i].from == origin::user && !sent_[i].abandoned) ++n;
  }
  return n;
}

namespace {

void release_excess(std::string& s, std::size_t keep_bytes) {
  if (s.capacity() > keep_bytes) std::string().swap(s);
}

// What a string holds on the heap (nothing while its characters fit in the string itself).
std::size_t heap_bytes(const std::string& s) noexcept {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

}  // namespace

void pending_table::release_idle(std::size_t keep_slots, std::size_t keep_bytes) {
  queued_.release_idle(keep_slots, [keep_bytes](queued_request& q) {
    release_excess(q.frame, keep_bytes);
    release_excess(q.watch.path, keep_bytes);
  });
  sent_.release_idle(keep_slots, [keep_bytes](sent_request& s) { release_excess(s.watch.path, keep_bytes); });
}

std::size_t pending_table::retained_bytes() const noexcept {
  std::size_t bytes = queued_.slot_count() * sizeof(queued_request) + sent_.slot_count() * sizeof(sent_request);
  queued_.for_each_slot([&](const queued_request& q) { bytes += heap_bytes(q.frame) + heap_bytes(q.watch.path); });
  sent_.for_each_slot([&](const sent_request& s) { bytes += heap_bytes(s.watch.path); });
  return bytes;
}

}  // namespace zkwire::proto::session_detail
