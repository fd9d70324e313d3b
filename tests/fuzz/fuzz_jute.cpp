// fuzz_jute: a byte-driven sequence of jute::reader calls over arbitrary data, checked against a reference model.
//
// Input: byte 0 configures the run (bits 0-1: the reader's max_length, bits 2-7: k, the number of op bytes),
// the last k bytes are the ops (one per byte, kind in the low nibble, parameter in the high one), and everything
// in between is the data the reader reads.
//
// Properties:
//  1. Model: every read returns what a straightforward big-endian decoder of the same bytes returns, consumes the
//     same bytes, and fails with the same jute::error (need_more_bytes, negative_length, length_exceeds_limit,
//     count_exceeds_input, invalid_boolean, trailing_bytes from finish(); nothing else). remaining(), rest() and
//     ok() agree with the model after every op.
//  2. Sticky errors: the first error stays; the failing read and every later read return a zero value (0, false,
//     empty, nullopt) and no later read moves the position.
//  3. No allocation beyond the input: a vector count is accepted only if count * min_element_size fits in the
//     bytes left, and then the vector never holds more than that.
//  4. Round trip: writing every successfully read value with jute::writer gives exactly the bytes consumed, except
//     that a null read by an API that cannot report null (read_ustring, null vectors) is written as empty
//     (length 0). Reading the writer's output with the same ops gives the same values.
//  5. Writer limits: a writer with a small max_size either produces the same bytes or fails with value_too_large
//     having appended a prefix of them and at most max_size bytes; bytes already in the string are untouched, and
//     a length prefix holds the number of bytes after it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "zkwire/jute/jute.hpp"

namespace {

using zkwire::fuzz::be32;
using zkwire::fuzz::load_be32;
using zkwire::jute::error;

enum class op_kind : std::uint8_t {
  read_int,
  read_long,
  read_bool,
  read_buffer_view,
  read_buffer,
  read_ustring,
  read_ustring_view,
  read_count,
  read_ustring_vector,
  read_long_vector,
  read_buffer_vector,
  finish,
  skip_rest,
  rest,
  read_int_again,
  read_bool_again,
};

std::size_t max_length_for(unsigned selector, std::size_t data_size) {
  switch (selector & 3U) {
    case 0:
      return zkwire::jute::default_max_length;
    case 1:
      return 0;
    case 2:
      return 16;
    default:
      return data_size;
  }
}

// The reference: a plain decoder over the same bytes, written from docs/protocol.md#framing independently of
// jute::reader. It appends to `trace` a description of every value (so two runs can be compared) and to `canonical` the
// bytes a writer must produce for the values read.
class model {
 public:
  model(std::string_view data, std::size_t max_length) : data_(data), max_length_(max_length) {}

  [[nodiscard]] bool ok() const noexcept { return !error_; }
  [[nodiscard]] std::optional<error> err() const noexcept { return error_; }
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }

  void fail(error e) {
    if (!error_) error_ = e;
  }

  // nullopt after recording need_more_bytes.
  std::optional<std::string_view> take(std::size_t n) {
    if (error_) return std::nullopt;
    if (remaining() < n) {
      fail(error::need_more_bytes);
      return std::nullopt;
    }
    const std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  std::int32_t read_int() {
    const auto b = take(4);
    return b ? static_cast<std::int32_t>(load_be32(*b, 0)) : 0;
  }

  std::int64_t read_long() {
    const auto b = take(8);
    if (!b) return 0;
    const std::uint64_t v = (std::uint64_t{load_be32(*b, 0)} << 32) | load_be32(*b, 4);
    return static_cast<std::int64_t>(v);
  }

  bool read_bool() {
    const auto b = take(1);
    if (!b) return false;
    const auto c = static_cast<unsigned char>((*b)[0]);
    if (c > 1) {
      fail(error::invalid_boolean);
      return false;
    }
    return c == 1;
  }

  // A buffer or ustring; nullopt for null and after an error (then *failed is set).
  std::optional<std::string_view> read_bytes(bool* was_null) {
    *was_null = false;
    const std::int32_t len = read_int();
    if (error_) return std::nullopt;
    if (len == -1) {
      *was_null = true;
      return std::nullopt;
    }
    if (len < 0) {
      fail(error::negative_length);
      return std::nullopt;
    }
    if (static_cast<std::size_t>(len) > max_length_) {
      fail(error::length_exceeds_limit);
      return std::nullopt;
    }
    return take(static_cast<std::size_t>(len));
  }

  std::int32_t read_count(std::size_t min_element_size) {
    const std::int32_t count = read_int();
    if (error_) return 0;
    if (count == -1) return -1;
    if (count < 0) {
      fail(error::negative_length);
      return 0;
    }
    if (static_cast<std::size_t>(count) > remaining() / min_element_size) {
      fail(error::count_exceeds_input);
      return 0;
    }
    return count;
  }

  void finish() {
    if (!error_ && remaining() != 0) fail(error::trailing_bytes);
  }
  void skip_rest() { pos_ = data_.size(); }

 private:
  std::string_view data_;
  std::size_t max_length_;
  std::size_t pos_ = 0;
  std::optional<error> error_;
};

void write_strings(zkwire::jute::writer& w, const std::vector<std::string>& list) {
  w.write_vector(list, [](zkwire::jute::writer& x, const std::string& s) { x.write_ustring(s); });
}

std::optional<error> error_of(const zkwire::jute::reader& r) {
  if (r.ok()) return std::nullopt;
  const std::error_code ec = r.error();
  ZKWIRE_FUZZ_CHECK(ec.category() == zkwire::jute::category());
  return static_cast<error>(ec.value());
}

// Every value read is written twice: to a writer without a limit and to one with a small max_size (property 5).
class sink {
 public:
  sink(zkwire::jute::writer& full, zkwire::jute::writer& limited) noexcept : full_(full), limited_(limited) {}
  template <class Write>
  void operator()(Write&& write) {
    write(full_);
    write(limited_);
  }
  [[nodiscard]] const zkwire::jute::writer& full() const noexcept { return full_; }

 private:
  zkwire::jute::writer& full_;
  zkwire::jute::writer& limited_;
};

void append_long(std::string& trace, std::int64_t v) {
  trace += be32(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) >> 32));
  trace += be32(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) & 0xffffffffU));
}

void append_trace(std::string& trace, std::string_view s) {
  trace += be32(static_cast<std::uint32_t>(s.size()));
  trace.append(s);
}

// Runs `ops` over `data` with both the reader and the model, checking properties 1-3 after each op. Returns the
// trace of values; writes every successfully read value to `w`; `canonical` receives the bytes w must hold.
// `ops_ok` receives how many ops completed before the first error, `consumed` the end of the bytes they decoded.
std::string run(std::string_view data, std::size_t max_length, std::string_view ops, sink& w, std::string& canonical,
                std::size_t& ops_ok, std::size_t& consumed) {
  zkwire::jute::reader r(data, max_length);
  model m(data, max_length);
  std::string trace;
  ops_ok = 0;
  consumed = 0;
  for (const char op_byte : ops) {
    const auto byte = static_cast<unsigned char>(op_byte);
    const auto kind = static_cast<op_kind>(byte & 0xfU);
    const unsigned param = byte >> 4;
    const bool was_ok = r.ok();
    const std::size_t pos_before = r.position();
    const std::size_t model_pos_before = m.pos();
    std::string bytes_written_if_ok;  // what the canonical encoding of this op's value is
    bool writes_raw = true;           // canonical == consumed bytes

    switch (kind) {
      case op_kind::read_int:
      case op_kind::read_int_again: {
        const std::int32_t got = r.read_int();
        const std::int32_t want = m.read_int();
        ZKWIRE_FUZZ_CHECK(got == want);
        if (m.ok()) w([&](zkwire::jute::writer& x) { x.write_int(got); });
        trace += be32(static_cast<std::uint32_t>(got));
        break;
      }
      case op_kind::read_long: {
        const std::int64_t got = r.read_long();
        const std::int64_t want = m.read_long();
        ZKWIRE_FUZZ_CHECK(got == want);
        if (m.ok()) w([&](zkwire::jute::writer& x) { x.write_long(got); });
        append_long(trace, got);
        break;
      }
      case op_kind::read_bool:
      case op_kind::read_bool_again: {
        const bool got = r.read_bool();
        const bool want = m.read_bool();
        ZKWIRE_FUZZ_CHECK(got == want);
        if (m.ok()) w([&](zkwire::jute::writer& x) { x.write_bool(got); });
        trace += got ? 'T' : 'F';
        break;
      }
      case op_kind::read_buffer_view: {
        bool is_null = true;
        const std::string_view got = r.read_buffer_view(&is_null);
        bool want_null = false;
        const auto want = m.read_bytes(&want_null);
        ZKWIRE_FUZZ_CHECK(got == want.value_or(std::string_view()));
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(is_null == want_null);
          // A view points into the input, not into a copy.
          ZKWIRE_FUZZ_CHECK(got.empty() || got.data() == data.data() + pos_before + 4);
          w([&](zkwire::jute::writer& x) {
            if (is_null) {
              x.write_null_buffer();
            } else {
              x.write_buffer(got);
            }
          });
        } else {
          ZKWIRE_FUZZ_CHECK(got.empty());
        }
        trace += is_null && m.ok() ? "N" : "B";
        append_trace(trace, got);
        break;
      }
      case op_kind::read_buffer: {
        const std::optional<std::string> got = r.read_buffer();
        bool want_null = false;
        const auto want = m.read_bytes(&want_null);
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(got.has_value() == !want_null);
          ZKWIRE_FUZZ_CHECK(!got || *got == *want);
          w([&](zkwire::jute::writer& x) { x.write_buffer(got); });
        } else {
          ZKWIRE_FUZZ_CHECK(!got);
        }
        trace += got ? "B" : "N";
        append_trace(trace, got.value_or(std::string()));
        break;
      }
      case op_kind::read_ustring:
      case op_kind::read_ustring_view: {
        std::string got;
        if (kind == op_kind::read_ustring) {
          got = r.read_ustring();
        } else {
          got = std::string(r.read_ustring_view());
        }
        bool want_null = false;
        const auto want = m.read_bytes(&want_null);
        ZKWIRE_FUZZ_CHECK(got == want.value_or(std::string_view()));
        if (m.ok()) {
          w([&](zkwire::jute::writer& x) { x.write_ustring(got); });
          if (want_null) {
            writes_raw = false;  // a null ustring reads as empty and is written as empty
            bytes_written_if_ok = be32(0);
          }
        }
        append_trace(trace, got);
        break;
      }
      case op_kind::read_count: {
        const std::size_t min_element_size = 1 + param;
        const std::int32_t got = r.read_count(min_element_size);
        const std::int32_t want = m.read_count(min_element_size);
        ZKWIRE_FUZZ_CHECK(got == want);
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(got == -1 || static_cast<std::size_t>(got) * min_element_size <= r.remaining());
          w([&](zkwire::jute::writer& x) {
            if (got == -1) {
              x.write_int(-1);
            } else {
              x.write_count(static_cast<std::size_t>(got));
            }
          });
        }
        trace += be32(static_cast<std::uint32_t>(got));
        break;
      }
      case op_kind::read_ustring_vector: {
        const std::size_t left = r.remaining();
        const std::vector<std::string> got = r.read_ustring_vector();
        // Model: a count checked against 4-byte elements, then that many ustrings (null ones read as empty).
        const std::int32_t count = m.read_count(4);
        std::vector<std::string> want;
        bool lossy = count == -1;
        for (std::int32_t i = 0; i < count && m.ok(); ++i) {
          bool was_null = false;
          want.emplace_back(m.read_bytes(&was_null).value_or(std::string_view()));
          lossy = lossy || was_null;
        }
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(got == want);
          ZKWIRE_FUZZ_CHECK(got.size() <= left / 4);
          w([&](zkwire::jute::writer& x) { write_strings(x, got); });
          if (lossy) {
            writes_raw = false;
            zkwire::jute::writer c(bytes_written_if_ok);
            write_strings(c, got);
          }
        }
        trace += be32(static_cast<std::uint32_t>(m.ok() ? got.size() : 0));
        if (m.ok()) {
          for (const auto& s : got) append_trace(trace, s);
        }
        break;
      }
      case op_kind::read_long_vector: {
        std::vector<std::int64_t> got{1, 2, 3};  // read_vector must clear what was there
        const std::size_t left = r.remaining();
        r.read_vector(got, 8, [](zkwire::jute::reader& in) { return in.read_long(); });
        const std::int32_t count = m.read_count(8);
        std::vector<std::int64_t> want;
        for (std::int32_t i = 0; i < count && m.ok(); ++i) want.push_back(m.read_long());
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(got == want);
          ZKWIRE_FUZZ_CHECK(got.size() <= left / 8);
          w([&](zkwire::jute::writer& x) {
            x.write_vector(got, [](zkwire::jute::writer& y, std::int64_t v) { y.write_long(v); });
          });
          if (count == -1) {
            writes_raw = false;  // a null vector reads as empty
            bytes_written_if_ok = be32(0);
          }
          trace += be32(static_cast<std::uint32_t>(got.size()));
          for (const std::int64_t v : got) append_long(trace, v);
        } else {
          trace += "E";
        }
        break;
      }
      case op_kind::read_buffer_vector: {
        std::vector<std::optional<std::string>> got;
        const std::size_t left = r.remaining();
        r.read_vector(got, 4, [](zkwire::jute::reader& in) { return in.read_buffer(); });
        const std::int32_t count = m.read_count(4);
        std::vector<std::optional<std::string>> want;
        for (std::int32_t i = 0; i < count && m.ok(); ++i) {
          bool was_null = false;
          const auto b = m.read_bytes(&was_null);
          want.push_back(b ? std::optional<std::string>(std::string(*b)) : std::nullopt);
        }
        if (m.ok()) {
          ZKWIRE_FUZZ_CHECK(got == want);
          ZKWIRE_FUZZ_CHECK(got.size() <= left / 4);
          w([&](zkwire::jute::writer& x) {
            x.write_vector(got,
                           [](zkwire::jute::writer& y, const std::optional<std::string>& b) { y.write_buffer(b); });
          });
          if (count == -1) {
            writes_raw = false;
            bytes_written_if_ok = be32(0);
          }
          trace += be32(static_cast<std::uint32_t>(got.size()));
          for (const auto& b : got) {
            trace += b ? "B" : "N";
            append_trace(trace, b.value_or(std::string()));
          }
        } else {
          trace += "E";
        }
        break;
      }
      case op_kind::finish: {
        const std::error_code ec = r.finish();
        m.finish();
        ZKWIRE_FUZZ_CHECK(ec == r.error());
        trace += m.ok() ? "F" : "f";
        break;
      }
      case op_kind::skip_rest: {
        // Skipped bytes are not values: nothing is written for them, and a second pass over the re-encoding
        // finds nothing left to skip.
        r.skip_rest();
        m.skip_rest();
        writes_raw = false;
        ZKWIRE_FUZZ_CHECK(r.remaining() == 0);
        trace += "S";
        break;
      }
      case op_kind::rest: {
        const std::string_view rest = r.rest();
        ZKWIRE_FUZZ_CHECK(rest == data.substr(r.position()));
        ZKWIRE_FUZZ_CHECK(rest.size() == r.remaining());
        trace += "R";
        break;
      }
    }

    // Property 1: the reader agrees with the model.
    ZKWIRE_FUZZ_CHECK(error_of(r) == m.err());
    ZKWIRE_FUZZ_CHECK(r.ok() == m.ok());
    ZKWIRE_FUZZ_CHECK(r.position() <= data.size());
    ZKWIRE_FUZZ_CHECK(r.remaining() == data.size() - r.position());
    if (m.ok()) {
      ZKWIRE_FUZZ_CHECK(r.position() == m.pos());
      if (writes_raw) {
        canonical.append(data.substr(model_pos_before, m.pos() - model_pos_before));
      } else {
        canonical.append(bytes_written_if_ok);
      }
      ++ops_ok;
      // Skipped bytes stay in the tail that a second pass appends to the re-encoding, so it skips them too. No
      // op after skip_rest can consume anything.
      if (kind != op_kind::skip_rest && m.pos() != model_pos_before) consumed = m.pos();
    }
    // Property 2: once failed, no read moves the position (skip_rest() is not a read: it may still jump to the
    // end, and the error stays).
    if (!was_ok && kind != op_kind::skip_rest) ZKWIRE_FUZZ_CHECK(r.position() == pos_before);
    if (!r.ok()) ZKWIRE_FUZZ_CHECK(r.position() >= pos_before);
  }
  return trace;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view input = zkwire::fuzz::as_bytes(bytes, size);
  if (input.empty()) return 0;
  const auto config = static_cast<unsigned char>(input[0]);
  const std::size_t op_count = std::min<std::size_t>(config >> 2, input.size() - 1);
  const std::string_view ops = input.substr(input.size() - op_count);
  const std::string_view data = input.substr(1, input.size() - 1 - op_count);
  const std::size_t max_length = max_length_for(config, data.size());

  // Pass 1 over the data; everything read successfully is written again, once without a limit and once after
  // existing bytes, inside a length prefix, with a limit that is often too small (property 5).
  std::string written;
  zkwire::jute::writer w(written);
  const std::size_t limit = 4 + (data.size() * (1 + (config & 3U))) / 4;
  std::string limited = "pre";
  zkwire::jute::writer lw(limited, limit);
  const std::size_t prefix = lw.begin_length_prefix();
  sink out(w, lw);
  std::string canonical;
  std::size_t ops_ok = 0;
  std::size_t consumed = 0;
  const std::string trace = run(data, max_length, ops, out, canonical, ops_ok, consumed);
  ZKWIRE_FUZZ_CHECK(w.ok());
  ZKWIRE_FUZZ_CHECK(w.size() == written.size());
  // Property 4: the writer's output is the consumed bytes, with lossy nulls written as empty.
  ZKWIRE_FUZZ_CHECK(written == canonical);

  // Property 5.
  lw.end_length_prefix(prefix);
  ZKWIRE_FUZZ_CHECK(limited.compare(0, 3, "pre") == 0);
  ZKWIRE_FUZZ_CHECK(lw.size() == limited.size() - 3);
  ZKWIRE_FUZZ_CHECK(lw.size() <= limit);
  if (lw.ok()) {
    ZKWIRE_FUZZ_CHECK(limited.size() == written.size() + 7);
    ZKWIRE_FUZZ_CHECK(load_be32(limited, 3) == written.size());
    ZKWIRE_FUZZ_CHECK(limited.compare(7, std::string::npos, written) == 0);
  } else {
    ZKWIRE_FUZZ_CHECK(lw.error() == error::value_too_large);
    ZKWIRE_FUZZ_CHECK(limited.size() <= 7 + written.size());
    if (limited.size() > 7)
      ZKWIRE_FUZZ_CHECK(limited.compare(7, std::string::npos, written, 0, limited.size() - 7) == 0);
  }

  // Property 4: the same ops over the re-encoding followed by the bytes pass 1 did not consume read the same
  // values, and fail at the same op the same way (the re-encoding has the size of what it replaces).
  std::string again = written;
  again.append(data.substr(consumed));
  std::string written2;
  zkwire::jute::writer w2(written2);
  std::string ignored;
  zkwire::jute::writer ignored_writer(ignored);
  sink out2(w2, ignored_writer);
  std::string canonical2;
  std::size_t ops_ok2 = 0;
  std::size_t consumed2 = 0;
  const std::string trace2 = run(again, max_length, ops, out2, canonical2, ops_ok2, consumed2);
  ZKWIRE_FUZZ_CHECK(ops_ok2 == ops_ok);
  ZKWIRE_FUZZ_CHECK(written2 == written);
  ZKWIRE_FUZZ_CHECK(trace2 == trace);
  return 0;
}
