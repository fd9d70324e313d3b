// The lock's queue rules (queue_rule.hpp): sequence order, by lock kind.

#include "queue_rule.hpp"

#include <array>
#include <iterator>

namespace zkwire::recipes::detail {

position find_lock_position(const std::vector<node_name>& sorted, std::string_view ours, lock_kind kind,
                            const std::string& own_writer) {
  position p;
  std::optional<std::string> previous;
  std::optional<std::string> previous_non_reader;
  std::size_t non_readers = 0;
  for (auto it = sorted.begin(); it != sorted.end(); ++it) {
    const node_name& n = *it;
    if (!n.is_contender()) break;  // foreign siblings sort last and never block
    if (n.name == ours) {
      p.found = true;
      p.last = std::next(it) == sorted.end() || !std::next(it)->is_contender();
      const bool read = kind == lock_kind::read;
      p.blocker = read ? previous_non_reader : previous;
      p.blocking = read ? non_readers : p.ahead;
      p.holds_once_blocker_goes = p.blocking == 1;  // the blocker is the only contender that keeps us waiting
      return p;
    }
    previous = n.name;
    ++p.ahead;
    if (n.kind != contender_kind::read && n.name != own_writer) {
      previous_non_reader = n.name;
      ++non_readers;
    }
  }
  return p;
}

namespace {

class lock_queue_rule final : public queue_rule {
 public:
  lock_queue_rule(naming format, lock_kind kind) : format_(format), kind_(kind) {}

  [[nodiscard]] std::string node_prefix(const guid_source& guids) const override {
    return recipes::node_prefix(format_, kind_, make_guid(format_, guids));
  }
  [[nodiscard]] position locate(const std::vector<std::string>& children, std::string_view ours,
                                const std::string& own_writer) const override {
    return find_lock_position(sort_in_lock_order(children), ours, kind_, own_writer);
  }
  [[nodiscard]] bool sequence_order() const noexcept override { return true; }

 private:
  naming format_;
  lock_kind kind_;
};

}  // namespace

const queue_rule& lock_rule(naming format, lock_kind kind) {
  static const std::array<lock_queue_rule, 6> rules{{
      {naming::curator, lock_kind::exclusive},
      {naming::curator, lock_kind::read},
      {naming::curator, lock_kind::write},
      {naming::kazoo, lock_kind::exclusive},
      {naming::kazoo, lock_kind::read},
      {naming::kazoo, lock_kind::write},
  }};
  return rules.at((format == naming::kazoo ? 3 : 0) + static_cast<std::size_t>(kind));
}

}  // namespace zkwire::recipes::detail
