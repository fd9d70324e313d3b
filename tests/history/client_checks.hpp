#pragma once
// What ZooKeeper promises each client, checked on a recorded history (history.hpp). Each function returns the
// violations it found (every one counted, the first few described):
//
//   completion order   a client's requests complete in the order it sent them. Only completions the client makes
//                      itself for one request (its deadline, a cancellation: reply::client_side) may overtake.
//   monotonic reads    the zxids a client's replies carry never go back, across reconnects to another member and
//                      across its sessions (a new session carries the last zxid seen into its handshake).
//   read your writes   after a client's write to a path was applied, its later reads of that path (sent after the
//                      write completed, or after the write on the same session) show that write or a later state.
//   reads match writes a value read was written to that path by a write not refused, with the zxid and version that
//                      write got, not before that write was sent, and is the path's state at the read's reply zxid
//                      (no applied write of a known zxid falls between the value's mzxid and the reply's zxid).
//   watch before data  a client given a data watch by a read at zxid r sees no newer data before its event: until
//                      the event (or the watch's final delivery) it reads the same state of that path, writes nothing
//                      to it itself, and gets no reply whose zxid is at or past the first known change of the path
//                      after r. An event needs such a change, and a one-shot watch fires once.
//
// The checks take what the client API shows: a delete's zxid is not shown, so the "reads match writes" and "watch
// before data" checks bound states by the writes whose zxids are known (a delete between them is not seen).

#include <cstddef>
#include <string>
#include <vector>

#include "history.hpp"

namespace zkwire::history {

struct violation {
  std::string property;  // the name of the check
  std::string what;      // the operations or events involved, described
};

std::vector<violation> check_completion_order(const record& history);
std::vector<violation> check_monotonic_reads(const record& history);
std::vector<violation> check_read_your_writes(const record& history);
std::vector<violation> check_reads_match_writes(const record& history);
std::vector<violation> check_watch_before_data(const record& history);

}  // namespace zkwire::history
