// blocking_election: a zkwire::recipes::election living on the blocking client's loop thread, each call waiting for
// its result there.

#include "zkwire/recipes/blocking_election.hpp"

#include <utility>

#include "loop_bridge.hpp"

namespace zkwire::recipes {
namespace {

void throw_if(std::error_code ec, const char* operation, const std::string& path) {
  if (ec) detail::throw_lock_error(ec, operation, path);
}

}  // namespace

blocking_election::blocking_election(blocking_client& c, std::string path, election_options options)
    : path_(std::move(path)), bridge_(std::make_unique<detail::loop_bridge>(c)) {
  election_ =
      bridge_->run([&] { return std::make_unique<election>(bridge_->async_client(), path_, std::move(options)); });
}

blocking_election::~blocking_election() {
  // Destroyed on the loop thread, where it leaves the election in the background.
  bridge_->post([e = std::move(election_)]() mutable { e.reset(); });
}

void blocking_election::join() {
  throw_if(*bridge_->wait([this](auto handler) { election_->async_join(std::move(handler)); }), "join", path_);
}

void blocking_election::await_leadership() { (void)await_until(std::nullopt); }

bool blocking_election::await_until(std::optional<std::chrono::steady_clock::time_point> deadline) {
  bridge_->check_thread();
  const std::error_code ec = bridge_->timed(deadline, [this](std::chrono::milliseconds timeout, auto handler) {
    election_->async_await_leadership(timeout, std::move(handler));
  });
  if (ec == lock_errc::timeout) return false;
  throw_if(ec, "await leadership", path_);
  return true;
}

void blocking_election::relinquish() {
  const auto ec = bridge_->wait([this](auto handler) { election_->async_relinquish(std::move(handler)); },
                                bridge_->async_client().session_timeout());
  // Not confirmed in time: the delete and the re-join go on in the background.
  if (ec) throw_if(*ec, "relinquish", path_);
}

void blocking_election::leave() noexcept {
  try {
    (void)bridge_->wait([this](auto handler) { election_->async_leave(std::move(handler)); },
                        bridge_->async_client().session_timeout());
  } catch (...) {  // NOLINT(bugprone-empty-catch): leave cannot report; the election's own cleanup goes on
  }
}

election_state blocking_election::state() const {
  return bridge_->run([this] { return election_->state(); });
}

std::int64_t blocking_election::fencing_token() const {
  return bridge_->run([this] { return election_->fencing_token(); });
}

std::string blocking_election::node_path() const {
  return bridge_->run([this] { return election_->node_path(); });
}

std::vector<participant> blocking_election::participants() const {
  auto result = std::make_shared<std::vector<participant>>();
  const auto ec = bridge_->wait([this, result](auto handler) {
    election_->async_participants(
        [result, handler = std::move(handler)](std::error_code e, std::vector<participant> list) mutable {
          *result = std::move(list);
          handler(e);
        });
  });
  throw_if(*ec, "participants", path_);
  return std::move(*result);
}

std::shared_ptr<const lock_metrics> blocking_election::metrics() const {
  return bridge_->run([this] { return election_->metrics(); });
}

void blocking_election::set_listener(leadership_listener listener) {
  bridge_->run([&] { election_->set_listener(std::move(listener)); });
}

}  // namespace zkwire::recipes
