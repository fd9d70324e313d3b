#pragma once
// One zkwire::client driven by a seeded random mix of requests on a few register paths, every request and watch
// event recorded (history.hpp) for the guarantee checks: gets (a third of them setting a data watch), sets naming the
// version last seen (or any, or a stale one), creates and deletes, a few requests in flight at once and a short pause
// after each completion. Values are unique in the run ("c<client>-<n>"), so a read names its write. A session that
// ended (expired, authentication failed) is followed by a new one (async_new_session), as an application would.
// After stop(), once nothing is in flight, it reads every path once more after a sync (retried until answered), so
// that the history ends with reads at least as new as every write: a watch whose event never came then shows.
//
// The same driver runs against a real ensemble (tests/faults/guarantees_test.cpp) and in the simulation
// (tests/sim/guarantee_workload.*): it takes its timers from the client's clock. Everything runs on the client's
// executor; the recorder is shared by every register_client of a run and must be used from one thread (the drivers
// of both tests run all their clients' executors on one thread). Destroy it before the client; callbacks the client
// still holds then do nothing.

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "history.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire::history {

struct register_options {
  std::vector<std::string> paths;           // the registers (their parent must exist)
  std::size_t in_flight = 2;                // requests outstanding at once
  std::chrono::milliseconds max_pause{20};  // after a completion, a seeded pause of 0 .. this before the next request
  // A seeded tenth of the requests get this deadline (zkwire::with_timeout; 0: none): a completion the client makes
  // itself, which may overtake earlier requests.
  std::chrono::milliseconds short_deadline{0};
};

// What a reply (or its absence) means for the history: ok, refused by the server, or unknown.
[[nodiscard]] reply reply_of(std::error_code ec);

class register_client {
 public:
  register_client(zkwire::client& c, std::size_t index, recorder& rec, std::uint64_t seed, register_options options);
  ~register_client();
  register_client(const register_client&) = delete;
  register_client& operator=(const register_client&) = delete;
  register_client(register_client&&) = delete;
  register_client& operator=(register_client&&) = delete;

  void start();
  // No new requests; once none is in flight, the closing reads.
  void stop();
  // The closing reads are done (after stop()).
  [[nodiscard]] bool finished() const noexcept { return phase_ == phase::finished; }
  [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_; }
  [[nodiscard]] std::size_t sent() const noexcept { return sent_; }

 private:
  enum class phase { idle, running, stopping, closing, finished };
  void next();
  void send(std::size_t slot);
  void completed(std::size_t id, std::error_code ec, reply out);
  void after_pause();
  void renew_if_ended(std::error_code ec);
  void close_reads();
  void close_read(std::size_t path);
  [[nodiscard]] std::size_t invoke(op_kind kind, const std::string& path, std::string value, std::int32_t version,
                                   bool watch);
  [[nodiscard]] std::chrono::milliseconds pause();

  zkwire::client& client_;
  std::size_t index_;
  recorder& recorder_;
  std::mt19937_64 random_;
  register_options options_;
  phase phase_ = phase::idle;
  std::size_t in_flight_ = 0;
  std::size_t sent_ = 0;
  bool renewing_ = false;
  std::vector<std::int32_t> versions_;  // the version last seen per path (-1: none, or absent)
  std::vector<std::unique_ptr<wakeup>> timers_;
  std::vector<bool> timer_busy_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace zkwire::history
