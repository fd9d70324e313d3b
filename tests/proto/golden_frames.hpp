#pragma once
// Reader for the golden wire captures in tests/golden/data (format: tests/golden/README.md).
//
// A capture is a sequence of frame payloads (without their 4-byte length prefix), each tagged with its direction
// and the TCP connection it travelled on. `# -- connection N open` starts a new connection; every other comment
// line is ignored (the hex is the ground truth).

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace zkwire::proto::golden {

enum class direction { client, server };

struct frame {
  std::size_t ordinal = 0;  // 1-based position among the C/S lines of its file
  std::size_t line = 0;     // 1-based line number in the file
  int connection = 0;       // 1-based; 0 for a frame before any "connection open" marker (a format error)
  direction dir = direction::client;
  std::string payload;  // raw bytes, no length prefix
};

struct capture {
  std::string name;  // file stem, e.g. "kazoo_read"
  std::vector<frame> frames;
  int connections = 0;              // number of "connection N open" markers
  std::vector<std::string> errors;  // format problems (bad hex, frame outside a connection, ...)
};

// The capture directory: $ZKWIRE_GOLDEN_DIR if set, else the ZKWIRE_GOLDEN_DIR compile definition.
std::filesystem::path golden_dir();

// Sorted stems of every *.frames file in golden_dir(); empty if the directory is missing.
std::vector<std::string> capture_names();

// Reads golden_dir()/<name>.frames. A file that cannot be opened yields one entry in `errors`.
capture read_capture(const std::string& name);

// One row of data/INDEX: scenario -> frame kind -> count, e.g. "C:getData(4)" -> 2, "S:event NodeCreated" -> 1.
using index_row = std::map<std::string, int>;
// Parses golden_dir()/INDEX; format problems are appended to `errors`.
std::map<std::string, index_row> read_index(std::vector<std::string>& errors);

// Lowercase hex of `bytes`.
std::string to_hex(std::string_view bytes);

}  // namespace zkwire::proto::golden
