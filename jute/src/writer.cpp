#include "zkwire/jute/writer.hpp"

namespace zkwire::jute {
namespace {

void store_be32(char* p, std::uint32_t v) noexcept {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xffU);
}

}  // namespace

bool writer::append(const char* p, std::size_t n) {
  if (error_) return false;
  if (n > max_size_ - size()) {
    fail(error::value_too_large);
    return false;
  }
  out_.append(p, n);
  return true;
}

void writer::write_int(std::int32_t v) {
  char b[4];
  store_be32(b, static_cast<std::uint32_t>(v));
  append(b, sizeof b);
}

void writer::write_long(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  char b[8];
  store_be32(b, static_cast<std::uint32_t>(u >> 32));
  store_be32(b + 4, static_cast<std::uint32_t>(u & 0xffffffffU));
  append(b, sizeof b);
}

void writer::write_bool(bool v) {
  const char b = v ? 1 : 0;
  append(&b, 1);
}

void writer::write_buffer(std::string_view bytes) {
  if (bytes.size() > max_wire_length) {
    fail(error::value_too_large);
    return;
  }
  write_int(static_cast<std::int32_t>(bytes.size()));
  append(bytes.data(), bytes.size());
}

void writer::write_buffer(const std::optional<std::string>& bytes) {
  if (bytes) {
    write_buffer(std::string_view(*bytes));
  } else {
    write_null_buffer();
  }
}

void writer::write_null_buffer() { write_int(-1); }

void writer::write_count(std::size_t count) {
  if (count > max_wire_length) {
    fail(error::value_too_large);
    return;
  }
  write_int(static_cast<std::int32_t>(count));
}

std::size_t writer::begin_length_prefix() {
  const std::size_t offset = out_.size();
  write_int(0);
  return offset;
}

void writer::end_length_prefix(std::size_t offset) {
  if (error_) return;
  const std::size_t body = out_.size() - offset - 4;
  if (body > max_wire_length) {
    fail(error::value_too_large);
    return;
  }
  store_be32(out_.data() + offset, static_cast<std::uint32_t>(body));
}

}  // namespace zkwire::jute
