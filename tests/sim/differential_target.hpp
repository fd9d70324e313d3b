#pragma once
// The two sides of the differential test (differential_test.cpp, differential_time_test.cpp): a script of client
// steps runs once against a real ZooKeeper 3.8 server and once against the model, and each side keeps a transcript
// of what its client observed (compared line by line) and the times of its steps and events (checked against the
// windows the protocol allows).
//
// Time: the real side runs on the real clock and records when each step started (its timeline); the model's side
// then runs the same script with its virtual time moved, before each step, to the moment the real side took that
// step, and lets virtual time pass millisecond by millisecond (ticking the model) while the script waits for
// events. So the model sees the same gaps between a session's frames as the real server, and what each side did
// with time (expiring, reaping) can be compared.
//
// What is normalised before comparing: zxids become offsets from the first reply's zxid (so the model must consume
// zxids exactly like the server: sessions, failed writes, multis, expiries, reaped containers), ctime/mtime are
// dropped, ephemeral owners become the index of the script's session, children are sorted (both servers list them
// in no particular order).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "text.hpp"
#include "wire_peer.hpp"

namespace zkwire::sim::differential {

using micros = std::chrono::microseconds;  // since the script started, on either side

// How one side lives in time.
class pace {
 public:
  pace() = default;
  pace(const pace&) = delete;
  pace& operator=(const pace&) = delete;
  pace(pace&&) = delete;
  pace& operator=(pace&&) = delete;
  virtual ~pace() = default;
  // The script's next step starts: the real side reads its clock (and records it in the timeline); the model's
  // side moves its virtual time to when the real side took this step. Returns the step's time.
  virtual micros step() = 0;
  [[nodiscard]] virtual micros now() const = 0;
  // Nothing has arrived on `link` and the script waits until `until`: the real side makes the link's next receive
  // wait for at most the time left; the model's side lets a millisecond pass.
  virtual void idle(testing::byte_link& link, micros until) = 0;
  // Lets time pass until `at` with nothing to wait on: the real side sleeps, the model's side ticks.
  virtual void pass(micros at) = 0;
  // The model's deadline for a session (server::session_expiry); the real server does not tell.
  [[nodiscard]] virtual std::optional<micros> deadline(std::int64_t /*session*/) const { return std::nullopt; }
};

// A blocking TCP connection to a real server; receive() waits up to 10 s for the first bytes, or once for the time
// set_wait() gave it.
class socket_link final : public testing::byte_link {
 public:
  explicit socket_link(std::uint16_t port);
  socket_link(const socket_link&) = delete;
  socket_link& operator=(const socket_link&) = delete;
  socket_link(socket_link&&) = delete;
  socket_link& operator=(socket_link&&) = delete;
  ~socket_link() override;
  void send(std::string_view bytes) override;
  std::string receive() override;
  [[nodiscard]] bool closed() const override { return closed_; }
  void set_wait(micros wait) { wait_ = wait; }

 private:
  static constexpr micros default_wait{10'000'000};
  int fd_;
  bool closed_ = false;
  micros wait_ = default_wait;
};

// A watch notification as one side's client saw it, and when.
struct seen_event {
  std::size_t session = 0;
  proto::watcher_event event;
  micros at{0};
};

// One side of the comparison: sessions on the real server or on the model, and the transcript of what they saw.
class target {
 public:
  // A new connection to member `member` (always 0 against a standalone server).
  using link_factory = std::function<std::unique_ptr<testing::byte_link>(std::size_t member)>;
  target(link_factory make, pace& clock) : make_(std::move(make)), pace_(clock) {}

  // Connects session i (a new one, or resumes it if it has an id) at member `member`.
  void connect(std::size_t i, std::int32_t timeout_ms = 10'000, std::size_t member = 0);
  // Drops the connection (the session lives on) and resumes the session on a new one.
  void reconnect(std::size_t i, std::size_t member = 0);

  template <class Body>
  void call(std::size_t i, proto::op_code op, const Body& body) {
    auto& s = sessions_.at(i);
    s.sent = pace_.step();
    const std::int32_t xid = op == proto::op_code::auth ? proto::special_xid::auth : 0;
    log_result(i, op, s.peer->call(op, body, xid));
    s.answered = pace_.now();
  }

  // Sends all `requests` in one write before reading any reply, and logs the replies (and the notifications
  // between them) in the order they come, with the xid each reply answers.
  void pipeline(std::size_t i, const std::vector<std::pair<proto::op_code, proto::request_body>>& requests);

  // Sends `op` and cuts the connection (the client shuts its side and closes) before any reply can be read:
  // the whole frame, or only its first half. The session lives on.
  void cut(std::size_t i, proto::op_code op, const proto::request_body& body, bool whole);

  // Waits up to `within` from now for `count` notifications on session i's connection, logging each (by session,
  // type and path; its time goes to events()).
  void await_events(std::size_t i, std::size_t count, micros within);
  // Waits up to `within` for the server to close session i's connection (logs whether it did).
  void await_closed(std::size_t i, micros within);
  // Lets time pass without a step until `at` (script time): to place the next step at a chosen moment.
  void pass_until(micros at) { pace_.pass(at); }
  // Remembers the model's deadline for session i now (deadline()); nothing on the real side.
  void note_deadline(std::size_t i) { sessions_.at(i).deadline = pace_.deadline(sessions_.at(i).id); }

  // Runs `steps` whose observations may differ between the real service and the model (a read at a follower that
  // may be stale): their lines go to loose(name) instead of the transcript, which gets one placeholder line. The
  // test's check says what each side may have seen there.
  void loosely(const std::string& name, const std::function<void()>& steps) {
    log(cat("<", name, ": may differ>"));
    loose_ = &loose_lines_[name];
    steps();
    loose_ = nullptr;
  }
  [[nodiscard]] const std::vector<std::string>& loose(const std::string& name) const { return loose_lines_.at(name); }

  // Names session i's last call, for the checks: marked(name) is when it was sent and when its reply was read.
  void mark(const std::string& name, std::size_t i) { marks_[name] = {sessions_.at(i).sent, sessions_.at(i).answered}; }
  [[nodiscard]] std::pair<micros, micros> marked(const std::string& name) const { return marks_.at(name); }

  // Sends closeSession on every session still connected, unlogged: nothing of the script outlives it on the real
  // server (an abandoned session would expire during a later script and take a zxid there).
  void close_all();

  [[nodiscard]] const std::vector<std::string>& transcript() const noexcept { return transcript_; }
  [[nodiscard]] const std::vector<seen_event>& events() const noexcept { return events_; }
  // When session i's last call was sent and its reply read, and the model's deadline noted for it.
  [[nodiscard]] micros sent(std::size_t i) const { return sessions_.at(i).sent; }
  [[nodiscard]] micros answered(std::size_t i) const { return sessions_.at(i).answered; }
  [[nodiscard]] std::optional<micros> deadline(std::size_t i) const { return sessions_.at(i).deadline; }
  [[nodiscard]] std::int32_t negotiated(std::size_t i) const { return sessions_.at(i).timeout; }

 private:
  struct session {
    std::unique_ptr<testing::byte_link> link;
    std::unique_ptr<testing::wire_peer> peer;
    std::int64_t id = 0;
    std::string passwd = std::string(proto::password_length, '\0');
    std::int32_t timeout = 0;
    std::int64_t last_zxid = 0;  // the highest zxid in a reply to this session
    micros sent{0};
    micros answered{0};
    std::optional<micros> deadline;
  };

  void log(std::string line) { (loose_ != nullptr ? *loose_ : transcript_).push_back(std::move(line)); }
  void log_result(std::size_t i, proto::op_code op, const std::optional<testing::call_result>& result);
  void log_event(std::size_t i, const proto::watcher_event& e, micros at);
  std::string relative(std::int64_t zxid);
  std::string describe(const proto::stat& s);
  std::string describe(const proto::multi_result& r);
  std::string describe(const proto::response_body& body);

  link_factory make_;
  pace& pace_;
  std::vector<session> sessions_;
  std::map<std::int64_t, std::size_t> owners_;
  std::optional<std::int64_t> base_;
  std::vector<std::string> transcript_;
  std::vector<seen_event> events_;
  std::map<std::string, std::pair<micros, micros>> marks_;
  std::map<std::string, std::vector<std::string>> loose_lines_;
  std::vector<std::string>* loose_ = nullptr;
};

// The real side's clock: steady time since construction; every step is appended to `timeline`.
class real_pace final : public pace {
 public:
  explicit real_pace(std::vector<micros>& timeline) : timeline_(timeline) {}
  micros step() override;
  [[nodiscard]] micros now() const override;
  void idle(testing::byte_link& link, micros until) override;
  void pass(micros at) override;

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<micros>& timeline_;
};

// The model's side: virtual time, moved to the real side's timeline before each step, ticking `tick` every
// millisecond it passes.
class model_pace final : public pace {
 public:
  model_pace(const std::vector<micros>& timeline, sim_time& now, std::function<void(sim_time)> tick,
             std::function<std::optional<sim_time>(std::int64_t)> deadline)
      : timeline_(timeline), now_(now), tick_(std::move(tick)), deadline_(std::move(deadline)) {}
  micros step() override;
  [[nodiscard]] micros now() const override { return now_; }
  [[nodiscard]] sim_time virtual_now() const { return now_; }
  void idle(testing::byte_link& link, micros until) override;
  void pass(micros at) override { advance_to(std::chrono::ceil<sim_time>(at)); }
  [[nodiscard]] std::optional<micros> deadline(std::int64_t session) const override;
  void advance_to(sim_time t);

 private:
  const std::vector<micros>& timeline_;
  std::size_t next_ = 0;
  sim_time& now_;
  std::function<void(sim_time)> tick_;
  std::function<std::optional<sim_time>(std::int64_t)> deadline_;
};

inline proto::create_request create(const std::string& path, proto::create_mode mode = proto::create_mode::persistent,
                                    std::string data = "") {
  return proto::create_request{path, std::move(data), proto::open_acl_unsafe(), mode};
}

}  // namespace zkwire::sim::differential
