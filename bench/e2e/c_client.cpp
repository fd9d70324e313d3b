#include "c_client.hpp"

#include <zookeeper/zookeeper.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "zkwire_bench/cpu_time.hpp"

namespace zkwire::bench::e2e {
namespace {

using clock = std::chrono::steady_clock;

std::uint64_t since(clock::time_point start) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count());
}

}  // namespace

struct c_client::state {
  zhandle_t* zh = nullptr;
  std::string data;
  std::vector<std::string> created;
  std::uint64_t sequence = 0;

  std::mutex mutex;
  std::condition_variable cv;
  bool connected = false;

  // One pipelined phase; its completions run on the C client's completion thread.
  struct slot {
    state* owner = nullptr;
    clock::time_point start;
  };
  struct pipeline {
    op_kind op = op_kind::get;
    std::string node;
    std::string parent;
    std::uint64_t to_issue = 0;
    std::uint64_t in_flight = 0;
    std::uint64_t errors = 0;
    histogram* latency = nullptr;
    std::vector<slot> slots;
  } run;

  static void on_watch(zhandle_t* /*zh*/, int type, int session_state, const char* /*path*/, void* context) {
    auto* self = static_cast<state*>(context);
    if (type == ZOO_SESSION_EVENT && session_state == ZOO_CONNECTED_STATE) {
      const std::lock_guard lock(self->mutex);
      self->connected = true;
      self->cv.notify_all();
    }
  }

  std::string prefix;  // "/C" or "/T": the two C clients' nodes must not collide

  std::string next_path(const std::string& parent) { return parent + prefix + std::to_string(sequence++); }

  // Issues the next request of the pipelined phase into `s`; the caller holds `mutex`.
  void issue(slot& s) {
    if (run.to_issue == 0) return;
    --run.to_issue;
    ++run.in_flight;
    s.start = clock::now();
    int rc = ZOK;
    if (run.op == op_kind::get) {
      rc = zoo_aget(zh, run.node.c_str(), 0, on_data, &s);
    } else if (run.op == op_kind::create) {
      const std::string path = next_path(run.parent);
      created.push_back(path);
      rc = zoo_acreate(zh, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE, 0, on_string,
                       &s);
    } else {
      std::string path = std::move(created.back());
      created.pop_back();
      rc = zoo_adelete(zh, path.c_str(), -1, on_void, &s);
    }
    if (rc != ZOK) {
      --run.in_flight;
      ++run.errors;
    }
  }

  void complete(slot& s, int rc) {
    const std::lock_guard lock(mutex);
    --run.in_flight;
    if (rc != ZOK) {
      ++run.errors;
    } else if (run.latency != nullptr) {
      run.latency->record(since(s.start));
    }
    issue(s);
    if (run.in_flight == 0) cv.notify_all();
  }

  // The C client hands our slot pointer back as const void*.
  static slot& slot_of(const void* context) {
    return *static_cast<slot*>(const_cast<void*>(context));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  }

  static void on_data(int rc, const char* /*value*/, int /*length*/, const Stat* /*stat*/, const void* context) {
    auto* s = &slot_of(context);
    s->owner->complete(*s, rc);
  }
  static void on_string(int rc, const char* /*path*/, const void* context) {
    auto* s = &slot_of(context);
    s->owner->complete(*s, rc);
  }
  static void on_void(int rc, const void* context) {
    auto* s = &slot_of(context);
    s->owner->complete(*s, rc);
  }

  void run_pipeline(op_kind op, std::uint64_t count, std::uint64_t window, const std::string& node,
                    const std::string& parent, histogram* latency) {
    std::unique_lock lock(mutex);
    run.op = op;
    run.node = node;
    run.parent = parent;
    run.to_issue = count;
    run.in_flight = 0;
    run.errors = 0;
    run.latency = latency;
    run.slots.assign(window, slot{this, {}});
    for (auto& s : run.slots) issue(s);
    cv.wait(lock, [&] { return run.in_flight == 0; });
  }
};

c_client::c_client(const std::string& servers, bool tuned, std::size_t data_size)
    : state_(std::make_unique<state>()), name_(tuned ? "C tuned" : "C") {
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  state_->data.assign(data_size, 'x');
  state_->prefix = tuned ? "/T" : "/C";
  state_->zh = zookeeper_init(servers.c_str(), state::on_watch, 10000, nullptr, state_.get(), 0);
  if (state_->zh == nullptr) throw std::runtime_error("zookeeper_init failed");
  std::unique_lock lock(state_->mutex);
  if (!state_->cv.wait_for(lock, std::chrono::seconds(10), [&] { return state_->connected; })) {
    throw std::runtime_error("the C client did not connect to " + servers);
  }
  if (tuned) zoo_set_servers_resolution_delay(state_->zh, -1);
}

c_client::~c_client() {
  if (state_->zh != nullptr) zookeeper_close(state_->zh);
}

op_report c_client::run_sync(op_kind op, std::uint64_t count, const std::string& node, const std::string& parent) {
  op_report report;
  report.op = std::string(op_name(op));
  report.server = name_;
  std::vector<char> buffer(state_->data.size() + 16);
  auto& created = state_->created;
  std::vector<std::string> paths;
  if (op == op_kind::create) {
    for (std::uint64_t i = 0; i < count; ++i) paths.push_back(state_->next_path(parent));
  }
  cpu_meter meter;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto start = clock::now();
    int rc = ZOK;
    Stat st{};
    switch (op) {
      case op_kind::get: {
        int length = static_cast<int>(buffer.size());
        rc = zoo_get(state_->zh, node.c_str(), 0, buffer.data(), &length, &st);
        break;
      }
      case op_kind::exists:
        rc = zoo_exists(state_->zh, node.c_str(), 0, &st);
        break;
      case op_kind::set:
        rc = zoo_set(state_->zh, node.c_str(), state_->data.data(), static_cast<int>(state_->data.size()), -1);
        break;
      case op_kind::create:
        rc = zoo_create(state_->zh, paths[i].c_str(), state_->data.data(), static_cast<int>(state_->data.size()),
                        &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
        if (rc == ZOK) created.push_back(paths[i]);
        break;
      case op_kind::remove:
        if (created.empty()) {
          rc = ZNONODE;
          break;
        }
        rc = zoo_delete(state_->zh, created.back().c_str(), -1);
        created.pop_back();
        break;
      default:
        rc = ZUNIMPLEMENTED;
        break;
    }
    if (rc == ZOK) {
      report.latency.record(since(start));
    } else {
      ++report.errors;
    }
  }
  meter.stop();
  report.elapsed_ns = meter.elapsed_ns();
  report.cpu_ns = meter.cpu_ns();
  return report;
}

op_report c_client::run_pipelined(op_kind op, std::uint64_t count, std::uint64_t window, const std::string& node,
                                  const std::string& parent) {
  op_report report;
  report.op = std::string(op_name(op));
  report.server = name_;
  report.window = window;
  cpu_meter meter;
  state_->run_pipeline(op, count, window, node, parent, &report.latency);
  meter.stop();
  report.errors = state_->run.errors;
  report.elapsed_ns = meter.elapsed_ns();
  report.cpu_ns = meter.cpu_ns();
  return report;
}

void c_client::remove_created() {
  const auto count = static_cast<std::uint64_t>(state_->created.size());
  if (count > 0) state_->run_pipeline(op_kind::remove, count, 64, {}, {}, nullptr);
}

}  // namespace zkwire::bench::e2e
