#pragma once
// The simulated ZooKeeper service the network talks to: one standalone server, or an ensemble of members (member 0
// the leader) each with its own applied view of the tree.
//
// Ensemble mode, what it models: writes (and sync, closeSession, session creation) are forwarded to the leader,
// which orders them (one log; zxids follow from it); each member applies the log in order after a seeded lag (the
// leader at once), and the member the client sent a request to answers it when it applies it. Reads are answered
// from the member's own, possibly stale, view; a sync is a log entry, so its reply comes once the member has
// applied everything the leader had ordered before it. Watches fire at the client's member when that member
// applies the change. Sessions are global: the leader keeps their deadlines (every member reports what it hears),
// expires them with a closeSession transaction applied in order, and decides whether a session may resume at a
// member; a member whose applied zxid is behind the client's last zxid closes the connection without a reply (the
// client tries another); a session resumed at one member has its connection at any other closed. A member can
// crash: its connections reset, it applies nothing until it restarts, then catches up. A leader crash makes the
// whole ensemble unavailable (an election) and restarts every session's deadline, as a new leader does.
//
// Connection ids are the ensemble's own (unique across members). Thread safety: none; one thread.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "server.hpp"

namespace zkwire::sim {

struct ensemble_config {
  std::size_t members = 1;  // 1: a standalone server, exactly the server model alone
  sim_time min_lag{0};      // a follower applies a transaction min_lag..max_lag after the leader ordered it
  sim_time max_lag{0};
  server_config server;  // for every member
};

class ensemble final : private replication {
 public:
  explicit ensemble(const ensemble_config& config);
  ensemble(const ensemble&) = delete;
  ensemble& operator=(const ensemble&) = delete;
  ensemble(ensemble&&) = delete;
  ensemble& operator=(ensemble&&) = delete;
  ~ensemble() = default;

  [[nodiscard]] std::size_t members() const noexcept { return members_.size(); }
  [[nodiscard]] bool standalone() const noexcept { return members_.size() == 1; }

  // The server byte interface (server.hpp), per connection; a connection belongs to the member it was opened at.
  connection_id open_connection(std::size_t member);
  void receive(connection_id c, std::string_view bytes, sim_time now);
  std::string take_output(connection_id c);
  [[nodiscard]] bool is_closed(connection_id c) const;
  void close_connection(connection_id c, sim_time now);
  void tick(sim_time now);
  [[nodiscard]] sim_time next_deadline() const;

  // Faults. A crashed member applies nothing until `until` (the network resets its connections and refuses new
  // ones); the leader's crash stops the whole ensemble.
  void crash(std::size_t member, sim_time now, sim_time until);
  void expire_session(std::int64_t session, sim_time now);
  // The "ext" authentication provider is down at every member until `until` (server::set_auth_outage).
  void auth_outage(sim_time until) {
    for (auto& m : members_) m->set_auth_outage(until);
  }

  // The earliest moment the service may expire `session` if it hears nothing more from it (the leader's deadline,
  // as server::session_expiry; a leader that is down expires nothing, and restarts every deadline when it is back);
  // empty if the session is not alive.
  [[nodiscard]] std::optional<sim_time> session_expiry(std::int64_t session) const;
  // The leader's tree: what the ensemble has committed (the oracle's "backed by the server").
  [[nodiscard]] const data_tree& tree() const noexcept { return members_.front()->tree(); }
  [[nodiscard]] const server& member(std::size_t m) const { return *members_.at(m); }

 private:
  struct session_deadline {
    sim_time timeout{0};
    sim_time last_heard{0};
  };
  struct entry {
    txn t;
    sim_time due{0};
  };

  void forward(txn t) override;
  [[nodiscard]] bool session_alive(std::int64_t session) const override { return sessions_.contains(session); }
  void touch(std::int64_t session, sim_time now) override;
  void moved(std::int64_t session, std::size_t member) override;
  [[nodiscard]] bool down(std::size_t member, sim_time now) const { return now < down_until_.at(member); }
  void order(const txn& t);

  ensemble_config config_;
  std::vector<std::unique_ptr<server>> members_;
  std::vector<std::deque<entry>> backlog_;  // per member: ordered, not yet applied
  std::vector<sim_time> down_until_;
  std::vector<sim_time> last_due_;
  std::map<connection_id, std::pair<std::size_t, connection_id>> connections_;  // ours -> (member, member's id)
  std::map<std::int64_t, session_deadline> sessions_;                           // the leader's table
  connection_id next_connection_ = 1;
  sim_time now_{0};
  sim_time next_container_check_{0};
  bool leader_restarting_ = false;
  std::mt19937_64 random_;
};

}  // namespace zkwire::sim
