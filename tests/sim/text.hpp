#pragma once
// Text for traces and failure messages. cat() joins anything streamable; it also keeps GCC 12 quiet, which warns
// falsely (-Wrestrict at -O3) about chains of `"literal" + std::string`.

#include <sstream>
#include <string>

namespace zkwire::sim {

template <class... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace zkwire::sim
