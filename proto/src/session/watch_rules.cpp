#include "watch_rules.hpp"

#include <array>

#include "pending_table.hpp"
#include "request_paths.hpp"
#include "watch_registry.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::proto::session_detail {

namespace {

constexpr auto no_node = static_cast<std::int32_t>(server_error::no_node);

std::optional<watch_kind> asked_kind(op_code op, const request_body& body) {
  if (const auto* gd = std::get_if<get_data_request>(&body)) {
    return gd->watch ? std::optional(watch_kind::data) : std::nullopt;
  }
  if (const auto* ex = std::get_if<exists_request>(&body)) {
    return ex->watch ? std::optional(watch_kind::exist) : std::nullopt;
  }
  if (const auto* gc = std::get_if<get_children_request>(&body)) {
    return gc->watch ? std::optional(watch_kind::child) : std::nullopt;
  }
  if (const auto* gc2 = std::get_if<get_children2_request>(&body)) {
    return gc2->watch ? std::optional(watch_kind::child) : std::nullopt;
  }
  if (const auto* aw = std::get_if<add_watch_request>(&body); aw != nullptr && op == op_code::add_watch) {
    return aw->mode == add_watch_mode::persistent_recursive ? watch_kind::persistent_recursive : watch_kind::persistent;
  }
  return std::nullopt;
}

// Whether a server-side watch in table `held` is also taken away by a removeWatches of `type`.
bool overlaps(watcher_type type, watcher_type held) noexcept {
  return type == watcher_type::any || held == watcher_type::any || held == type;
}

}  // namespace

watch_intent intent_of(op_code op, const request_body& body, watcher_id watcher) {
  watch_intent intent;
  intent.watcher = watcher;
  if (const auto* rw = std::get_if<remove_watches_request>(&body)) {
    intent.removes = rw->type;
    intent.watcher = 0;  // every watcher of the path and type
  } else if (const auto* cw = std::get_if<check_watches_request>(&body); cw != nullptr && watcher != 0) {
    intent.removes = cw->type;  // that watcher only, the server's watch stays for the others
  } else if (watcher != 0) {
    intent.registers = asked_kind(op, body);
  }
  if (intent.registers || intent.removes) intent.path = request_path(body);
  return intent;
}

std::optional<watch_kind> registered_kind(watch_kind asked, std::int32_t err) noexcept {
  if (asked == watch_kind::exist) {
    if (err == 0) return watch_kind::data;
    return err == no_node ? std::optional(watch_kind::exist) : std::nullopt;
  }
  return err == 0 ? std::optional(asked) : std::nullopt;
}

watcher_type server_table_of(watch_kind kind) noexcept {
  switch (kind) {
    case watch_kind::data:
    case watch_kind::exist:
      return watcher_type::data;
    case watch_kind::child:
      return watcher_type::children;
    case watch_kind::persistent:
    case watch_kind::persistent_recursive:
      break;
  }
  return watcher_type::any;
}

bool apply_reply(watch_registry& registry, const watch_intent& intent, std::int32_t err,
                 std::vector<std::pair<watcher_id, event_type>>& removed) {
  if (intent.removes) {
    if (err == 0) registry.remove(intent.path, *intent.removes, removed, intent.watcher);
    return false;
  }
  if (!intent.registers) return false;
  const auto kind = registered_kind(*intent.registers, err);
  if (!kind) return false;
  registry.add(*kind, intent.path, intent.watcher);
  return true;
}

std::optional<watcher_type> abandoned_watch_removal(const watch_registry& registry, const pending_table& pending,
                                                    const watch_intent& intent, std::int32_t err) {
  if (!intent.registers) return std::nullopt;
  const auto kind = registered_kind(*intent.registers, err);
  if (!kind) return std::nullopt;
  const watcher_type type = server_table_of(*kind);
  constexpr std::array kinds = {watch_kind::data, watch_kind::exist, watch_kind::child, watch_kind::persistent,
                                watch_kind::persistent_recursive};
  for (const watch_kind local : kinds) {
    if (overlaps(type, server_table_of(local)) && registry.watcher_count(local, intent.path) > 0) return std::nullopt;
  }
  const auto& sent = pending.sent();
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const sent_request& s = sent[i];
    if (s.from != origin::user || s.abandoned || !s.watch.registers || s.watch.path != intent.path) continue;
    // Assume success: whether the server registered it is known only from the reply, but the server applied it
    // already, so a removal now would take its watch away.
    const auto in_flight = registered_kind(*s.watch.registers, 0);
    if (in_flight && overlaps(type, server_table_of(*in_flight))) return std::nullopt;
  }
  return type;
}

}  // namespace zkwire::proto::session_detail
