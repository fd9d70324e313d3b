#pragma once
// A recorded history of what clients asked and were told, for the guarantee checks (checker.hpp,
// docs/testing.md#guarantees): each operation on a register path with its invocation and completion on one logical
// clock shared by every client of the run (and the real or virtual time beside it, for messages), the zxid its reply
// carried, the watch events each client was given, and the holds of locks and semaphores.
//
// Plain values, no dependency on zkwire: the checks judge histories built by hand in the unit tests exactly as
// those recorded from real clients (client_recording.hpp). The recorder is not thread-safe: every client of a run
// records from one thread (the real ensemble's loop thread, the simulation's driver).

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace zkwire::history {

// The order of events in a run: every invocation, completion, watch event and hold boundary takes the next value,
// so two events never share one and "A completed before B was invoked" is `a.completed < b.invoked`.
using logical_time = std::uint64_t;
// The completion of an operation with no answer: it may take effect at any time after its invocation, or never.
inline constexpr logical_time never = std::numeric_limits<logical_time>::max();

enum class op_kind : std::uint8_t { create, remove, set, get };

// How an operation ended.
enum class outcome : std::uint8_t {
  ok,       // a write applied, a read answered
  failed,   // the server refused it (`failure` says why): a write changed nothing
  unknown,  // no answer: a connection loss, a deadline, the session's end, or still pending at the end of the run.
            // A write may have been applied, at any time after its invocation, or never
};

enum class failure : std::uint8_t { none, no_node, node_exists, bad_version, other };

struct reply {
  outcome result = outcome::unknown;
  failure why = failure::none;
  // Ended by the client for this request alone (its own deadline, a cancellation): such completions may overtake
  // earlier requests', which the order check allows.
  bool client_side = false;
  // The zxid of the reply when the API shows it: a read's reply header, a set's new mzxid, a create's czxid; 0 when
  // unknown (a delete's, a failed request's).
  std::int64_t zxid = 0;
  // get (ok): the data and stat read. set (ok): the new version and mzxid. create (ok): version 0, its czxid.
  std::string value;
  std::int32_t version = -1;
  std::int64_t mzxid = 0;
  std::int64_t czxid = 0;
};

struct operation {
  std::size_t id = 0;  // its index in history::ops
  std::size_t client = 0;
  std::int64_t session = 0;  // the client's session when it was invoked (0 before the first)
  op_kind kind = op_kind::get;
  std::string path;
  std::string value;                   // create, set: the data written (unique in the run)
  std::int32_t expected_version = -1;  // set, remove: the version the request names (-1: any)
  bool watch = false;                  // get: also sets a data watch
  logical_time invoked = 0;
  logical_time completed = never;
  double invoked_s = 0;  // real (or virtual) seconds since the run began, for messages
  double completed_s = 0;
  reply out;

  [[nodiscard]] bool is_write() const noexcept { return kind != op_kind::get; }
  [[nodiscard]] bool ok() const noexcept { return out.result == outcome::ok; }
};

enum class event_kind : std::uint8_t {
  data_changed,
  deleted,
  created,
  other,  // a type a data watch never sees
  ended,  // the final delivery: the session ended, the watch was removed, the client closed
};

// A watch event handed to a client, for the watch its get `registration` set.
struct watch_event {
  std::size_t registration = 0;
  std::size_t client = 0;
  event_kind kind = event_kind::other;
  std::string path;
  logical_time at = 0;
  double at_s = 0;
};

// A hold of a lock (capacity 1) or of leases of a semaphore, from its grant until the holder could no longer count
// on it (released, uncertain, lost), as its owner saw it.
struct hold {
  std::string resource;  // the lock directory or the semaphore's path
  std::size_t capacity = 1;
  std::size_t holder = 0;  // which lock or semaphore object
  std::size_t leases = 1;
  std::int64_t token = 0;  // the fencing token (the czxid of the node it was granted on)
  logical_time granted = 0;
  logical_time ended = never;
  double granted_s = 0;
  double ended_s = 0;
};

struct record {
  std::vector<operation> ops;
  std::vector<watch_event> events;
  std::vector<hold> holds;
};

// Builds a record, stamping each event with the next logical time and with `seconds()` (real or virtual time).
class recorder {
 public:
  explicit recorder(std::function<double()> seconds) : seconds_(std::move(seconds)) {}

  // Records the invocation of `op` (its id and times are set here); returns its id.
  std::size_t invoke(operation op);
  // Records its completion with `r` (once; a second completion of the same operation is recorded as a violation by
  // the order check: `twice` counts them).
  void complete(std::size_t id, reply r);
  void event(watch_event e);
  // A hold begins; returns its index for end_hold.
  std::size_t begin_hold(hold h);
  void end_hold(std::size_t index);

  [[nodiscard]] const operation& op(std::size_t id) const { return record_.ops.at(id); }
  [[nodiscard]] const record& result() const noexcept { return record_; }
  [[nodiscard]] std::size_t completed_twice() const noexcept { return twice_; }
  [[nodiscard]] std::size_t pending() const noexcept { return pending_; }

 private:
  std::function<double()> seconds_;
  record record_;
  logical_time next_ = 1;
  std::size_t twice_ = 0;
  std::size_t pending_ = 0;
};

// One line naming an operation, its outcome and its times, for violation messages.
[[nodiscard]] std::string describe(const operation& op);
[[nodiscard]] std::string describe(const watch_event& e);
[[nodiscard]] std::string describe(const hold& h);
[[nodiscard]] const char* name(op_kind kind) noexcept;
[[nodiscard]] std::string hex(std::int64_t zxid);

}  // namespace zkwire::history
