#include <unistd.h>

#include <array>
#include <string>

#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes {

lock_options::lock_options() = default;  // out of line: not an aggregate (lock_options.hpp)

std::string default_lock_data() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return std::string(host.data()) + ":" + std::to_string(::getpid());
}

std::string_view lock_state_name(lock_state s) noexcept {
  switch (s) {
    case lock_state::released:
      return "released";
    case lock_state::acquiring:
      return "acquiring";
    case lock_state::held:
      return "held";
    case lock_state::uncertain:
      return "uncertain";
    case lock_state::lost:
      break;
  }
  return "lost";
}

}  // namespace zkwire::recipes
