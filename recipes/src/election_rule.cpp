// The election's queue rules (queue_rule.hpp): our node names by naming, and election_order.hpp's decision.

#include <array>
#include <string>
#include <vector>

#include "queue_rule.hpp"

namespace zkwire::recipes::detail {
namespace {

class election_queue_rule final : public queue_rule {
 public:
  explicit election_queue_rule(election_naming format) : format_(format) {}

  [[nodiscard]] std::string node_prefix(const guid_source& guids) const override {
    return election_node_prefix(format_, make_election_guid(format_, guids));
  }
  [[nodiscard]] position locate(const std::vector<std::string>& children, std::string_view ours,
                                const std::string& /*own_writer: an election has no read side*/) const override {
    auto d = decide_leadership(format_, children, ours);
    position p;
    p.found = d.found;
    p.ahead = d.ahead;
    p.blocking = d.ahead;
    p.blocker = std::move(d.wait_for);
    // Whether we would lead on this listing without the blocker (only worth a decision when at most the blocker is
    // ahead in sequence order: with more, rule 2 keeps us waiting anyway).
    if (p.blocker && d.ahead <= 1) {
      std::vector<std::string> without;
      without.reserve(children.size());
      for (const auto& child : children) {
        if (child != *p.blocker) without.push_back(child);
      }
      p.holds_once_blocker_goes = decide_leadership(format_, without, ours).leads;
    }
    return p;
  }
  [[nodiscard]] bool sequence_order() const noexcept override { return false; }

 private:
  election_naming format_;
};

}  // namespace

const queue_rule& election_rule(election_naming format) {
  static const std::array<election_queue_rule, 3> rules{{
      election_queue_rule(election_naming::latch),
      election_queue_rule(election_naming::lock),
      election_queue_rule(election_naming::kazoo),
  }};
  return rules.at(static_cast<std::size_t>(format));
}

}  // namespace zkwire::recipes::detail
