// zkwire::recipes::election: the public object, the boundary functions of election.hpp, and async_participants.

#include "zkwire/recipes/election.hpp"

#include <string_view>
#include <unordered_map>
#include <utility>

#include "election_core.hpp"
#include "zkwire/recipes/contenders.hpp"

namespace zkwire::recipes {

election_options::election_options() = default;  // out of line: not an aggregate (election.hpp)

std::string_view election_state_name(election_state s) noexcept {
  switch (s) {
    case election_state::idle:
      return "idle";
    case election_state::candidate:
      return "candidate";
    case election_state::leader:
      break;
  }
  return "leader";
}

std::string_view leadership_change_name(leadership_change c) noexcept {
  return c == leadership_change::gained ? "gained" : "lost";
}

namespace detail {

election_ptr make_election(client& c, std::string path, election_options options) {
  auto e = std::make_shared<election_core>(c, std::move(path), std::move(options));
  e->attach();
  return e;
}
void abandon_election(election_core& e) noexcept { e.abandon(); }
void close_election(election_core& e) noexcept { e.close(); }
asio::any_io_executor executor_of(const election_core& e) { return e.executor(); }

std::uint64_t start_join(const election_ptr& e, completion_ptr<> done) { return e->start_join(std::move(done)); }
void cancel_join(const election_weak_ptr& e, std::uint64_t id) {
  if (auto p = e.lock()) p->cancel_join(id);
}
std::uint64_t start_await_leadership(const election_ptr& e, std::chrono::milliseconds timeout, completion_ptr<> done) {
  return e->start_await(timeout, std::move(done));
}
void cancel_await_leadership(const election_weak_ptr& e, std::uint64_t id) {
  if (auto p = e.lock()) p->cancel_await(id);
}
std::uint64_t start_relinquish(const election_ptr& e, completion_ptr<> done) {
  return e->start_relinquish(std::move(done));
}
std::uint64_t start_leave(const election_ptr& e, completion_ptr<> done) { return e->start_leave(std::move(done)); }
void cancel_waiting(const election_weak_ptr& e, std::uint64_t id) {
  if (auto p = e.lock()) p->cancel_waiting(id);
}
std::uint64_t start_election_wait_lost(const election_ptr& e, completion_ptr<> done) {
  return e->start_wait_lost(std::move(done));
}
void cancel_election_wait_lost(const election_weak_ptr& e, std::uint64_t id) {
  if (auto p = e.lock()) p->cancel_wait_lost(id);
}
void start_election_guarded_multi(const election_ptr& e, std::vector<multi_op> ops,
                                  completion_ptr<std::vector<op_result>> done) {
  e->start_guarded_multi(std::move(ops), std::move(done));
}

election_state state_of(const election_core& e) noexcept { return e.state(); }
std::int64_t fencing_token_of(const election_core& e) noexcept { return e.fencing_token(); }
std::string node_path_of(const election_core& e) { return e.node_path(); }
std::int64_t session_of(const election_core& e) noexcept { return e.session_id(); }
const std::string& path_of(const election_core& e) noexcept { return e.path(); }
const std::string& id_of(const election_core& e) noexcept { return e.id(); }
election_naming naming_of(const election_core& e) noexcept { return e.naming(); }
std::uint64_t rejoins_of(const election_core& e) noexcept { return e.rejoins(); }
std::error_code last_error_of(const election_core& e) noexcept { return e.last_error(); }
std::shared_ptr<const lock_metrics> metrics_of(const election_core& e) noexcept { return e.metrics(); }
client& client_of(const election_core& e) noexcept { return e.target(); }
void set_leadership_listener(election_core& e, leadership_listener listener) { e.set_listener(std::move(listener)); }
asio::cancellation_slot lost_slot_of(election_core& e) noexcept { return e.lost_slot(); }

namespace {

// The participants of a contenders listing (lock order, foreign siblings last), as election_view judges them.
std::vector<participant> participants_of(std::vector<contender> listed) {
  std::vector<std::string> names;
  names.reserve(listed.size());
  for (const auto& c : listed) names.push_back(c.node);
  const election_view view = view_election(names);
  std::unordered_map<std::string_view, std::size_t> place;  // child name -> index in view.order
  for (std::size_t i = 0; i < view.order.size(); ++i) place.emplace(view.order[i].name, i);
  std::vector<participant> out(view.order.size());
  for (auto& c : listed) {
    const auto at = place.find(c.node);
    if (at == place.end()) continue;  // no participant (a foreign sibling)
    participant& p = out[at->second];
    p.naming = election_naming_of(c.node);
    p.id = std::move(c.data);
    p.node = std::move(c.node);
    p.path = std::move(c.path);
    p.sequence = c.sequence;
    p.family = c.family;
    p.session = c.session;
    p.czxid = c.czxid;
    p.ctime = c.ctime;
    p.leader = view.leader == at->second;
  }
  for (const std::size_t i : view.also_leading) out.at(i).also_leading = true;
  return out;
}

}  // namespace

void start_participants(client& c, std::string path, completion_ptr<std::vector<participant>> done) {
  start_contenders(c, std::move(path),
                   make_completion<std::vector<contender>>(
                       [done = std::move(done)](std::error_code ec, std::vector<contender> listed) mutable {
                         if (ec) {
                           complete(std::move(done), ec, {});
                           return;
                         }
                         complete(std::move(done), {}, participants_of(std::move(listed)));
                       },
                       c.get_executor()));
}

}  // namespace detail

election::election(client& c, std::string path, election_options options)
    : core_(detail::make_election(c, std::move(path), std::move(options))) {}

election::~election() {
  if (core_) detail::abandon_election(*core_);
}

}  // namespace zkwire::recipes
