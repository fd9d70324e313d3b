#pragma once
// Requests between submit() and completion: the queue of requests not yet written (holding their encoded frames,
// xid still unassigned) and the FIFO of written ones awaiting their replies in order (docs/protocol.md#ordering). Slots
// are reused, so steady traffic allocates nothing here beyond what the frames and watch paths carry.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "ring.hpp"
#include "watch_rules.hpp"
#include "zkwire/proto/opcodes.hpp"
#include "zkwire/proto/session/session.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::proto::session_detail {

// Who consumes the reply.
enum class origin : std::uint8_t { user, set_watches, close_session, watch_cleanup };

struct queued_request {
  request_id id = 0;
  op_code op = op_code::error;
  std::string frame;  // the encoded frame with xid 0, patched when written
  watch_intent watch;
  time_point deadline = time_point::max();  // completes with operation_timeout then (docs/protocol.md#deadlines)
};

struct sent_request {
  std::int32_t xid = 0;
  op_code op = op_code::error;
  request_id id = 0;  // 0 for internal requests
  origin from = origin::user;
  bool abandoned = false;  // cancelled after being written: its reply is consumed and dropped
  time_point send_time{};
  time_point deadline = time_point::max();  // user requests only; abandoned (timed out) then
  watch_intent watch;
};

class pending_table {
 public:
  ring<queued_request>& queued() noexcept { return queued_; }
  ring<sent_request>& sent() noexcept { return sent_; }
  [[nodiscard]] const ring<queued_request>& queued() const noexcept { return queued_; }
  [[nodiscard]] const ring<sent_request>& sent() const noexcept { return sent_; }

  // Appends a written request to the FIFO. `watch` is swapped with the slot's, so the caller gets back the slot's
  // old path buffer and steady traffic reuses it; internal requests (id 0, no deadline) pass none.
  void push_sent(std::int32_t xid, op_code op, request_id id, origin from, time_point send_time,
                 time_point deadline = time_point::max(), watch_intent* watch = nullptr);

  // Removes a queued request or marks a written one abandoned, returning its opcode; nullopt if `id` is not
  // pending.
  std::optional<op_code> cancel(request_id id) noexcept;
  // Completes every user request whose deadline is at or before `now`: a queued one is removed, a written one
  // marked abandoned (its late reply is consumed in order and dropped). Calls expired(id, op) for each, in
  // submission order, and returns the earliest deadline still pending (time_point::max() when none).
  template <class Expired>
  time_point expire(time_point now, Expired&& expired) {
    time_point earliest = time_point::max();
    for (std::size_t i = 0; i < sent_.size(); ++i) {
      sent_request& s = sent_[i];
      if (s.from != origin::user || s.abandoned || s.deadline == time_point::max()) continue;
      if (s.deadline <= now) {
        s.abandoned = true;
        expired(s.id, s.op);
      } else {
        earliest = std::min(earliest, s.deadline);
      }
    }
    for (std::size_t i = 0; i < queued_.size();) {
      if (queued_[i].deadline <= now) {
        const request_id id = queued_[i].id;
        const op_code op = queued_[i].op;
        queued_.erase(i);
        expired(id, op);
      } else {
        earliest = std::min(earliest, queued_[i].deadline);
        ++i;
      }
    }
    return earliest;
  }
  // Queued plus written user requests that are not abandoned.
  [[nodiscard]] std::size_t user_pending() const noexcept;
  // Gives back what a burst of requests made the table keep (ring::release_idle): an empty queue or FIFO larger than
  // `keep_slots` entirely, else the frames and paths its slots kept beyond `keep_bytes` each.
  void release_idle(std::size_t keep_slots, std::size_t keep_bytes);
  // Heap bytes the queue and the FIFO keep: their slots and what the slots' strings hold.
  [[nodiscard]] std::size_t retained_bytes() const noexcept;

 private:
  ring<queued_request> queued_;
  ring<sent_request> sent_;
};

}  // namespace zkwire::proto::session_detail
