#include "history.hpp"

#include <cstdio>
#include <utility>

namespace zkwire::history {

std::size_t recorder::invoke(operation op) {
  op.id = record_.ops.size();
  op.invoked = next_++;
  op.invoked_s = seconds_();
  op.completed = never;
  record_.ops.push_back(std::move(op));
  ++pending_;
  return record_.ops.back().id;
}

void recorder::complete(std::size_t id, reply r) {
  auto& op = record_.ops.at(id);
  if (op.completed != never) {
    ++twice_;
    return;
  }
  op.completed = next_++;
  op.completed_s = seconds_();
  op.out = std::move(r);
  --pending_;
}

void recorder::event(watch_event e) {
  e.at = next_++;
  e.at_s = seconds_();
  record_.events.push_back(std::move(e));
}

std::size_t recorder::begin_hold(hold h) {
  h.granted = next_++;
  h.granted_s = seconds_();
  h.ended = never;
  record_.holds.push_back(std::move(h));
  return record_.holds.size() - 1;
}

void recorder::end_hold(std::size_t index) {
  auto& h = record_.holds.at(index);
  if (h.ended != never) return;
  h.ended = next_++;
  h.ended_s = seconds_();
}

const char* name(op_kind kind) noexcept {
  switch (kind) {
    case op_kind::create:
      return "create";
    case op_kind::remove:
      return "delete";
    case op_kind::set:
      return "set";
    case op_kind::get:
      return "get";
  }
  return "?";
}

std::string hex(std::int64_t zxid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(zxid));
  return text;
}

namespace {

const char* name(failure why) noexcept {
  switch (why) {
    case failure::none:
      return "";
    case failure::no_node:
      return "NONODE";
    case failure::node_exists:
      return "NODEEXISTS";
    case failure::bad_version:
      return "BADVERSION";
    case failure::other:
      return "other error";
  }
  return "?";
}

std::string time_span(logical_time from, logical_time to, double from_s, double to_s) {
  char text[96];
  if (to == never) {
    std::snprintf(text, sizeof text, "[t %llu.. , %.3f s..]", static_cast<unsigned long long>(from), from_s);
  } else {
    std::snprintf(text, sizeof text, "[t %llu..%llu, %.3f..%.3f s]", static_cast<unsigned long long>(from),
                  static_cast<unsigned long long>(to), from_s, to_s);
  }
  return text;
}

}  // namespace

std::string describe(const operation& op) {
  std::string text = "client " + std::to_string(op.client) + " (session " + hex(op.session) + ") op " +
                     std::to_string(op.id) + ": " + name(op.kind) + " " + op.path;
  if (op.kind == op_kind::create || op.kind == op_kind::set) text += " '" + op.value + "'";
  if (op.kind == op_kind::set || op.kind == op_kind::remove) text += " version " + std::to_string(op.expected_version);
  if (op.watch) text += " (watch)";
  text += " -> ";
  switch (op.out.result) {
    case outcome::ok:
      text += "ok";
      if (op.kind == op_kind::get) text += " '" + op.out.value + "'";
      if (op.kind == op_kind::get || op.kind == op_kind::set) text += " version " + std::to_string(op.out.version);
      if (op.out.mzxid != 0) text += " mzxid " + hex(op.out.mzxid);
      break;
    case outcome::failed:
      text += name(op.out.why);
      break;
    case outcome::unknown:
      text += op.completed == never ? "no answer"
              : op.out.client_side  ? "outcome unknown (client-side)"
                                    : "outcome unknown";
      break;
  }
  if (op.out.zxid != 0) text += ", reply zxid " + hex(op.out.zxid);
  return text + " " + time_span(op.invoked, op.completed, op.invoked_s, op.completed_s);
}

std::string describe(const watch_event& e) {
  static constexpr const char* kinds[] = {"NodeDataChanged", "NodeDeleted", "NodeCreated", "other event",
                                          "final delivery"};
  char at[64];
  std::snprintf(at, sizeof at, " [t %llu, %.3f s]", static_cast<unsigned long long>(e.at), e.at_s);
  return "client " + std::to_string(e.client) + " given " + kinds[static_cast<std::size_t>(e.kind)] + " " + e.path +
         " for the watch of op " + std::to_string(e.registration) + at;
}

std::string describe(const hold& h) {
  return "holder " + std::to_string(h.holder) + " of " + h.resource + " (" + std::to_string(h.leases) + " of " +
         std::to_string(h.capacity) + ", token " + hex(h.token) + ") " +
         time_span(h.granted, h.ended, h.granted_s, h.ended_s);
}

}  // namespace zkwire::history
