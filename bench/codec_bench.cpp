// zkwire_codec_bench: encode and decode of the hot records, and frame splitting (Google Benchmark).
//
// Every benchmark reports, besides time per op:
//   bytes/op    the wire bytes one op encodes or decodes (bytes_per_second is derived from it)
//   items/s     messages per second (children names for the getChildren cases, frames for the frame reader)
//   allocs/op   heap allocations per op, counted by the replaced global operator new below; the encoders into a
//               reused std::string and the frame reader must show 0 in steady state
// and a reference measured in the same run over the same number of bytes (reference/memcpy/<bytes>,
// reference/byte_sum/<bytes>), so results from a noisy shared machine can be read as ratios. bench/ratios.py turns
// `--benchmark_format=json` output into a table of ns/op and ratio to memcpy.
//
//   build/bin/zkwire_codec_bench --benchmark_repetitions=5 --benchmark_format=json > out.json
//   /usr/bin/python3 bench/ratios.py out.json

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_counter.hpp"
#include "zkwire/proto/proto.hpp"

namespace {

namespace proto = zkwire::proto;

// Allocations since construction.
class allocation_meter {
 public:
  allocation_meter() noexcept : start_(zkwire::bench::heap_allocations()) {}
  [[nodiscard]] std::uint64_t count() const noexcept { return zkwire::bench::heap_allocations() - start_; }

 private:
  std::uint64_t start_;
};

// Records the standard counters; `allocations` must be read right after the timed loop.
void report(benchmark::State& state, std::uint64_t allocations, std::size_t bytes_per_op, std::size_t items_per_op) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(bytes_per_op));
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(items_per_op));
  state.counters["allocs/op"] =
      benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
  state.counters["bytes/op"] = benchmark::Counter(static_cast<double>(bytes_per_op));
}

std::int32_t next_xid(std::int32_t xid) noexcept {
  return xid == std::numeric_limits<std::int32_t>::max() ? 1 : xid + 1;
}

// ---- fixtures --------------------------------------------------------------------------------------------------

proto::stat sample_stat(std::int64_t zxid) {
  proto::stat s;
  s.czxid = zxid - 40;
  s.mzxid = zxid;
  s.ctime = 1'763'700'000'000;
  s.mtime = 1'763'700'400'000;
  s.version = 7;
  s.cversion = 1000;
  s.aversion = 0;
  s.ephemeral_owner = 0;
  s.data_length = 100;
  s.num_children = 0;
  s.pzxid = zxid - 1;
  return s;
}

std::string payload_of_frame(const std::string& frame) { return frame.substr(4); }

std::string get_data_reply_payload(std::size_t data_size) {
  std::string data(data_size, '\0');
  for (std::size_t i = 0; i < data_size; ++i) data[i] = static_cast<char>('a' + i % 26);
  std::string frame;
  if (proto::encode_reply_frame(frame, proto::reply_header{42, 0x1'0000'0123, 0},
                                proto::get_data_response{std::move(data), sample_stat(0x1'0000'0100)})) {
    std::abort();
  }
  return payload_of_frame(frame);
}

// Names as a lock recipe creates them: protected-mode guid prefix plus the sequential suffix (about 60 bytes).
std::vector<std::string> lock_children(std::size_t count) {
  std::vector<std::string> names;
  names.reserve(count);
  char buffer[96];
  for (std::size_t i = 0; i < count; ++i) {
    std::snprintf(buffer, sizeof buffer, "_c_%08zx-0d3a-4f5e-8a7b-%012zx-lock-%010zu", i * 2654435761U % 0xffffffffU,
                  i * 40503U, i);
    names.emplace_back(buffer);
  }
  return names;
}

struct fixtures {
  proto::get_data_request get_data{"/app/config/service-a", true};
  std::string get_data_frame;
  std::string get_data_reply_100 = get_data_reply_payload(100);
  std::string get_data_reply_4096 = get_data_reply_payload(4096);
  proto::create_request create{"/app/locks/_c_9b2f6c1e-0d3a-4f5e-8a7b-1c2d3e4f5a6b-lock-",
                               std::string("host-17:4711 pid=12345 owner=zk!"), proto::open_acl_unsafe(),
                               proto::create_mode::ephemeral_sequential};
  std::string create_frame;
  std::string create_payload;
  proto::get_children_response children{lock_children(1000)};
  std::string children_payload;
  std::string reply_stream;  // 1000 frames: exists replies and ping replies, alternating
  std::size_t reply_stream_frames = 0;

  fixtures() {
    if (proto::encode_request_frame(get_data_frame, 1, proto::op_code::get_data, get_data)) std::abort();
    if (proto::encode_request_frame(create_frame, 1, proto::create_opcode(create.flags), create)) std::abort();
    create_payload = payload_of_frame(create_frame);
    std::string frame;
    if (proto::encode_reply_frame(frame, proto::reply_header{7, 0x1'0000'0123, 0}, children)) std::abort();
    children_payload = payload_of_frame(frame);
    for (std::int32_t i = 0; i < 1000; ++i) {
      const auto result =
          i % 2 == 0 ? proto::encode_reply_frame(reply_stream, proto::reply_header{i + 1, 0x99, 0},
                                                 proto::exists_response{sample_stat(0x90)})
                     : proto::encode_reply_frame(reply_stream, proto::reply_header{-2, 0x99, 0}, proto::no_body{});
      if (result) std::abort();
      ++reply_stream_frames;
    }
  }
};

const fixtures& fx() {
  static const fixtures instance;
  return instance;
}

// ---- encode ----------------------------------------------------------------------------------------------------

void encode_get_data_request(benchmark::State& state) {
  const auto& f = fx();
  std::string out;
  std::int32_t xid = 1;
  // The first encode grows `out`; from then on the string's capacity is reused.
  if (proto::encode_request_frame(out, xid, proto::op_code::get_data, f.get_data)) state.SkipWithError("encode");
  const allocation_meter meter;
  for (auto _ : state) {
    out.clear();
    xid = next_xid(xid);
    auto ec = proto::encode_request_frame(out, xid, proto::op_code::get_data, f.get_data);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state, meter.count(), out.size(), 1);
}
BENCHMARK(encode_get_data_request)->Name("encode/get_data_request_frame");

void encode_create_request(benchmark::State& state) {
  const auto& f = fx();
  const proto::op_code op = proto::create_opcode(f.create.flags);
  std::string out;
  std::int32_t xid = 1;
  if (proto::encode_request_frame(out, xid, op, f.create)) state.SkipWithError("encode");
  const allocation_meter meter;
  for (auto _ : state) {
    out.clear();
    xid = next_xid(xid);
    auto ec = proto::encode_request_frame(out, xid, op, f.create);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state, meter.count(), out.size(), 1);
}
BENCHMARK(encode_create_request)->Name("encode/create_request_frame");

void encode_get_children_reply(benchmark::State& state) {
  const auto& f = fx();
  std::string out;
  const proto::reply_header header{7, 0x1'0000'0123, 0};
  if (proto::encode_reply_frame(out, header, f.children)) state.SkipWithError("encode");
  const allocation_meter meter;
  for (auto _ : state) {
    out.clear();
    auto ec = proto::encode_reply_frame(out, header, f.children);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state, meter.count(), out.size(), f.children.children.size());
}
BENCHMARK(encode_get_children_reply)->Name("encode/get_children_reply_1000");

// ---- decode ----------------------------------------------------------------------------------------------------

void decode_reply_bench(benchmark::State& state, const std::string& payload, proto::op_code op, std::size_t items) {
  proto::reply reply;
  if (proto::decode_reply(payload, op, reply) || reply.header.err != 0) state.SkipWithError("decode");
  const allocation_meter meter;
  for (auto _ : state) {
    auto ec = proto::decode_reply(payload, op, reply);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(reply);
    benchmark::ClobberMemory();
  }
  report(state, meter.count(), payload.size(), items);
}

void decode_get_data_reply_100(benchmark::State& state) {
  decode_reply_bench(state, fx().get_data_reply_100, proto::op_code::get_data, 1);
}
BENCHMARK(decode_get_data_reply_100)->Name("decode/get_data_reply_100");

void decode_get_data_reply_4096(benchmark::State& state) {
  decode_reply_bench(state, fx().get_data_reply_4096, proto::op_code::get_data, 1);
}
BENCHMARK(decode_get_data_reply_4096)->Name("decode/get_data_reply_4096");

void decode_get_children_reply(benchmark::State& state) {
  decode_reply_bench(state, fx().children_payload, proto::op_code::get_children, fx().children.children.size());
}
BENCHMARK(decode_get_children_reply)->Name("decode/get_children_reply_1000");

void decode_create_request(benchmark::State& state) {
  const auto& f = fx();
  proto::request request;
  if (proto::decode_request(f.create_payload, request)) state.SkipWithError("decode");
  const allocation_meter meter;
  for (auto _ : state) {
    auto ec = proto::decode_request(f.create_payload, request);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(request);
    benchmark::ClobberMemory();
  }
  report(state, meter.count(), f.create_payload.size(), 1);
}
BENCHMARK(decode_create_request)->Name("decode/create_request");

// ---- frame reader ----------------------------------------------------------------------------------------------

// Splits the reply stream as a connection would: each "read" copies up to `chunk` bytes into prepare()'s space,
// then every complete frame is taken with next(). The reader (and its buffer) is reused across iterations.
void frame_reader_split(benchmark::State& state) {
  const auto& f = fx();
  const auto chunk = static_cast<std::size_t>(state.range(0));
  const std::string_view stream = f.reply_stream;
  proto::frame_reader reader;
  auto split = [&] {
    std::size_t frames = 0;
    for (std::size_t offset = 0; offset < stream.size(); offset += chunk) {
      const std::size_t n = std::min(chunk, stream.size() - offset);
      const auto space = reader.prepare(chunk);
      std::memcpy(space.data(), stream.data() + offset, n);
      reader.commit(n);
      while (auto payload = reader.next()) {
        benchmark::DoNotOptimize(payload->data());
        ++frames;
      }
    }
    return frames;
  };
  if (split() != f.reply_stream_frames || reader.error() || reader.buffered() != 0) state.SkipWithError("split");
  const allocation_meter meter;
  std::size_t frames = 0;
  for (auto _ : state) {
    frames = split();
    benchmark::DoNotOptimize(frames);
  }
  report(state, meter.count(), stream.size(), frames);
}
BENCHMARK(frame_reader_split)->Name("frame_reader/split_1000_replies")->Arg(1460)->Arg(65536);

// ---- references ------------------------------------------------------------------------------------------------
// The same number of bytes through memcpy, and through a plain loop that reads every byte once.

void reference_memcpy(benchmark::State& state, const std::string* bytes) {
  std::string destination(bytes->size(), '\0');
  for (auto _ : state) {
    std::memcpy(destination.data(), bytes->data(), bytes->size());
    benchmark::DoNotOptimize(destination.data());
    benchmark::ClobberMemory();
  }
  report(state, 0, bytes->size(), 1);
}

void reference_byte_sum(benchmark::State& state, const std::string* bytes) {
  for (auto _ : state) {
    std::uint32_t sum = 0;
    for (const char c : *bytes) sum += static_cast<unsigned char>(c);
    benchmark::DoNotOptimize(sum);
  }
  report(state, 0, bytes->size(), 1);
}

// One reference pair per distinct byte count above, named by the byte count.
void register_references() {
  const auto& f = fx();
  const std::string* inputs[] = {&f.get_data_frame,      &f.create_frame,     &f.create_payload, &f.get_data_reply_100,
                                 &f.get_data_reply_4096, &f.children_payload, &f.reply_stream};
  std::vector<std::size_t> seen;
  for (const std::string* bytes : inputs) {
    bool duplicate = false;
    for (const std::size_t s : seen) duplicate = duplicate || s == bytes->size();
    if (duplicate) continue;
    seen.push_back(bytes->size());
    const std::string size = std::to_string(bytes->size());
    benchmark::RegisterBenchmark(("reference/memcpy/" + size).c_str(), reference_memcpy, bytes);
    benchmark::RegisterBenchmark(("reference/byte_sum/" + size).c_str(), reference_byte_sum, bytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_references();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
