// The simulated ZooKeeper service: a standalone server, or an ensemble whose leader orders the writes and whose
// members apply them after a seeded lag (ensemble.hpp).

#include "ensemble.hpp"

#include <algorithm>

namespace zkwire::sim {

ensemble::ensemble(const ensemble_config& config)
    : config_(config),
      backlog_(config.members),
      down_until_(config.members, sim_time{-1}),
      last_due_(config.members, sim_time{0}),
      next_container_check_(config.server.container_check_interval),
      random_(config.server.seed ^ 0x2545f4914f6cdd1dULL) {
  for (std::size_t m = 0; m < std::max<std::size_t>(config.members, 1); ++m) {
    members_.push_back(std::make_unique<server>(config.server));
    if (config.members > 1) members_.back()->join(*this, m);
  }
  backlog_.resize(members_.size());
  down_until_.resize(members_.size(), sim_time{-1});
  last_due_.resize(members_.size(), sim_time{0});
}

connection_id ensemble::open_connection(std::size_t member) {
  const std::size_t m = member % members_.size();
  const connection_id id = next_connection_++;
  connections_.emplace(id, std::pair{m, members_[m]->open_connection()});
  return id;
}

void ensemble::receive(connection_id c, std::string_view bytes, sim_time now) {
  const auto it = connections_.find(c);
  if (it == connections_.end()) return;
  now_ = now;
  members_[it->second.first]->receive(it->second.second, bytes, now);
}

std::string ensemble::take_output(connection_id c) {
  const auto it = connections_.find(c);
  return it == connections_.end() ? std::string{} : members_[it->second.first]->take_output(it->second.second);
}

bool ensemble::is_closed(connection_id c) const {
  const auto it = connections_.find(c);
  return it == connections_.end() || members_[it->second.first]->is_closed(it->second.second);
}

void ensemble::close_connection(connection_id c, sim_time now) {
  const auto it = connections_.find(c);
  if (it == connections_.end()) return;
  members_[it->second.first]->close_connection(it->second.second, now);
  connections_.erase(it);
}

void ensemble::forward(txn t) {
  // The leader checks the session as it orders a request: one whose session it has expired (the member that sent
  // it may not have applied the expiry yet) becomes an error transaction, which still takes a zxid.
  if (t.what == txn::kind::request && !sessions_.contains(t.session)) t.session_gone = true;
  if (t.what == txn::kind::create_session) sessions_[t.session] = {t.timeout, now_};
  if (t.what == txn::kind::close_session) sessions_.erase(t.session);
  order(t);
}

// The leader orders a transaction: every member gets it, due after its lag (the leader's own is due at once).
void ensemble::order(const txn& t) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    const auto spread = static_cast<std::uint64_t>(std::max(config_.max_lag - config_.min_lag, sim_time{0}).count());
    const auto lag =
        m == 0 ? sim_time{0} : config_.min_lag + sim_time{static_cast<sim_time::rep>(random_() % (spread + 1))};
    last_due_[m] = std::max(last_due_[m], now_ + lag);  // in order: a member applies the log as it was ordered
    backlog_[m].push_back({t, last_due_[m]});
  }
}

void ensemble::touch(std::int64_t session, sim_time now) {
  if (const auto s = sessions_.find(session); s != sessions_.end()) s->second.last_heard = now;
}

void ensemble::moved(std::int64_t session, std::size_t member) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (m != member) members_[m]->disconnect_session(session);
  }
}

void ensemble::tick(sim_time now) {
  now_ = now;
  if (standalone()) {
    members_.front()->tick(now);
    return;
  }
  if (leader_restarting_ && !down(0, now)) {
    // A new leader gives every session a full timeout from the moment it leads.
    leader_restarting_ = false;
    for (auto& [id, s] : sessions_) s.last_heard = now;
  }
  for (std::size_t m = 0; m < members_.size(); ++m) {
    // A member whose leader is down (or which is down itself) applies nothing meanwhile.
    while (!down(m, now) && !down(0, now) && !backlog_[m].empty() && backlog_[m].front().due <= now) {
      const txn t = std::move(backlog_[m].front().t);
      backlog_[m].pop_front();
      members_[m]->apply(t, now);  // may order more (requests queued behind it at its connection)
    }
  }
  if (down(0, now)) return;
  std::vector<std::int64_t> expired;
  for (const auto& [id, s] : sessions_) {
    if (now >= tick_after(s.last_heard + s.timeout, config_.server.tick_time)) expired.push_back(id);
  }
  for (const auto id : expired) expire_session(id, now);
  if (now >= next_container_check_) {
    next_container_check_ = now + config_.server.container_check_interval;
    for (const auto& path : tree().reapable_containers()) {
      txn t;
      t.what = txn::kind::reap;
      t.payload = path;
      t.at = now;
      order(t);
    }
  }
}

std::optional<sim_time> ensemble::session_expiry(std::int64_t session) const {
  if (standalone()) return members_.front()->session_expiry(session);
  const auto s = sessions_.find(session);
  if (s == sessions_.end()) return std::nullopt;
  return s->second.last_heard + s->second.timeout;
}

sim_time ensemble::next_deadline() const {
  if (standalone()) return members_.front()->next_deadline();
  if (down(0, now_)) return down_until_[0];  // nothing is applied, expired or reaped without a leader
  sim_time next = next_container_check_;
  for (const auto& [id, s] : sessions_)
    next = std::min(next, tick_after(s.last_heard + s.timeout, config_.server.tick_time));
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (backlog_[m].empty()) continue;
    next = std::min(next, std::max({backlog_[m].front().due, down_until_[m], down_until_[0]}));
  }
  if (leader_restarting_) next = std::min(next, down_until_[0]);
  return std::max(next, now_);
}

void ensemble::crash(std::size_t member, sim_time now, sim_time until) {
  now_ = now;
  if (standalone()) return;
  down_until_.at(member) = until;
  if (member == 0) leader_restarting_ = true;
}

void ensemble::expire_session(std::int64_t session, sim_time now) {
  now_ = now;
  if (standalone()) {
    members_.front()->expire_session(session, now);
    return;
  }
  if (sessions_.erase(session) == 0) return;
  txn t;
  t.what = txn::kind::close_session;
  t.session = session;
  t.at = now;
  order(t);
}

}  // namespace zkwire::sim
