#include "leader_view.hpp"

#include "json.hpp"
#include "lock_format.hpp"

namespace zkwire::cli {
namespace {

json participants_record(json record, const std::vector<recipes::participant>& participants) {
  record["leader"] = nullptr;
  json list = json::array();
  for (const auto& p : participants) {
    if (p.leader) record["leader"] = p.id;
    list.push_back({{"id", p.id}, {"node", p.path}, {"session", session_hex(p.session)}, {"leader", p.leader}});
  }
  record["participants"] = std::move(list);
  return record;
}

// `text` as a JSON string's contents: control characters escaped, bytes that are no UTF-8 as U+FFFD.
std::string json_escaped(const std::string& text) {
  const std::string quoted = json_text(json(text));
  return quoted.substr(1, quoted.size() - 2);
}

std::string pad_right(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string participants_json(const std::vector<recipes::participant>& participants) {
  return json_text(participants_record(json::object(), participants));
}

std::string participants_json(const std::string& path, const std::vector<recipes::participant>& participants) {
  return json_text(participants_record({{"path", path}, {"exists", true}}, participants));
}

std::string missing_election_json(const std::string& path) {
  return json_text(participants_record({{"path", path}, {"exists", false}}, {}));
}

std::string participants_text(const std::vector<recipes::participant>& participants) {
  std::size_t id_width = 0;
  std::size_t node_width = 0;
  std::vector<std::string> ids;
  for (const auto& p : participants) {
    ids.push_back(json_escaped(p.id));
    id_width = std::max(id_width, ids.back().size());
    node_width = std::max(node_width, p.path.size());
  }
  std::string out;
  for (std::size_t i = 0; i < participants.size(); ++i) {
    const auto& p = participants[i];
    const char* role = p.leader ? "leader" : p.also_leading ? "leading" : "waiting";
    out += pad_right(role, 9) + pad_right(ids[i], id_width + 2) + pad_right(p.path, node_width + 2) +
           session_hex(p.session) + "\n";
  }
  return out;
}

}  // namespace zkwire::cli
