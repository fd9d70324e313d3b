#include "proxy_control.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

namespace zkwire::cli {

namespace {

// Keys in the order written ("id" first), which is how people read them in curl output.
using json = nlohmann::ordered_json;

// Bodies are built from user text (rule paths): invalid UTF-8 is replaced rather than failing the request.
std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

control_response error(int status, std::string_view message, std::string allow = {}) {
  return {status, error_body(message), std::move(allow)};
}

json rule_json(const faults::rule_entry& e) {
  return {
      {"id", e.id}, {"rule", faults::to_string(e.rule)}, {"fired", e.counters.fired}, {"matched", e.counters.matched}};
}

json traffic_json(const faults::traffic_counters& t) { return {{"frames", t.frames}, {"bytes", t.bytes}}; }

std::string_view trim(std::string_view text) {
  constexpr std::string_view blanks = " \t\r\n";
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

// The rule text of a POST body: the text itself, or a JSON object {"rule": "..."} (what JSON-minded clients send).
// Empty with `problem` set when the body is neither.
std::string rule_text_of(std::string_view body, std::string& problem) {
  body = trim(body);
  if (body.empty()) {
    problem = "empty body: expected the rule text, e.g. 'request op=getData action=drop'";
    return {};
  }
  if (!body.starts_with('{')) return std::string(body);
  const json value = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object() || !value.contains("rule") || !value["rule"].is_string()) {
    problem = R"(a JSON body must be an object {"rule": "RULE TEXT"})";
    return {};
  }
  return value["rule"].get<std::string>();
}

}  // namespace

std::string error_body(std::string_view message) { return dump(json{{"error", message}}); }

proxy_controller::proxy_controller(std::shared_ptr<faults::rule_table> rules, std::vector<control_member> members)
    : rules_(std::move(rules)), members_(std::move(members)) {}

control_response proxy_controller::handle(std::string_view method, std::string_view path, std::string_view body) const {
  if (path == "/rules" || path == "/rules/") {
    if (method == "GET") return list_rules();
    if (method == "POST") return add_rule(body);
    if (method == "DELETE") {
      rules_->clear();
      return {204, {}, {}};
    }
    return error(405, std::string(method) + " is not allowed on /rules", "GET, POST, DELETE");
  }
  if (path.starts_with("/rules/")) return rule_resource(method, path.substr(7));
  if (path == "/stats") {
    if (method == "GET") return stats();
    return error(405, std::string(method) + " is not allowed on /stats", "GET");
  }
  return error(404, "no resource " + std::string(path) + " (the control API has /rules, /rules/ID and /stats)");
}

control_response proxy_controller::list_rules() const {
  json out = json::array();
  for (const auto& e : rules_->rules()) out.push_back(rule_json(e));
  return {200, dump(out), {}};
}

control_response proxy_controller::add_rule(std::string_view body) const {
  std::string problem;
  const std::string text = rule_text_of(body, problem);
  if (!problem.empty()) return error(400, problem);
  std::string why;
  const auto id = rules_->add(text, &why);
  if (!id) return error(400, "rule '" + text + "': " + why);
  return {201, dump(json{{"id", *id}}), {}};
}

control_response proxy_controller::rule_resource(std::string_view method, std::string_view id_text) const {
  faults::rule_id id = 0;
  const auto* end = id_text.data() + id_text.size();
  const auto [ptr, ec] = std::from_chars(id_text.data(), end, id);
  if (ec != std::errc() || ptr != end || id == 0) return error(404, "no rule '" + std::string(id_text) + "'");
  if (method == "DELETE") {
    if (!rules_->remove(id)) return error(404, "no rule " + std::to_string(id) + " in force");
    return {204, {}, {}};
  }
  if (method == "GET") {
    for (const auto& e : rules_->rules()) {
      if (e.id == id) return {200, dump(rule_json(e)), {}};
    }
    return error(404, "no rule " + std::to_string(id) + " in force");
  }
  return error(405, std::string(method) + " is not allowed on /rules/ID", "GET, DELETE");
}

control_response proxy_controller::stats() const {
  faults::proxy_stats total;
  json members = json::array();
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const auto& m = members_[i];
    const faults::proxy_stats s = m.proxy->stats();
    total.accepted += s.accepted;
    total.open += s.open;
    total.requests.frames += s.requests.frames;
    total.requests.bytes += s.requests.bytes;
    total.replies.frames += s.replies.frames;
    total.replies.bytes += s.replies.bytes;
    members.push_back({{"member", i + 1},
                       {"listen", m.listen},
                       {"upstream", m.upstream},
                       {"connections", s.accepted},
                       {"open", s.open},
                       {"requests", traffic_json(s.requests)},
                       {"replies", traffic_json(s.replies)}});
  }
  json rules = json::array();
  for (const auto& e : rules_->history()) {
    json r = rule_json(e);
    r["removed"] = e.removed;
    rules.push_back(std::move(r));
  }
  const json out{{"connections", total.accepted},
                 {"open", total.open},
                 {"requests", traffic_json(total.requests)},
                 {"replies", traffic_json(total.replies)},
                 {"rules", std::move(rules)},
                 {"members", std::move(members)},
                 {"seed", rules_->seed()}};
  return {200, dump(out), {}};
}

}  // namespace zkwire::cli
