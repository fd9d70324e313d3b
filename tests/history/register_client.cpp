#include "register_client.hpp"

#include <algorithm>
#include <utility>

#include "zkwire/client/with_timeout.hpp"

namespace zkwire::history {
namespace {

// get_result / stat / create_result to the reply's fields.
void fill(reply& out, const get_result& r) {
  out.value = r.data;
  out.version = r.stat.version;
  out.mzxid = r.stat.mzxid;
  out.czxid = r.stat.czxid;
  out.zxid = r.zxid;
}
void fill(reply& out, const zkwire::stat& s) {
  out.version = s.version;
  out.mzxid = s.mzxid;
  out.czxid = s.czxid;
  out.zxid = s.mzxid;
}

}  // namespace

reply reply_of(std::error_code ec) {
  reply out;
  if (!ec) {
    out.result = outcome::ok;
  } else if (ec == server_error::no_node || ec == server_error::node_exists || ec == server_error::bad_version) {
    out.result = outcome::failed;
    out.why = ec == server_error::no_node       ? failure::no_node
              : ec == server_error::node_exists ? failure::node_exists
                                                : failure::bad_version;
  } else if (ec.category() == proto::server_category()) {
    out.result = outcome::failed;  // refused for a reason the model does not know (NOAUTH, ...): nothing changed
    out.why = failure::other;
  } else {
    // A connection loss, the session's end, or the client's own deadline or cancellation: not answered.
    out.client_side = ec == client_error::operation_timeout || ec == client_error::cancelled;
  }
  return out;
}

register_client::register_client(zkwire::client& c, std::size_t index, recorder& rec, std::uint64_t seed,
                                 register_options options)
    : client_(c),
      index_(index),
      recorder_(rec),
      random_(seed),
      options_(std::move(options)),
      versions_(options_.paths.size(), -1),
      timer_busy_(std::max<std::size_t>(options_.in_flight, 1), false) {
  for (std::size_t slot = 0; slot < timer_busy_.size(); ++slot) {
    timers_.push_back(
        client_.clock()->make_wakeup(client_.get_executor(), [this, slot, alive = std::weak_ptr<int>(alive_)] {
          if (alive.expired()) return;
          timer_busy_[slot] = false;
          if (phase_ == phase::running) {
            send(slot);
          } else if (phase_ == phase::closing && slot == 0) {
            close_reads();
          }
        }));
  }
}

register_client::~register_client() {
  alive_.reset();
  for (auto& t : timers_) t->cancel();
}

void register_client::start() {
  phase_ = phase::running;
  for (std::size_t slot = 0; slot < timers_.size(); ++slot) send(slot);
}

void register_client::stop() {
  if (phase_ != phase::running) return;
  phase_ = phase::stopping;
  for (std::size_t slot = 0; slot < timers_.size(); ++slot) {
    if (timer_busy_[slot]) {
      timers_[slot]->cancel();
      timer_busy_[slot] = false;
    }
  }
  if (in_flight_ == 0) close_reads();
}

std::chrono::milliseconds register_client::pause() {
  const auto most = static_cast<std::uint64_t>(options_.max_pause.count());
  return std::chrono::milliseconds(1 + static_cast<std::int64_t>(random_() % (most + 1)));
}

std::size_t register_client::invoke(op_kind kind, const std::string& path, std::string value, std::int32_t version,
                                    bool watch) {
  operation op;
  op.client = index_;
  op.session = client_.session_id();
  op.kind = kind;
  op.path = path;
  op.value = std::move(value);
  op.expected_version = version;
  op.watch = watch;
  ++in_flight_;
  ++sent_;
  return recorder_.invoke(std::move(op));
}

void register_client::send(std::size_t slot) {
  if (phase_ != phase::running) return;
  if (renewing_) {  // requests would fail at once until the new session is up: wait a little
    timer_busy_[slot] = true;
    timers_[slot]->expires_at(client_.clock()->now() + pause());
    return;
  }
  const std::size_t p = random_() % options_.paths.size();
  const std::string& path = options_.paths[p];
  const auto roll = random_() % 100;
  const bool deadline = options_.short_deadline.count() > 0 && random_() % 10 == 0;
  const std::string value = "c" + std::to_string(index_) + "-" + std::to_string(sent_);
  // The version a conditional write names: the one last seen, sometimes any, sometimes an older one.
  const auto version_roll = random_() % 100;
  const std::int32_t version = version_roll < 15                       ? -1
                               : version_roll < 30 && versions_[p] > 0 ? versions_[p] - 1
                                                                       : versions_[p];
  const auto done = [this, slot, alive = std::weak_ptr<int>(alive_)](std::size_t id, std::error_code ec, reply out) {
    if (alive.expired()) return;
    completed(id, ec, std::move(out));
    if (phase_ == phase::running) {
      timer_busy_[slot] = true;
      timers_[slot]->expires_at(client_.clock()->now() + (ec ? pause() + std::chrono::milliseconds(5) : pause()));
    } else if (phase_ == phase::stopping && in_flight_ == 0) {
      close_reads();
    }
  };
  auto on_get = [this, p, done](std::size_t id) {
    return [this, p, id, done](std::error_code ec, const get_result& r) {
      reply out = reply_of(ec);
      if (!ec) {
        fill(out, r);
        versions_[p] = r.stat.version;
      } else if (ec == server_error::no_node) {
        versions_[p] = -1;
      }
      done(id, ec, std::move(out));
    };
  };
  auto on_stat = [this, p, done](std::size_t id) {
    return [this, p, id, done](std::error_code ec, const zkwire::stat& s) {
      reply out = reply_of(ec);
      if (!ec) {
        fill(out, s);
        versions_[p] = s.version;
      }
      done(id, ec, std::move(out));
    };
  };
  if (roll < 45) {
    const bool watch = random_() % 3 == 0;
    const std::size_t id = invoke(op_kind::get, path, "", -1, watch);
    if (!watch) {
      deadline ? client_.async_get(path, with_timeout(options_.short_deadline, on_get(id)))
               : client_.async_get(path, on_get(id));
      return;
    }
    auto on_event = [this, id, path, alive = std::weak_ptr<int>(alive_)](const zkwire::watch_event& e) {
      if (alive.expired()) return;
      watch_event rec;
      rec.registration = id;
      rec.client = index_;
      rec.path = e.path;
      rec.kind = e.error                                    ? event_kind::ended
                 : e.type == event_type::node_data_changed  ? event_kind::data_changed
                 : e.type == event_type::node_deleted       ? event_kind::deleted
                 : e.type == event_type::node_created       ? event_kind::created
                 : e.type == event_type::data_watch_removed ? event_kind::ended
                                                            : event_kind::other;
      recorder_.event(std::move(rec));
    };
    deadline ? client_.async_get(path, on_event, with_timeout(options_.short_deadline, on_get(id)))
             : client_.async_get(path, on_event, on_get(id));
  } else if (roll < 75) {
    const std::size_t id = invoke(op_kind::set, path, value, version, false);
    deadline ? client_.async_set(path, value, version, with_timeout(options_.short_deadline, on_stat(id)))
             : client_.async_set(path, value, version, on_stat(id));
  } else if (roll < 88) {
    const std::size_t id = invoke(op_kind::create, path, value, -1, false);
    auto on_create = [this, p, id, done](std::error_code ec, const create_result& r) {
      reply out = reply_of(ec);
      if (!ec) {
        fill(out, r.stat);
        versions_[p] = 0;
      }
      done(id, ec, std::move(out));
    };
    deadline ? client_.async_create(path, value, with_timeout(options_.short_deadline, on_create))
             : client_.async_create(path, value, on_create);
  } else {
    const std::size_t id = invoke(op_kind::remove, path, "", version, false);
    auto on_remove = [this, p, id, done](std::error_code ec) {
      if (!ec) versions_[p] = -1;
      done(id, ec, reply_of(ec));
    };
    deadline ? client_.async_remove(path, version, with_timeout(options_.short_deadline, on_remove))
             : client_.async_remove(path, version, on_remove);
  }
}

void register_client::completed(std::size_t id, std::error_code ec, reply out) {
  --in_flight_;
  recorder_.complete(id, std::move(out));
  renew_if_ended(ec);
}

void register_client::renew_if_ended(std::error_code ec) {
  if (renewing_ || ec != condition::session_ended || ec == client_error::closed) return;
  renewing_ = true;
  client_.async_new_session([this, alive = std::weak_ptr<int>(alive_)](std::error_code) {
    if (!alive.expired()) renewing_ = false;
  });
}

// After stop: a sync, then each path read once, in order; a failure (connection loss) tries again after a pause.
void register_client::close_reads() {
  phase_ = phase::closing;
  client_.async_sync(options_.paths.front(), [this, alive = std::weak_ptr<int>(alive_)](std::error_code ec) {
    if (alive.expired()) return;
    if (ec) {
      renew_if_ended(ec);
      timer_busy_[0] = true;
      timers_[0]->expires_at(client_.clock()->now() + pause() + std::chrono::milliseconds(50));
      return;
    }
    close_read(0);
  });
}

void register_client::close_read(std::size_t path) {
  if (path == options_.paths.size()) {
    phase_ = phase::finished;
    return;
  }
  const std::size_t id = invoke(op_kind::get, options_.paths[path], "", -1, false);
  client_.async_get(options_.paths[path],
                    [this, path, id, alive = std::weak_ptr<int>(alive_)](std::error_code ec, const get_result& r) {
                      if (alive.expired()) return;
                      reply out = reply_of(ec);
                      if (!ec) fill(out, r);
                      const bool answered = out.result != outcome::unknown;
                      completed(id, ec, std::move(out));
                      if (!answered) {
                        timer_busy_[0] = true;
                        timers_[0]->expires_at(client_.clock()->now() + pause() + std::chrono::milliseconds(50));
                        return;
                      }
                      close_read(path + 1);
                    });
}

}  // namespace zkwire::history
