// zkwire_session_bench: the socket-free session engine (zkwire/proto/session/session.hpp) on its hot paths, with no
// sockets: the bytes a server would send are fed to the engine and the bytes it writes are dropped (Google
// Benchmark).
//
//   session/get_data_exchange      submit a getData, take the request bytes, feed the reply, take the completion:
//                                  everything the engine does for one request, encode and decode included
//   session/exists_exchange        the same for exists (no payload in the result)
//   session/get_children_1000      ... for a getChildren reply of 1000 names (about 60 bytes each)
//   session/set_watches_reconnect  drop the connection with N data watches armed, reconnect: handshake plus the
//                                  SetWatches frames (batched under 128 KiB of paths) that re-arm them
//
// Counters: allocs/op (heap allocations per op, counted by the replaced global operator new, as in
// codec_bench.cpp; the getData result's data is one of them, a payload the caller owns), bytes/op (wire bytes
// in + out) and, for the reconnect, frames/op.

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <variant>
#include <vector>

#include "allocation_counter.hpp"
#include "zkwire/proto/proto.hpp"
#include "zkwire/proto/session/session.hpp"

namespace {

namespace proto = zkwire::proto;
using clock_type = proto::session_clock;

std::uint64_t allocations() { return zkwire::bench::heap_allocations(); }

proto::stat sample_stat() {
  proto::stat s;
  s.czxid = 0x100;
  s.mzxid = 0x123;
  s.ctime = 1'763'700'000'000;
  s.mtime = 1'763'700'400'000;
  s.version = 7;
  s.data_length = 100;
  s.pzxid = 0x120;
  return s;
}

// A server's reply frame whose xid bytes (offset 4..7) are patched for each request.
template <class Body>
std::string reply_frame(const Body& body) {
  std::string frame;
  if (proto::encode_reply_frame(frame, proto::reply_header{1, 0x1'0000'0123, 0}, body)) std::abort();
  return frame;
}

void patch_xid(std::string& frame, std::int32_t xid) {
  const auto u = static_cast<std::uint32_t>(xid);
  frame[4] = static_cast<char>((u >> 24U) & 0xffU);
  frame[5] = static_cast<char>((u >> 16U) & 0xffU);
  frame[6] = static_cast<char>((u >> 8U) & 0xffU);
  frame[7] = static_cast<char>(u & 0xffU);
}

// An engine connected to a fake server, and the xid the next request will get.
class connected_engine {
 public:
  connected_engine() : engine_(config()) {
    engine_.start(now_);
    handshake();
  }

  // Drops the connection and reconnects (the same session): returns the bytes the engine wrote after the
  // handshake (auth, SetWatches, queued requests).
  std::size_t reconnect(std::size_t& frames) {
    engine_.disconnected(now_, make_error_code(proto::client_error::connection_loss));
    drain();
    return handshake(&frames);
  }

  // One request through the engine; returns wire bytes in + out.
  template <class Body>
  std::size_t exchange(proto::op_code op, Body body, std::string& reply, proto::watcher_id watcher = 0) {
    engine_.submit(now_, op, proto::request_body(std::move(body)), watcher);
    const auto out = engine_.take_output();
    const std::size_t written = out ? out->size() : 0;
    engine_.written(now_);
    patch_xid(reply, xid_);
    xid_ = xid_ == std::numeric_limits<std::int32_t>::max() ? 1 : xid_ + 1;
    engine_.received(now_, reply);
    while (auto d = engine_.take_delivery()) {
      if (auto* c = std::get_if<proto::completion>(&*d); c != nullptr && c->error) std::abort();
      benchmark::DoNotOptimize(*d);
    }
    return written + reply.size();
  }

 private:
  static proto::session_config config() {
    proto::session_config c;
    c.seed = 1;
    return c;
  }

  void drain() {
    while (engine_.take_delivery()) {
    }
    (void)engine_.take_close();
  }

  std::size_t handshake(std::size_t* frames = nullptr) {
    if (!engine_.take_connect()) std::abort();
    engine_.connected(now_);
    if (!engine_.take_output()) std::abort();  // the ConnectRequest
    engine_.written(now_);
    proto::connect_response response;
    response.timeout = 10000;
    response.session_id = 0x1234;
    response.passwd.assign(16, 'p');
    std::string frame;
    if (proto::encode_frame(frame, response)) std::abort();
    engine_.received(now_, frame);
    std::size_t bytes = 0;
    std::size_t count = 0;
    if (const auto out = engine_.take_output()) {
      bytes = out->size();
      // Every SetWatches frame is answered in order, with its own xid (the engine numbers them like requests).
      std::string replies;
      for (std::size_t offset = 0; offset + 8 <= out->size(); ++count) {
        const auto* p = reinterpret_cast<const unsigned char*>(out->data() + offset);
        const std::uint32_t length =
            (std::uint32_t{p[0]} << 24U) | (std::uint32_t{p[1]} << 16U) | (std::uint32_t{p[2]} << 8U) | p[3];
        const auto xid = static_cast<std::int32_t>((std::uint32_t{p[4]} << 24U) | (std::uint32_t{p[5]} << 16U) |
                                                   (std::uint32_t{p[6]} << 8U) | p[7]);
        if (proto::encode_reply_frame(replies, proto::reply_header{xid, 0x1'0000'0123, 0}, proto::no_body{})) {
          std::abort();
        }
        xid_ = xid == std::numeric_limits<std::int32_t>::max() ? 1 : xid + 1;
        offset += 4 + length;
      }
      engine_.written(now_);
      engine_.received(now_, replies);
    }
    drain();
    if (engine_.state() != proto::session_state::connected) std::abort();
    if (frames != nullptr) *frames = count;
    return bytes;
  }

  proto::session engine_;
  proto::time_point now_ = clock_type::now();
  std::int32_t xid_ = 1;
};

void report(benchmark::State& state, std::uint64_t allocs, std::size_t bytes_per_op) {
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(allocs), benchmark::Counter::kAvgIterations);
  state.counters["bytes/op"] = benchmark::Counter(static_cast<double>(bytes_per_op));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes_per_op));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

template <class MakeBody>
void exchange_bench(benchmark::State& state, proto::op_code op, MakeBody make_body, std::string reply) {
  connected_engine engine;
  std::size_t bytes = 0;
  for (int i = 0; i < 100; ++i) bytes = engine.exchange(op, make_body(), reply);  // grow the buffers once
  const auto before = allocations();
  for (auto _ : state) bytes = engine.exchange(op, make_body(), reply);
  report(state, allocations() - before, bytes);
}

void get_data_exchange(benchmark::State& state) {
  exchange_bench(
      state, proto::op_code::get_data, [] { return proto::get_data_request{"/app/config/a"}; },
      reply_frame(proto::get_data_response{std::string(100, 'd'), sample_stat()}));
}
BENCHMARK(get_data_exchange)->Name("session/get_data_exchange");

void exists_exchange(benchmark::State& state) {
  exchange_bench(
      state, proto::op_code::exists, [] { return proto::exists_request{"/app/config/a"}; },
      reply_frame(proto::exists_response{sample_stat()}));
}
BENCHMARK(exists_exchange)->Name("session/exists_exchange");

std::vector<std::string> lock_children(std::size_t count) {
  std::vector<std::string> names;
  char buffer[96];
  for (std::size_t i = 0; i < count; ++i) {
    std::snprintf(buffer, sizeof buffer, "_c_%08zx-0d3a-4f5e-8a7b-%012zx-lock-%010zu", i * 2654435761U % 0xffffffffU,
                  i * 40503U, i);
    names.emplace_back(buffer);
  }
  return names;
}

void get_children_1000(benchmark::State& state) {
  exchange_bench(
      state, proto::op_code::get_children, [] { return proto::get_children_request{"/app/locks"}; },
      reply_frame(proto::get_children_response{lock_children(1000)}));
}
BENCHMARK(get_children_1000)->Name("session/get_children_1000");

void set_watches_reconnect(benchmark::State& state) {
  const auto watch_count = static_cast<std::size_t>(state.range(0));
  connected_engine engine;
  std::string reply = reply_frame(proto::get_data_response{std::string(10, 'd'), sample_stat()});
  char path[64];
  for (std::size_t i = 0; i < watch_count; ++i) {
    std::snprintf(path, sizeof path, "/app/services/instance-%06zu/config", i);
    engine.exchange(proto::op_code::get_data, proto::get_data_request{path, true}, reply, i + 1);
  }
  std::size_t frames = 0;
  std::size_t bytes = engine.reconnect(frames);
  const auto before = allocations();
  // NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores): Google Benchmark's loop variable
  for (auto _ : state) bytes = engine.reconnect(frames);
  report(state, allocations() - before, bytes);
  state.counters["frames/op"] = benchmark::Counter(static_cast<double>(frames));
}
BENCHMARK(set_watches_reconnect)->Name("session/set_watches_reconnect")->Arg(100)->Arg(10000);

}  // namespace

BENCHMARK_MAIN();
