#include "recipe_workload.hpp"

#include <algorithm>

#include "text.hpp"
#include "zkwire/recipes/lock_keeper.hpp"
#include "zkwire/recipes/multi_lock.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::sim {

struct recipe_workload::actor {
  enum class kind { semaphore, multi, plain, keeper };
  kind is = kind::plain;
  std::size_t index = 0;
  std::size_t process = 0;
  std::vector<std::string> order;  // the directories as given (multi: the caller's order)
  std::unique_ptr<recipes::semaphore> sem;
  std::unique_ptr<recipes::multi_lock> multi;
  std::unique_ptr<recipes::lock> plain;
  std::unique_ptr<recipes::lock_keeper> keeper;
  enum class phase { idle, acquiring, holding, releasing } now = phase::idle;
  std::unique_ptr<wakeup> timer;
  std::int32_t count = 1;          // the semaphore leases of the current acquire
  std::int64_t granted_token = 0;  // keeper: the token of its current grant
  sim_time release_at{0};          // when the current hold is to end
  bool lost_since_grant = false;   // keeper: its listener heard `lost` since that grant

  [[nodiscard]] recipes::lock_state state() const {
    switch (is) {
      case kind::semaphore:
        return sem->state();
      case kind::multi:
        return multi->state();
      case kind::keeper:
        return keeper->state();
      case kind::plain:
        break;
    }
    return plain->state();
  }
  [[nodiscard]] std::string name() const {
    static constexpr const char* names[] = {"sem", "multi", "lock", "keeper"};
    return cat(names[static_cast<std::size_t>(is)], index);
  }
};

recipe_workload::recipe_workload(world& w, std::uint64_t seed, recipe_workload_options options)
    : world_(w), ledger_(w), random_(seed ^ 0x27d4eb2f165667c5ULL), options_(std::move(options)) {
  for (std::size_t p = 0; p < w.processes(); ++p) {
    guids_.push_back(recipes::guid_source::seeded((seed << 8U) ^ (0x8ebc6af09c88c6e3ULL + p)));
    for (const auto is : {actor::kind::semaphore, actor::kind::multi, actor::kind::plain, actor::kind::keeper}) {
      auto a = std::make_unique<actor>();
      a->is = is;
      a->index = actors_.size();
      a->process = p;
      const bool even = p % 2 == 0;
      if (is == actor::kind::multi) a->order = even ? directories() : std::vector{options_.dir_b, options_.dir_a};
      if (is == actor::kind::plain) a->order = {even ? options_.dir_a : options_.dir_b};
      make(*a);
      actors_.push_back(std::move(a));
    }
  }
}

recipe_workload::~recipe_workload() {
  alive_.reset();
  pauser_.reset();
  for (auto& a : actors_) {
    a->timer.reset();
    a->sem.reset();
    a->multi.reset();
    a->plain.reset();
    a->keeper.reset();
  }
}

std::vector<std::string> recipe_workload::directories() const { return {options_.dir_a, options_.dir_b}; }

void recipe_workload::make(actor& a) {
  auto& c = world_.client(a.process);
  recipes::lock_options lo;
  lo.data = a.name();
  lo.guids = guids_[a.process];
  actor* self = &a;
  const auto release_on_loss = [this, self, alive = std::weak_ptr(alive_)](const recipes::lock_event& e) {
    if (alive.expired() || e.to != recipes::lock_state::lost || self->now != actor::phase::holding) return;
    schedule(*self, sim_time{0}, &recipe_workload::release);
  };
  switch (a.is) {
    case actor::kind::semaphore: {
      recipes::semaphore_options so;
      so.data = a.name();
      so.guids = guids_[a.process];
      a.sem = std::make_unique<recipes::semaphore>(c, options_.semaphore, options_.leases, std::move(so));
      a.sem->set_listener(release_on_loss);
      break;
    }
    case actor::kind::multi:
      a.multi = std::make_unique<recipes::multi_lock>(c, a.order, lo);
      a.multi->set_listener(release_on_loss);
      break;
    case actor::kind::plain:
      a.plain = std::make_unique<recipes::lock>(c, a.order.front(), std::move(lo));
      a.plain->set_listener(release_on_loss);
      break;
    case actor::kind::keeper:
      a.keeper = std::make_unique<recipes::lock_keeper>(c, options_.keeper, std::move(lo));
      a.keeper->set_listener([this, self, alive = std::weak_ptr(alive_)](const recipes::lock_event& e) {
        if (!alive.expired()) keeper_event(*self, e);
      });
      break;
  }
}

void recipe_workload::schedule(actor& a, sim_time delay, void (recipe_workload::*action)(actor&)) {
  actor* target = &a;
  a.timer = ledger_.after(a.process, delay, [this, target, action] { (this->*action)(*target); });
}

void recipe_workload::start() {
  ledger_.authenticate_all(alive_);
  for (auto& a : actors_)
    schedule(*a, sim_time{static_cast<sim_time::rep>(random_() % 200)}, &recipe_workload::acquire);
}

void recipe_workload::stop() { stopped_ = true; }

void recipe_workload::pause_keeper_holder(sim_time length) {
  if (stopped_) return;
  for (const auto& a : actors_) {
    // A holder with time left to mend the loss before its release.
    if (a->is == actor::kind::keeper && a->now == actor::phase::holding &&
        a->keeper->state() == recipes::lock_state::held && a->release_at > world_.now() + length + sim_time{1500}) {
      world_.pause(a->process, world_.now() + length);
      return;
    }
  }
  pauser_ = world_.clock().make_wakeup(world_.server_executor(), [this, length] { pause_keeper_holder(length); });
  pauser_->expires_at(world_.clock().now() + sim_time{100});
}

// A session that ended (expired, auth_failed) is replaced, as an application would; the keeper does it itself, and
// only one new session is started per ending.
void recipe_workload::renew_session(std::size_t process) {
  auto& c = world_.client(process);
  if (stopped_ || (c.state() != proto::session_state::expired && c.state() != proto::session_state::auth_failed)) {
    return;
  }
  world_.log().add(world_.now(), cat("process ", process, " starts a new session"));
  c.async_new_session([](std::error_code) {});
}

void recipe_workload::acquire(actor& a) {
  if (stopped_ || a.now != actor::phase::idle) return;
  static constexpr std::int64_t timeouts[] = {0, 300, 3000, -1};
  std::chrono::milliseconds timeout{timeouts[random_() % 4]};
  const std::uint64_t op = ledger_.begin_op();
  a.now = actor::phase::acquiring;
  a.count = a.is == actor::kind::semaphore && random_() % 3 == 0 ? options_.leases : 1;
  // Several leases are taken one at a time, each under the mutex: two such acquires can each hold a lease the other
  // needs while one keeps the mutex, waiting for a lease to come back (the simulation's seed 7 found it; the
  // layout is Curator's, which shares it). Without a time limit that wait never ends, so these acquires have one.
  if (a.count > 1 && timeout.count() < 0) timeout = std::chrono::milliseconds(3000);
  world_.log().add(world_.now(),
                   cat(a.name(), " acquire (timeout ", timeout.count(), " ms", a.count > 1 ? ", all leases" : "", ")"));
  actor* self = &a;
  auto done = [this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
    if (alive.expired() || !ledger_.end_op(op, "acquire")) return;
    acquired(*self, ec);
  };
  switch (a.is) {
    case actor::kind::semaphore:
      a.sem->async_acquire(a.count, timeout, std::move(done));
      break;
    case actor::kind::multi:
      a.multi->async_acquire(timeout, std::move(done));
      break;
    case actor::kind::plain:
      a.plain->async_acquire(timeout, std::move(done));
      break;
    case actor::kind::keeper:
      a.keeper->async_acquire(timeout, std::move(done));
      break;
  }
}

void recipe_workload::acquired(actor& a, std::error_code ec) {
  world_.log().add(world_.now(), cat(a.name(), " acquire -> ", ec ? ec.message() : "granted"));
  if (ec) {
    // All or none: a multi-lock that did not get every member holds none of them.
    if (a.is == actor::kind::multi) {
      for (const auto& dir : a.order) {
        const recipes::lock* m = a.multi->member(dir);
        if (m == nullptr) {
          ledger_.fail(cat(a.name(), " has no member lock on ", dir));
          continue;
        }
        const auto s = m->state();
        if (s == recipes::lock_state::held || s == recipes::lock_state::uncertain) {
          ledger_.fail(cat(a.name(), "'s acquire failed (", ec.message(), ") while its member on ", dir, " is ",
                           recipes::lock_state_name(s)));
        }
      }
    }
    if (ec == condition::session_ended) renew_session(a.process);
    a.now = actor::phase::idle;
    schedule(a, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &recipe_workload::acquire);
    return;
  }
  switch (a.is) {
    case actor::kind::semaphore:
      ++counts_.semaphore_grants;
      break;
    case actor::kind::multi:
      ++counts_.multi_grants;
      break;
    case actor::kind::plain:
      ++counts_.plain_grants;
      break;
    case actor::kind::keeper:
      ++counts_.keeper_grants;
      keeper_event(a, {recipes::lock_state::acquiring, recipes::lock_state::held, {}});
      break;
  }
  a.now = actor::phase::holding;
  // Keepers hold longer, so that faults meet them holding and they have losses to mend.
  const auto hold = a.is == actor::kind::keeper ? 1000 + random_() % 5000 : 10 + random_() % 600;
  a.release_at = world_.now() + sim_time{static_cast<sim_time::rep>(hold)};
  schedule(a, sim_time{static_cast<sim_time::rep>(hold)}, &recipe_workload::release);
}

// The keeper's events: `lost` before `held` again, and every grant's token newer than every earlier grant's on the
// directory. (The grant that completes async_acquire comes through here too, from acquired(), once.)
void recipe_workload::keeper_event(actor& a, const recipes::lock_event& e) {
  world_.log().add(world_.now(),
                   cat(a.name(), " keeper ", recipes::lock_state_name(e.from), " -> ", recipes::lock_state_name(e.to),
                       e.reason ? cat(" (", e.reason.message(), ")") : ""));
  if (e.to == recipes::lock_state::lost) a.lost_since_grant = true;
  if (e.to != recipes::lock_state::held || e.from == recipes::lock_state::uncertain) return;
  const std::int64_t token = a.keeper->fencing_token();
  if (token == a.granted_token) return;  // the same grant, heard twice (listener and completion)
  if (e.from == recipes::lock_state::lost) {
    if (!a.lost_since_grant) ledger_.fail(cat(a.name(), " held again without hearing lost"));
    ++counts_.keeper_regrants;
  }
  if (token <= keeper_token_) ledger_.fail(cat(a.name(), " granted token ", token, " after token ", keeper_token_));
  keeper_token_ = std::max(keeper_token_, token);
  a.granted_token = token;
  a.lost_since_grant = false;
}

void recipe_workload::release(actor& a) {
  if (a.now != actor::phase::holding) return;
  const std::uint64_t op = ledger_.begin_op();
  a.now = actor::phase::releasing;
  actor* self = &a;
  auto done = [this, self, op, alive = std::weak_ptr(alive_)](std::error_code ec) {
    if (alive.expired() || !ledger_.end_op(op, "release")) return;
    world_.log().add(world_.now(), cat(self->name(), " release -> ", ec ? ec.message() : "released"));
    self->now = actor::phase::idle;
    self->granted_token = 0;
    schedule(*self, sim_time{static_cast<sim_time::rep>(random_() % 400)}, &recipe_workload::acquire);
  };
  switch (a.is) {
    case actor::kind::semaphore:
      a.sem->async_release(std::move(done));
      break;
    case actor::kind::multi:
      a.multi->async_release(std::move(done));
      break;
    case actor::kind::plain:
      a.plain->async_release(std::move(done));
      break;
    case actor::kind::keeper:
      a.keeper->async_release(std::move(done));
      break;
  }
}

// Exclusive holders of one directory: plain locks, multi-lock members and keepers' locks.
void recipe_workload::check_exclusive(const std::string& directory) {
  std::size_t backed = 0;
  std::size_t held = 0;
  std::string holders;
  for (const auto& a : actors_) {
    const recipes::lock* l = nullptr;
    if (a->is == actor::kind::plain) l = a->plain.get();
    if (a->is == actor::kind::multi) l = a->multi->member(directory);
    if (a->is == actor::kind::keeper) l = &a->keeper->get_lock();
    if (l == nullptr || l->directory() != directory || l->state() != recipes::lock_state::held) continue;
    const znode* n = world_.zk().tree().find(l->node_path());
    const bool backs = n != nullptr && n->owner == l->session_id() && n->owner != 0;
    backed += backs ? 1 : 0;
    held += world_.paused(a->process) ? std::size_t{0} : std::size_t{1};
    holders += cat(" ", a->name(), backs ? "(backed " : "(not backed ", l->node_path(), ")");
  }
  if (backed > 1) ledger_.fail(cat("two holders of ", directory, " backed by the server:", holders));
  if (held > 1) ledger_.fail(cat("two lock objects on ", directory, " in state held:", holders));
}

void recipe_workload::check_semaphore() {
  std::size_t backed = 0;
  std::size_t held = 0;
  std::string holders;
  for (const auto& a : actors_) {
    if (a->is != actor::kind::semaphore || a->sem->state() != recipes::lock_state::held) continue;
    const auto leases = a->sem->lease_paths();
    const bool backs = std::all_of(leases.begin(), leases.end(), [&](const std::string& path) {
      const znode* n = world_.zk().tree().find(path);
      return n != nullptr && n->owner == a->sem->session_id() && n->owner != 0;
    });
    backed += backs ? leases.size() : 0;
    held += world_.paused(a->process) ? std::size_t{0} : leases.size();
    holders += cat(" ", a->name(), "(", leases.size(), backs ? " backed)" : " not backed)");
  }
  const auto limit = static_cast<std::size_t>(options_.leases);
  if (backed > limit) ledger_.fail(cat(backed, " leases backed by the server, of ", limit, ":", holders));
  if (held > limit) ledger_.fail(cat(held, " leases held by semaphore objects, of ", limit, ":", holders));
}

void recipe_workload::check() {
  check_semaphore();
  for (const auto& dir : {options_.dir_a, options_.dir_b, options_.keeper}) check_exclusive(dir);
  for (const auto& a : actors_) {
    if (a->is == actor::kind::multi && a->multi->state() == recipes::lock_state::held) {
      for (const auto& dir : a->order) {
        const recipes::lock* m = a->multi->member(dir);
        if (m == nullptr || m->state() != recipes::lock_state::held) {
          ledger_.fail(cat(a->name(), " is held while its member on ", dir, " is ",
                           m == nullptr ? "missing" : recipes::lock_state_name(m->state())));
        }
      }
    }
    if (a->is == actor::kind::keeper && a->keeper->state() == recipes::lock_state::held &&
        a->keeper->fencing_token() != a->granted_token) {
      ledger_.fail(cat(a->name(), " is held on token ", a->keeper->fencing_token(),
                       " it was never granted (its grant: ", a->granted_token, ")"));
    }
  }
}

bool recipe_workload::quiescent() const {
  return !ledger_.ops_open() &&
         std::all_of(actors_.begin(), actors_.end(), [](const auto& a) { return a->now == actor::phase::idle; });
}

bool recipe_workload::clean() const {
  for (const auto& dir : {options_.semaphore + "/leases", options_.semaphore + "/locks", options_.dir_a, options_.dir_b,
                          options_.keeper}) {
    if (!world_.zk().tree().children(dir).empty()) return false;
  }
  return ledger_.clients_and_servers_clean();
}

void recipe_workload::check_end() {
  for (const auto& dir : {options_.semaphore + "/leases", options_.semaphore + "/locks", options_.dir_a, options_.dir_b,
                          options_.keeper}) {
    std::string names;
    for (const auto& n : world_.zk().tree().children(dir)) names += cat(" ", n);
    if (!names.empty()) ledger_.fail(cat("orphan nodes in ", dir, ":", names));
  }
  ledger_.check_clients_and_servers_clean();
}

std::string recipe_workload::status() const {
  std::string out = ledger_.status(
      {options_.semaphore + "/leases", options_.semaphore + "/locks", options_.dir_a, options_.dir_b, options_.keeper});
  for (const auto& a : actors_) {
    out += cat(a->name(), ": ", recipes::lock_state_name(a->state()), " phase ", static_cast<int>(a->now), "\n");
  }
  return out;
}

}  // namespace zkwire::sim
