#include "util.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "errors.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::cli {

void check_path(const std::string& path, bool sequential) {
  std::string reason;
  if (proto::validate_path(path, sequential, &reason)) {
    throw usage_error("'" + path + "': invalid path: " + reason);
  }
}

std::string data_argument(const std::string& argument) {
  if (argument != "-") return argument;
  std::string data;
  std::array<char, 65536> buffer{};
  while (true) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), stdin);
    data.append(buffer.data(), n);
    if (n < buffer.size()) {
      if (std::ferror(stdin) != 0) throw usage_error(std::string("reading stdin: ") + std::strerror(errno));
      break;
    }
  }
  return data;
}

void write_stdout(std::string_view bytes) {
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), stdout);
}

void print_line(std::string_view line) {
  write_stdout(line);
  std::fputc('\n', stdout);
}

}  // namespace zkwire::cli
