// Golden captures (tests/golden/README.md): every frame Kazoo 2.8 and the Java 3.8 client exchanged with a real
// ZooKeeper 3.8.0 server decodes, is routed the way a client routes it (ConnectRequest/ConnectResponse first on
// each connection, then xid -1 notification, -2 ping, -4 auth, otherwise the FIFO of sent requests), and
// re-encodes to exactly the captured bytes, except for the deviations listed in known_deviations below.
// Then a few protocol facts are checked straight from the captures.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

#include "described_records.hpp"
#include "golden_frames.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace {

using golden::capture;
using golden::direction;
using golden::frame;

// ---------------------------------------------------------------------------------------------------------------
// Where byte identity is impossible by design. Every other frame must re-encode to its captured bytes.
// ---------------------------------------------------------------------------------------------------------------

enum class deviation {
  // The captured frame holds a null ustring (length -1) where zkwire models a plain std::string: the decoder
  // reads it as "" and the encoder, which never writes a null string (requests.hpp), writes length 0. Allowed
  // difference: same length, and every differing byte lies in a 4-byte word that is ffffffff in the capture and
  // 00000000 in the re-encoding; decoding the re-encoding gives the same value.
  null_string_written_empty,
};

struct known_deviation {
  std::string_view capture;
  std::size_t frame;  // 1-based ordinal among the file's C/S lines
  deviation kind;
  std::string_view reason;
};

constexpr known_deviation known_deviations[] = {
    {"kazoo_create", 27, deviation::null_string_written_empty,
     "xid 13 create /g/i with ACL (ALL, auth:\"\") (INVALIDACL): Kazoo 2.8 writes the empty Id.id as null"},
    {"kazoo_acl_auth", 15, deviation::null_string_written_empty,
     "xid 6 create /g/cr with ACL (ALL, auth:\"\") (CREATOR_ALL_ACL): Kazoo 2.8 writes the empty Id.id as null"},
};

// True if `ours` differs from `captured` only by null ustrings (ffffffff) written as empty ones (00000000).
bool differs_only_by_null_strings(std::string_view captured, std::string_view ours) {
  if (captured.size() != ours.size()) return false;
  for (std::size_t i = 0; i < captured.size();) {
    if (captured[i] == ours[i]) {
      ++i;
      continue;
    }
    if (i + 4 > captured.size() || captured.substr(i, 4) != std::string_view("\xff\xff\xff\xff", 4) ||
        ours.substr(i, 4) != std::string_view("\0\0\0\0", 4)) {
      return false;
    }
    i += 4;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Replay: decode, route and re-encode every frame of one capture.
// ---------------------------------------------------------------------------------------------------------------

enum class kind { connect_request, connect_response, request, reply };

struct entry {
  const frame* src = nullptr;
  kind k = kind::request;
  bool decoded = false;
  connect_request creq;
  connect_response cresp;
  request req;
  reply rep;
  // request: its type; reply: the op of the request it answers (notification for xid -1, ping, auth).
  op_code op = op_code::notification;
  // reply and ConnectResponse: index of the entry it answers (none for notifications).
  std::optional<std::size_t> answers;
  // server frames: indices of the normal requests still unanswered when it arrived, oldest first.
  std::vector<std::size_t> pending;
};

struct transcript {
  std::string name;
  std::vector<entry> entries;
  std::vector<std::string> problems;
  std::set<std::size_t> deviations_used;  // indices into known_deviations
  std::size_t identical = 0;              // frames whose re-encoding is byte-identical
  std::size_t deviating = 0;              // frames accepted through known_deviations
};

std::int32_t be32(std::string_view bytes) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return static_cast<std::int32_t>(v);
}

std::string hex_excerpt(std::string_view bytes, std::size_t from) {
  const std::size_t start = from > 8 ? from - 8 : 0;
  return golden::to_hex(bytes.substr(start, 24));
}

class replayer {
 public:
  explicit replayer(const capture& c) : cap_(c) { t_.name = c.name; }

  transcript run() {
    for (const auto& e : cap_.errors) t_.problems.push_back(e);
    int current = 0;
    for (const frame& f : cap_.frames) {
      if (f.connection != current) {
        if (current != 0) end_connection(current);
        current = f.connection;
      }
      if (f.dir == direction::client) {
        client_frame(f);
      } else {
        server_frame(f);
      }
    }
    if (current != 0) end_connection(current);
    for (int c = 1; c <= cap_.connections; ++c) {
      if (!conns_.contains(c)) problem_at(c, "connection has no frames at all");
    }
    return std::move(t_);
  }

 private:
  struct connection_state {
    std::optional<std::size_t> connect_request;
    std::optional<std::size_t> connect_response;
    std::deque<std::size_t> fifo;  // normal requests awaiting their reply, in send order
    int pings = 0;                 // ping requests awaiting a reply
    int auths = 0;                 // auth requests awaiting a reply
  };

  std::string where(const frame& f) const {
    return cap_.name + ".frames:" + std::to_string(f.line) + " (frame #" + std::to_string(f.ordinal) + ", " +
           (f.dir == direction::client ? "C" : "S") + ", connection " + std::to_string(f.connection) + "): ";
  }
  void problem(const frame& f, const std::string& what) { t_.problems.push_back(where(f) + what); }
  void problem_at(int connection, const std::string& what) {
    t_.problems.push_back(cap_.name + ".frames connection " + std::to_string(connection) + ": " + what);
  }

  const known_deviation* find_deviation(const frame& f) {
    for (std::size_t i = 0; i < std::size(known_deviations); ++i) {
      const auto& d = known_deviations[i];
      if (d.capture == cap_.name && d.frame == f.ordinal) {
        t_.deviations_used.insert(i);
        return &d;
      }
    }
    return nullptr;
  }

  // `encoded` is what an encoder appended to an empty string: [len][payload]. It must carry the right length
  // prefix and equal the captured payload, or differ from it only as a listed deviation allows, in which case
  // `same_value` must accept the re-encoded payload (decode it and compare with the decoded capture).
  void check_reencoding(const frame& f, std::error_code ec, const std::string& encoded,
                        const std::function<bool(std::string_view)>& same_value) {
    if (ec) return problem(f, "re-encoding failed: " + ec.message());
    if (encoded.size() < 4) return problem(f, "re-encoding has no length prefix");
    const std::string_view ours = std::string_view(encoded).substr(4);
    if (be32(encoded) != static_cast<std::int32_t>(ours.size())) {
      return problem(f, "length prefix " + std::to_string(be32(encoded)) + " but " + std::to_string(ours.size()) +
                            " payload bytes");
    }
    if (ours == f.payload) {
      ++t_.identical;
      return;
    }
    const known_deviation* d = find_deviation(f);
    if (d == nullptr) {
      std::size_t at = 0;
      while (at < ours.size() && at < f.payload.size() && ours[at] == f.payload[at]) ++at;
      return problem(f, "re-encoding differs from the capture at byte " + std::to_string(at) + " (captured " +
                            std::to_string(f.payload.size()) + " bytes, re-encoded " + std::to_string(ours.size()) +
                            ")\n  captured:   " + golden::to_hex(f.payload) +
                            "\n  re-encoded: " + golden::to_hex(ours) + "\n  near the difference: captured ..." +
                            hex_excerpt(f.payload, at) + "... re-encoded ..." + hex_excerpt(ours, at) + "...");
    }
    switch (d->kind) {
      case deviation::null_string_written_empty:
        if (!differs_only_by_null_strings(f.payload, ours)) {
          return problem(f,
                         "listed deviation (null string written empty) does not explain the difference\n"
                         "  captured:   " +
                             golden::to_hex(f.payload) + "\n  re-encoded: " + golden::to_hex(ours));
        }
        break;
    }
    if (!same_value(ours)) return problem(f, "the re-encoding does not decode to the same value");
    ++t_.deviating;
  }

  void client_frame(const frame& f) {
    connection_state& cs = conns_[f.connection];
    const std::size_t index = t_.entries.size();
    entry& e = t_.entries.emplace_back();
    e.src = &f;
    if (!cs.connect_request) {
      // The first client frame of a connection is the ConnectRequest, without a RequestHeader.
      e.k = kind::connect_request;
      cs.connect_request = index;
      if (auto ec = decode_connect_request(f.payload, e.creq)) {
        return problem(f, "decode_connect_request: " + ec.message());
      }
      e.decoded = true;
      std::string out;
      const auto ec = encode_connect_frame(out, e.creq);
      check_reencoding(f, ec, out, [&e](std::string_view p) {
        connect_request again;
        return !decode_connect_request(p, again) && again == e.creq;
      });
      return;
    }
    e.k = kind::request;
    // Clients send nothing else until the ConnectResponse has arrived (docs/protocol.md#handshake-rules).
    if (!cs.connect_response) problem(f, "request sent before the ConnectResponse");
    if (auto ec = decode_request(f.payload, e.req)) return problem(f, "decode_request: " + ec.message());
    e.decoded = true;
    e.op = e.req.header.type;
    const std::int32_t xid = e.req.header.xid;
    if (const auto special = special_xid_op(xid)) {
      if (*special == op_code::ping && e.op == op_code::ping) {
        ++cs.pings;
      } else if (*special == op_code::auth && e.op == op_code::auth) {
        ++cs.auths;
      } else {
        problem(f, "request " + std::string(op_code_name(e.op)) + " with the reserved xid " + std::to_string(xid));
      }
    } else if (xid > 0) {
      if (e.op == op_code::ping || e.op == op_code::auth) {
        problem(f, std::string(op_code_name(e.op)) + " with the normal xid " + std::to_string(xid));
      }
      cs.fifo.push_back(index);
    } else {
      problem(f, "request xid " + std::to_string(xid) + " is neither positive nor reserved");
    }
    std::string out;
    const auto ec = encode_request_frame(out, e.req);
    check_reencoding(f, ec, out, [&e](std::string_view p) {
      request again;
      return !decode_request(p, again) && again == e.req;
    });
  }

  void server_frame(const frame& f) {
    connection_state& cs = conns_[f.connection];
    const std::size_t index = t_.entries.size();
    entry& e = t_.entries.emplace_back();
    e.src = &f;
    e.pending.assign(cs.fifo.begin(), cs.fifo.end());
    if (!cs.connect_request) problem(f, "server frame before the ConnectRequest");
    if (!cs.connect_response) {
      // The first server frame of a connection is the ConnectResponse, without a ReplyHeader.
      e.k = kind::connect_response;
      e.answers = cs.connect_request;
      cs.connect_response = index;
      if (auto ec = decode_connect_response(f.payload, e.cresp)) {
        return problem(f, "decode_connect_response: " + ec.message());
      }
      e.decoded = true;
      std::string out;
      const auto ec = encode_frame(out, e.cresp);
      check_reencoding(f, ec, out, [&e](std::string_view p) {
        connect_response again;
        return !decode_connect_response(p, again) && again == e.cresp;
      });
      return;
    }
    e.k = kind::reply;
    reply_header header;
    if (auto ec = decode_reply_header(f.payload, header)) return problem(f, "decode_reply_header: " + ec.message());
    if (const auto special = special_xid_op(header.xid)) {
      e.op = *special;
      switch (*special) {
        case op_code::notification:
          if (header.zxid != -1 || header.err != 0) problem(f, "notification header is not (-1, -1, 0)");
          break;
        case op_code::ping:
          if (cs.pings == 0) problem(f, "ping reply without a ping outstanding");
          --cs.pings;
          if (header.err != 0) problem(f, "ping reply with err " + std::to_string(header.err));
          break;
        case op_code::auth:
          if (cs.auths == 0) problem(f, "auth reply without an auth outstanding");
          --cs.auths;
          if (header.zxid != 0) problem(f, "auth reply with zxid " + std::to_string(header.zxid));
          break;
        default:
          return problem(f, "reply with the reserved xid " + std::to_string(header.xid) + ", which no request used");
      }
    } else {
      // ZooKeeper answers the requests of a connection in send order.
      auto it = cs.fifo.begin();
      if (it == cs.fifo.end()) return problem(f, "reply xid " + std::to_string(header.xid) + " with nothing pending");
      if (t_.entries[*it].req.header.xid != header.xid) {
        problem(f, "reply xid " + std::to_string(header.xid) + " out of order: the oldest pending request has xid " +
                       std::to_string(t_.entries[*it].req.header.xid));
        it = std::find_if(cs.fifo.begin(), cs.fifo.end(),
                          [&](std::size_t i) { return t_.entries[i].req.header.xid == header.xid; });
        if (it == cs.fifo.end()) return problem(f, "no pending request has that xid");
        // A client would drop the connection here; forget the skipped requests so that one missing reply is
        // reported once, not again at every later reply.
        it = cs.fifo.erase(cs.fifo.begin(), it);
      }
      e.answers = *it;
      e.op = t_.entries[*it].op;
      cs.fifo.erase(it);
    }
    if (auto ec = decode_reply(f.payload, e.op, e.rep)) {
      return problem(f, "decode_reply as " + std::string(op_code_name(e.op)) + ": " + ec.message());
    }
    e.decoded = true;
    if (e.op == op_code::notification) {
      watcher_event event;
      if (auto ec = decode_notification(f.payload, event)) {
        problem(f, "decode_notification: " + ec.message());
      } else if (event != std::get<watcher_event>(e.rep.body)) {
        problem(f, "decode_notification and decode_reply disagree");
      }
      const auto type = static_cast<std::int32_t>(event.type);
      if (type < 1 || type > 4) problem(f, "event type " + std::to_string(type) + " is not a wire event type");
      if (event.state != keeper_state::sync_connected) problem(f, "event state is not SyncConnected");
    }
    std::string out;
    const auto ec = encode_reply_frame(out, e.rep);
    check_reencoding(f, ec, out, [&e](std::string_view p) {
      reply again;
      return !decode_reply(p, e.op, again) && again == e.rep;
    });
  }

  void end_connection(int connection) {
    const connection_state& cs = conns_[connection];
    if (!cs.connect_request) problem_at(connection, "no ConnectRequest");
    std::string unanswered;
    for (std::size_t i : cs.fifo) {
      unanswered += ' ';
      unanswered += std::to_string(t_.entries[i].req.header.xid);
    }
    if (!unanswered.empty()) problem_at(connection, "requests never answered, xids" + unanswered);
    if (cs.pings != 0) problem_at(connection, std::to_string(cs.pings) + " ping(s) never answered");
    if (cs.auths != 0) problem_at(connection, std::to_string(cs.auths) + " auth(s) never answered");
  }

  const capture& cap_;
  transcript t_;
  std::map<int, connection_state> conns_;
};

// Captures are read and replayed once per process; entries point into the cached capture.
const transcript& replayed(const std::string& name) {
  static std::map<std::string, capture> captures;
  static std::map<std::string, transcript> transcripts;
  if (auto it = transcripts.find(name); it != transcripts.end()) return it->second;
  const capture& c = captures.emplace(name, golden::read_capture(name)).first->second;
  return transcripts.emplace(name, replayer(c).run()).first->second;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers for the checks below.
// ---------------------------------------------------------------------------------------------------------------

// The frame kind as data/INDEX spells it (capture.py's decoder), e.g. "C:getData(4)", "S:create reply NONODE".
std::string index_kind(const entry& e) {
  switch (e.k) {
    case kind::connect_request:
      return "ConnectRequest(" + std::to_string(e.src->payload.size()) + "B)";
    case kind::connect_response:
      return "ConnectResponse(" + std::to_string(e.src->payload.size()) + "B)";
    case kind::request:
      if (e.op == op_code::ping) return "C:ping(11,xid-2)";
      return "C:" + std::string(op_code_name(e.op)) + "(" + std::to_string(static_cast<std::int32_t>(e.op)) + ")";
    case kind::reply:
      if (e.op == op_code::notification) {
        return "S:event " + std::string(event_type_name(std::get<watcher_event>(e.rep.body).type));
      }
      if (e.op == op_code::ping) return "S:ping reply";
      return "S:" + std::string(op_code_name(e.op)) + " reply " + std::string(server_error_name(e.rep.header.err));
  }
  return "?";
}

// The path field of a request body, or "" for bodies without one.
std::string request_path(const request& r) {
  return std::visit(
      [](const auto& b) -> std::string {
        if constexpr (requires { b.path; }) {
          return b.path;
        } else {
          return {};
        }
      },
      r.body);
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::vector<const entry*> entries_of(const transcript& t, kind k, int connection = 0) {
  std::vector<const entry*> out;
  for (const auto& e : t.entries) {
    if (e.k == k && e.decoded && (connection == 0 || e.src->connection == connection)) out.push_back(&e);
  }
  return out;
}

// The decoded request with this op and path (the n-th such, 0-based).
const entry* find_request(const transcript& t, op_code op, const std::string& path, std::size_t n = 0) {
  for (const auto& e : t.entries) {
    if (e.k == kind::request && e.decoded && e.op == op && request_path(e.req) == path && n-- == 0) return &e;
  }
  return nullptr;
}

// The decoded request with this op (the n-th such, 0-based).
const entry* find_op(const transcript& t, op_code op, std::size_t n = 0) {
  for (const auto& e : t.entries) {
    if (e.k == kind::request && e.decoded && e.op == op && n-- == 0) return &e;
  }
  return nullptr;
}

std::size_t index_of(const transcript& t, const entry* e) { return static_cast<std::size_t>(e - t.entries.data()); }

// The decoded reply to the request entry `req`.
const entry* reply_to(const transcript& t, const entry* req) {
  if (req == nullptr) return nullptr;
  const std::size_t i = index_of(t, req);
  for (const auto& e : t.entries) {
    if ((e.k == kind::reply || e.k == kind::connect_response) && e.decoded && e.answers == i) return &e;
  }
  return nullptr;
}

template <class T, class Variant>
struct is_alternative;
template <class T, class... Ts>
struct is_alternative<T, std::variant<Ts...>> : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

// The body of a decoded request or reply entry, if it holds a Body.
template <class Body>
const Body* body_of(const entry* e) {
  if (e == nullptr || !e->decoded) return nullptr;
  if constexpr (is_alternative<Body, request_body>::value) {
    if (e->k == kind::request) return std::get_if<Body>(&e->req.body);
  }
  if constexpr (is_alternative<Body, response_body>::value) {
    if (e->k == kind::reply) return std::get_if<Body>(&e->rep.body);
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// Per capture: replay without problems, and agree with data/INDEX.
// ---------------------------------------------------------------------------------------------------------------

class golden_capture : public ::testing::TestWithParam<std::string> {};

TEST_P(golden_capture, decodes_routes_and_reencodes_every_frame) {
  const transcript& t = replayed(GetParam());
  for (const auto& p : t.problems) ADD_FAILURE() << p;
  EXPECT_FALSE(t.entries.empty()) << "no frames in " << GetParam();
  // Every listed deviation of this capture must still be needed.
  for (std::size_t i = 0; i < std::size(known_deviations); ++i) {
    if (known_deviations[i].capture != GetParam()) continue;
    EXPECT_TRUE(t.deviations_used.contains(i))
        << "stale known_deviations entry: frame #" << known_deviations[i].frame << " of " << GetParam()
        << " re-encodes identically or does not exist (" << known_deviations[i].reason << ")";
  }
  std::cout << "[ golden   ] " << GetParam() << ": " << t.entries.size() << " frames, " << t.identical
            << " byte-identical, " << t.deviating << " listed deviations\n";
}

TEST_P(golden_capture, frame_kinds_match_index) {
  std::vector<std::string> errors;
  const auto index = golden::read_index(errors);
  for (const auto& e : errors) ADD_FAILURE() << e;
  const auto row = index.find(GetParam());
  ASSERT_NE(row, index.end()) << GetParam() << " has no row in data/INDEX";
  const transcript& t = replayed(GetParam());
  golden::index_row ours;
  for (const auto& e : t.entries) {
    if (e.decoded) ++ours[index_kind(e)];
  }
  EXPECT_EQ(ours, row->second);
}

std::string capture_test_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(data, golden_capture, ::testing::ValuesIn(golden::capture_names()), capture_test_name);

// ---------------------------------------------------------------------------------------------------------------
// Across captures: they exist, match data/INDEX, and cover what they are meant to cover.
// ---------------------------------------------------------------------------------------------------------------

// Every request opcode a 3.8 client sends, except the ones README.md explains are not captured (standalone check,
// deleteContainer, createSession).
constexpr op_code required_request_ops[] = {
    op_code::create,
    op_code::delete_,
    op_code::exists,
    op_code::get_data,
    op_code::set_data,
    op_code::get_acl,
    op_code::set_acl,
    op_code::get_children,
    op_code::sync,
    op_code::ping,
    op_code::get_children2,
    op_code::multi,
    op_code::create2,
    op_code::reconfig,
    op_code::check_watches,
    op_code::remove_watches,
    op_code::create_container,
    op_code::create_ttl,
    op_code::multi_read,
    op_code::auth,
    op_code::set_watches,
    op_code::sasl,
    op_code::get_ephemerals,
    op_code::get_all_children_number,
    op_code::set_watches2,
    op_code::add_watch,
    op_code::who_am_i,
    op_code::close_session,
};

// Ops that must appear inside a multi/multiRead request, and result types inside a multi response.
constexpr op_code required_multi_ops[] = {
    op_code::create, op_code::create_container, op_code::create_ttl, op_code::delete_, op_code::set_data,
    op_code::check,  op_code::get_children,     op_code::get_data,
};
constexpr op_code required_multi_results[] = {
    op_code::create, op_code::create2,      op_code::delete_,  op_code::set_data,
    op_code::check,  op_code::get_children, op_code::get_data, op_code::error,
};

// Ops whose successful (err 0) reply body must have been decoded at least once.
constexpr op_code required_success_replies[] = {
    op_code::create,
    op_code::delete_,
    op_code::exists,
    op_code::get_data,
    op_code::set_data,
    op_code::get_acl,
    op_code::set_acl,
    op_code::get_children,
    op_code::sync,
    op_code::ping,
    op_code::get_children2,
    op_code::multi,
    op_code::create2,
    op_code::check_watches,
    op_code::remove_watches,
    op_code::create_container,
    op_code::create_ttl,
    op_code::multi_read,
    op_code::auth,
    op_code::set_watches,
    op_code::sasl,
    op_code::get_ephemerals,
    op_code::get_all_children_number,
    op_code::set_watches2,
    op_code::add_watch,
    op_code::who_am_i,
    op_code::close_session,
    op_code::notification,
};

constexpr event_type required_events[] = {event_type::node_created, event_type::node_deleted,
                                          event_type::node_data_changed, event_type::node_children_changed};

constexpr server_error required_errors[] = {
    server_error::no_node,       server_error::no_auth,
    server_error::bad_version,   server_error::no_children_for_ephemerals,
    server_error::node_exists,   server_error::not_empty,
    server_error::invalid_acl,   server_error::auth_failed,
    server_error::no_watcher,    server_error::reconfig_disabled,
    server_error::bad_arguments,
};

TEST(golden_captures, exist_and_match_index) {
  const auto names = golden::capture_names();
  ASSERT_FALSE(names.empty()) << "no *.frames in " << golden::golden_dir();
  std::vector<std::string> errors;
  const auto index = golden::read_index(errors);
  for (const auto& e : errors) ADD_FAILURE() << e;
  std::set<std::string> indexed;
  for (const auto& [name, row] : index) indexed.insert(name);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), indexed);
  // Every opcode data/INDEX lists as sent by a client is one this test requires (so a new capture with a new
  // opcode is noticed here), and every required one is listed.
  std::set<std::int32_t> index_ops;
  for (const auto& [name, row] : index) {
    for (const auto& [item, count] : row) {
      if (item.rfind("C:", 0) != 0) continue;
      const auto open = item.find('(');
      ASSERT_NE(open, std::string::npos) << item;
      index_ops.insert(std::stoi(item.substr(open + 1)));
    }
  }
  std::set<std::int32_t> required;
  for (op_code op : required_request_ops) required.insert(static_cast<std::int32_t>(op));
  EXPECT_EQ(index_ops, required);
}

TEST(golden_captures, cover_the_protocol) {
  std::set<op_code> requests;
  std::set<op_code> multi_ops;
  std::set<op_code> multi_results;
  std::set<op_code> successes;
  std::set<event_type> events;
  std::set<std::int32_t> errors;
  std::size_t frames = 0;
  std::size_t identical = 0;
  std::size_t deviating = 0;
  bool new_session = false;
  bool resumed_session = false;
  bool expired_session = false;
  bool read_only_request = false;
  for (const auto& name : golden::capture_names()) {
    const transcript& t = replayed(name);
    frames += t.entries.size();
    identical += t.identical;
    deviating += t.deviating;
    for (const auto& e : t.entries) {
      if (!e.decoded) continue;
      switch (e.k) {
        case kind::connect_request:
          read_only_request |= e.creq.read_only;
          break;
        case kind::connect_response: {
          const connect_request& sent = t.entries[*e.answers].creq;
          if (is_session_expired(sent, e.cresp)) {
            expired_session = true;
          } else if (sent.session_id == 0) {
            new_session = true;
          } else {
            resumed_session = true;
          }
          break;
        }
        case kind::request:
          requests.insert(e.op);
          if (const auto* m = body_of<multi_request>(&e)) {
            for (const auto& op : m->ops) multi_ops.insert(op.type);
          }
          break;
        case kind::reply:
          if (e.rep.header.err != 0) {
            errors.insert(e.rep.header.err);
            break;
          }
          successes.insert(e.op);
          if (const auto* m = body_of<multi_response>(&e)) {
            for (const auto& r : m->results) {
              multi_results.insert(r.type);
              if (r.err != 0) errors.insert(r.err);
            }
          }
          if (const auto* w = body_of<watcher_event>(&e)) events.insert(w->type);
          break;
      }
    }
  }
  for (op_code op : required_request_ops) EXPECT_TRUE(requests.contains(op)) << "no request " << op_code_name(op);
  for (op_code op : required_multi_ops) EXPECT_TRUE(multi_ops.contains(op)) << "no multi op " << op_code_name(op);
  for (op_code op : required_multi_results) {
    EXPECT_TRUE(multi_results.contains(op)) << "no multi result of type " << op_code_name(op);
  }
  for (op_code op : required_success_replies) {
    EXPECT_TRUE(successes.contains(op)) << "no successful reply to " << op_code_name(op);
  }
  for (event_type ev : required_events) EXPECT_TRUE(events.contains(ev)) << "no event " << event_type_name(ev);
  for (server_error err : required_errors) {
    EXPECT_TRUE(errors.contains(static_cast<std::int32_t>(err)))
        << "no error " << server_error_name(static_cast<std::int32_t>(err));
  }
  EXPECT_TRUE(errors.contains(static_cast<std::int32_t>(server_error::runtime_inconsistency)));
  EXPECT_TRUE(new_session);
  EXPECT_TRUE(resumed_session);
  EXPECT_TRUE(expired_session);
  EXPECT_TRUE(read_only_request);
  std::cout << "[ golden   ] " << golden::capture_names().size() << " captures, " << frames << " frames, " << identical
            << " byte-identical, " << deviating << " listed deviations\n";
}

// Described records (proto/src/records.hpp) that no capture holds, each with the reason; every other described
// record must occur in some decoded frame, so a record added to the registry is checked against real traffic (or
// listed here with why it cannot be).
// Today every one is captured; an entry reads uncaptured{"get_sasl_request", "why no client sends it"}.
struct uncaptured {
  std::string_view record;
  std::string_view reason;
};
constexpr std::array<uncaptured, 0> uncaptured_records{};

template <class Record>
std::string_view record_name() {
  // "... [Record = zkwire::proto::create_request]" (clang), "... [with Record = zkwire::proto::create_request; ...]"
  // (GCC): the unqualified name.
  std::string_view name = __PRETTY_FUNCTION__;
  name = name.substr(name.find("Record = ") + 9);
  name = name.substr(0, name.find_first_of("];"));
  return name.substr(name.rfind("::") + 2);
}

TEST(golden_captures, hold_every_described_record) {
  std::set<std::string_view> seen;
  const auto mark = [&seen](const auto& record) { seen.insert(record_name<std::remove_cvref_t<decltype(record)>>()); };
  for (const auto& name : golden::capture_names()) {
    for (const auto& e : replayed(name).entries) {
      if (!e.decoded) continue;
      switch (e.k) {
        case kind::connect_request:
          test::for_each_record_in(e.creq, mark);
          break;
        case kind::connect_response:
          test::for_each_record_in(e.cresp, mark);
          break;
        case kind::request:
          test::for_each_record_in(e.req.header, mark);
          std::visit([&](const auto& body) { test::for_each_record_in(body, mark); }, e.req.body);
          break;
        case kind::reply:
          test::for_each_record_in(e.rep.header, mark);
          std::visit([&](const auto& body) { test::for_each_record_in(body, mark); }, e.rep.body);
          break;
      }
    }
  }
  std::set<std::string_view> described;
  test::registry::for_each_record([&](auto type) { described.insert(record_name<typename decltype(type)::type>()); });
  std::set<std::string_view> exempt;
  for (const auto& u : uncaptured_records) {
    EXPECT_TRUE(described.contains(u.record)) << "uncaptured_records names " << u.record << ", not a described record";
    exempt.insert(u.record);
  }
  EXPECT_EQ(described.size(), test::registry::record_count);
  for (const std::string_view name : described) {
    if (exempt.contains(name)) {
      EXPECT_FALSE(seen.contains(name)) << name << " is in the captures now: drop it from uncaptured_records";
    } else {
      EXPECT_TRUE(seen.contains(name)) << "no capture holds a " << name
                                       << ": capture one (tests/golden/README.md) or list it in uncaptured_records";
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Protocol facts read straight from the captures.
// ---------------------------------------------------------------------------------------------------------------

const multi_response* multi_reply(const transcript& t, int xid) {
  for (const auto& e : t.entries) {
    if (e.k == kind::request && e.decoded && e.req.header.xid == xid) return body_of<multi_response>(reply_to(t, &e));
  }
  return nullptr;
}

std::vector<op_code> result_types(const multi_response& m) {
  std::vector<op_code> out;
  for (const auto& r : m.results) out.push_back(r.type);
  return out;
}

std::vector<std::int32_t> result_errs(const multi_response& m) {
  std::vector<std::int32_t> out;
  for (const auto& r : m.results) out.push_back(r.err);
  return out;
}

TEST(golden_facts, kazoo_multi_results_and_first_error) {
  const transcript& t = replayed("kazoo_multi");
  const multi_response* ok = multi_reply(t, 1);
  const multi_response* at2 = multi_reply(t, 2);
  const multi_response* at1 = multi_reply(t, 3);
  ASSERT_TRUE(ok && at2 && at1);

  EXPECT_EQ(result_types(*ok),
            (std::vector<op_code>{op_code::create, op_code::set_data, op_code::check, op_code::delete_}));
  EXPECT_FALSE(first_error(*ok));
  EXPECT_EQ(std::get<create_response>(ok->results[0].body).path, "/g/t");

  // Failure at op 2: every result is an error result; rolled back 0, the failing op's error, then -2.
  EXPECT_EQ(result_types(*at2), std::vector<op_code>(3, op_code::error));
  EXPECT_EQ(result_errs(*at2), (std::vector<std::int32_t>{0, -103, -2}));
  EXPECT_EQ(first_error(*at2), server_error::bad_version);
  EXPECT_EQ(first_error_index(*at2), 1U);

  EXPECT_EQ(result_errs(*at1), (std::vector<std::int32_t>{-101, -2}));
  EXPECT_EQ(first_error(*at1), server_error::no_node);
  EXPECT_EQ(first_error_index(*at1), 0U);
}

TEST(golden_facts, java_multi_results_and_first_error) {
  const transcript& t = replayed("java_multi");
  const multi_response* plain = multi_reply(t, 1);
  const multi_response* extended = multi_reply(t, 2);
  const multi_response* failed = multi_reply(t, 3);
  ASSERT_TRUE(plain && extended && failed);
  EXPECT_EQ(result_types(*plain), (std::vector<op_code>{op_code::create, op_code::create, op_code::set_data,
                                                        op_code::check, op_code::delete_}));
  // createContainer and createTTL inside a multi come back as type 15 (with Stat), a plain create as type 1.
  EXPECT_EQ(result_types(*extended), (std::vector<op_code>{op_code::create2, op_code::create2, op_code::create}));
  EXPECT_EQ(std::get<create2_response>(extended->results[0].body).path, "/g/mc");
  EXPECT_EQ(std::get<create_response>(extended->results[2].body).path.rfind("/g/ms-", 0), 0U);
  EXPECT_EQ(first_error(*failed), server_error::bad_version);
  EXPECT_EQ(first_error_index(*failed), 1U);
}

TEST(golden_facts, session_expired_connect_response) {
  const transcript& t = replayed("kazoo_session_expired");
  const auto requests = entries_of(t, kind::connect_request);
  const auto responses = entries_of(t, kind::connect_response);
  ASSERT_EQ(requests.size(), 3U);
  ASSERT_EQ(responses.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) ASSERT_EQ(responses[i]->answers, index_of(t, requests[i]));

  EXPECT_FALSE(is_session_expired(requests[0]->creq, responses[0]->cresp));

  // The resume attempt carries the first session's id and password and gets the invalid-session response.
  const connect_request& resume = requests[1]->creq;
  const connect_response& invalid = responses[1]->cresp;
  EXPECT_EQ(resume.session_id, responses[0]->cresp.session_id);
  EXPECT_EQ(resume.passwd, responses[0]->cresp.passwd);
  EXPECT_GT(resume.last_zxid_seen, 0);
  EXPECT_TRUE(is_session_expired(resume, invalid));
  EXPECT_EQ(invalid.timeout, 0);
  EXPECT_EQ(invalid.session_id, 0);
  EXPECT_EQ(invalid.passwd, std::string(password_length, '\0'));
  EXPECT_FALSE(invalid.read_only);
  EXPECT_EQ(responses[1]->src->payload.size(), connect_response_size);
  // The server closed that connection right after: nothing else travelled on it.
  EXPECT_EQ(entries_of(t, kind::request, 2).size(), 0U);
  EXPECT_EQ(entries_of(t, kind::reply, 2).size(), 0U);

  // Kazoo then starts over: a new session with lastZxidSeen 0.
  EXPECT_EQ(requests[2]->creq.session_id, 0);
  EXPECT_EQ(requests[2]->creq.last_zxid_seen, 0);
  EXPECT_FALSE(is_session_expired(requests[2]->creq, responses[2]->cresp));
}

// lastZxidSeen as a client computes it: the highest zxid > 0 of normal replies (not notifications, pings, auth).
std::int64_t last_zxid_seen(const transcript& t, int connection) {
  std::int64_t zxid = 0;
  for (const entry* e : entries_of(t, kind::reply, connection)) {
    if (e->rep.header.xid > 0) zxid = std::max(zxid, e->rep.header.zxid);
  }
  return zxid;
}

TEST(golden_facts, resumed_sessions_keep_id_and_password) {
  for (const std::string name : {"kazoo_reconnect", "java_setwatches", "java_setwatches2"}) {
    SCOPED_TRACE(name);
    const transcript& t = replayed(name);
    const auto requests = entries_of(t, kind::connect_request);
    const auto responses = entries_of(t, kind::connect_response);
    ASSERT_EQ(requests.size(), 2U);
    ASSERT_EQ(responses.size(), 2U);
    const connect_request& resume = requests[1]->creq;
    EXPECT_NE(resume.session_id, 0);
    EXPECT_EQ(resume.session_id, responses[0]->cresp.session_id);
    EXPECT_EQ(resume.passwd, responses[0]->cresp.passwd);
    EXPECT_EQ(resume.last_zxid_seen, last_zxid_seen(t, 1));
    EXPECT_FALSE(is_session_expired(resume, responses[1]->cresp));
    EXPECT_EQ(responses[1]->cresp.session_id, resume.session_id);
    EXPECT_EQ(responses[1]->cresp.passwd, resume.passwd);
  }
  // Kazoo restarts its xids at 1 on the new connection.
  const auto kazoo = entries_of(replayed("kazoo_reconnect"), kind::request, 2);
  ASSERT_FALSE(kazoo.empty());
  EXPECT_EQ(kazoo.front()->req.header.xid, 1);
}

TEST(golden_facts, set_watches_uses_last_zxid_and_fires_before_its_reply) {
  const transcript& t = replayed("java_setwatches");
  const auto sw = std::find_if(t.entries.begin(), t.entries.end(),
                               [](const entry& e) { return e.k == kind::request && e.op == op_code::set_watches; });
  ASSERT_NE(sw, t.entries.end());
  const auto& body = std::get<set_watches>(sw->req.body);
  EXPECT_GT(sw->req.header.xid, 0);  // the Java client uses a normal xid, not -8
  EXPECT_EQ(body.relative_zxid, entries_of(t, kind::connect_request, 2).at(0)->creq.last_zxid_seen);
  EXPECT_EQ(std::set<std::string>(body.data_watches.begin(), body.data_watches.end()),
            (std::set<std::string>{"/g/a", "/g/d"}));
  EXPECT_EQ(body.exist_watches, std::vector<std::string>{"/g/x"});
  EXPECT_EQ(body.child_watches, std::vector<std::string>{"/g/c"});
  const entry* reply = reply_to(t, &*sw);
  ASSERT_NE(reply, nullptr);
  // The catch-up events for the changes made while disconnected arrive while SetWatches is pending.
  std::vector<std::string> catch_up;
  for (const auto& e : t.entries) {
    if (e.k == kind::reply && e.op == op_code::notification &&
        std::find(e.pending.begin(), e.pending.end(), index_of(t, &*sw)) != e.pending.end()) {
      const auto& ev = std::get<watcher_event>(e.rep.body);
      catch_up.push_back(std::string(event_type_name(ev.type)) + " " + ev.path);
    }
  }
  EXPECT_EQ(catch_up, (std::vector<std::string>{"NodeDataChanged /g/a", "NodeCreated /g/x"}));
}

TEST(golden_facts, notifications_precede_the_reply_of_their_cause) {
  const transcript& t = replayed("kazoo_watches");
  std::vector<std::string> caused;  // "<event> <path> before reply to <op> <path>"
  std::vector<std::string> lone;
  for (const auto& e : t.entries) {
    if (e.k != kind::reply || e.op != op_code::notification || !e.decoded) continue;
    const auto& ev = std::get<watcher_event>(e.rep.body);
    const entry* cause = nullptr;
    for (std::size_t i : e.pending) {
      const entry& r = t.entries[i];
      const std::string path = request_path(r.req);
      const bool write = r.op == op_code::create || r.op == op_code::delete_ || r.op == op_code::set_data;
      const std::string watched = ev.type == event_type::node_children_changed ? parent_of(path) : path;
      if (write && watched == ev.path) cause = &r;
    }
    const std::string what = std::string(event_type_name(ev.type)) + " " + ev.path;
    if (cause == nullptr) {
      lone.push_back(what);
      continue;
    }
    // Pending means its reply comes later; check that it does arrive.
    const entry* cause_reply = reply_to(t, cause);
    ASSERT_NE(cause_reply, nullptr) << what;
    EXPECT_GT(index_of(t, cause_reply), index_of(t, &e)) << what;
    caused.push_back(what + " before " + std::string(op_code_name(cause->op)) + " " + request_path(cause->req));
  }
  EXPECT_EQ(caused, (std::vector<std::string>{
                        "NodeCreated /g/x before create /g/x",
                        "NodeDataChanged /g/a before setData /g/a",
                        "NodeChildrenChanged /g/c before create /g/c/1",
                        "NodeDeleted /g/b before delete /g/b",
                        "NodeDeleted /g/d before delete /g/d",  // one event for the data and the child watch
                        "NodeChildrenChanged /g/c before delete /g/c/1",
                    }));
  // Another session's setData: the event arrives on its own, with nothing pending.
  EXPECT_EQ(lone, std::vector<std::string>{"NodeDataChanged /g/a"});
}

TEST(golden_facts, null_and_empty_data_stay_distinct) {
  const transcript& read = replayed("kazoo_read");
  const auto* null_data = body_of<get_data_response>(reply_to(read, find_request(read, op_code::get_data, "/g/n")));
  const auto* empty_data = body_of<get_data_response>(reply_to(read, find_request(read, op_code::get_data, "/g/e")));
  const auto* hello = body_of<get_data_response>(reply_to(read, find_request(read, op_code::get_data, "/g/a")));
  ASSERT_TRUE(null_data && empty_data && hello);
  EXPECT_EQ(null_data->data, std::nullopt);
  EXPECT_EQ(empty_data->data, std::optional<std::string>(""));
  EXPECT_EQ(hello->data, std::optional<std::string>("hello"));

  const transcript& create = replayed("kazoo_create");
  const auto* null_create = body_of<create_request>(find_request(create, op_code::create, "/g/n"));
  const auto* empty_create = body_of<create_request>(find_request(create, op_code::create, "/g/m"));
  ASSERT_TRUE(null_create && empty_create);
  EXPECT_EQ(null_create->data, std::nullopt);
  EXPECT_EQ(empty_create->data, std::optional<std::string>(""));

  const transcript& write = replayed("kazoo_write");
  bool null_set_data = false;
  for (const entry* e : entries_of(write, kind::request)) {
    if (const auto* s = body_of<set_data_request>(e)) null_set_data |= !s->data.has_value();
  }
  EXPECT_TRUE(null_set_data) << "kazoo_write sets null data once";
}

TEST(golden_facts, handshake_variants) {
  const transcript& ro = replayed("kazoo_handshake_ro");
  const auto requests = entries_of(ro, kind::connect_request);
  const auto responses = entries_of(ro, kind::connect_response);
  ASSERT_EQ(requests.size(), 1U);
  ASSERT_EQ(responses.size(), 1U);
  EXPECT_TRUE(requests[0]->creq.read_only);
  EXPECT_FALSE(responses[0]->cresp.read_only);  // a read-write server

  const transcript& ping = replayed("kazoo_handshake_ping");
  EXPECT_EQ(entries_of(ping, kind::connect_request).at(0)->creq.timeout, 1000);
  std::size_t pings = 0;
  for (const entry* e : entries_of(ping, kind::request)) {
    if (e->op != op_code::ping) continue;
    ++pings;
    EXPECT_EQ(e->src->payload.size(), request_header_size);
  }
  EXPECT_EQ(pings, 6U);
}

TEST(golden_facts, auth_failed_replies) {
  for (const std::string name : {"kazoo_auth_failed", "java_auth_failed"}) {
    SCOPED_TRACE(name);
    const transcript& t = replayed(name);
    std::size_t failed = 0;
    for (const entry* e : entries_of(t, kind::reply)) {
      ASSERT_EQ(e->op, op_code::auth);
      EXPECT_EQ(e->rep.header.xid, special_xid::auth);
      EXPECT_EQ(error_from_wire(e->rep.header.err), server_error::auth_failed);
      EXPECT_TRUE(is_session_fatal(error_from_wire(e->rep.header.err)));
      ++failed;
    }
    EXPECT_EQ(failed, static_cast<std::size_t>(t.entries.back().src->connection));  // one per connection
  }
}

TEST(golden_facts, java_only_replies) {
  const transcript& info = replayed("java_info");
  const auto* config =
      body_of<get_data_response>(reply_to(info, find_request(info, op_code::get_data, "/zookeeper/config")));
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->data, std::optional<std::string>(""));
  EXPECT_EQ(config->stat.aversion, -1);
  const auto* who = body_of<who_am_i_response>(reply_to(info, find_op(info, op_code::who_am_i)));
  ASSERT_NE(who, nullptr);
  EXPECT_EQ(who->client_info, (std::vector<client_info>{{"digest", "bob"}, {"ip", "127.0.0.1"}}));
  const auto* all = body_of<get_all_children_number_response>(
      reply_to(info, find_request(info, op_code::get_all_children_number, "/g")));
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->total_number, 4);  // all descendants: e1, e2, p, p/q

  const transcript& watches = replayed("java_addwatch");
  std::size_t add_watch_replies = 0;
  for (const entry* e : entries_of(watches, kind::reply)) {
    if (e->op != op_code::add_watch) continue;
    ++add_watch_replies;
    EXPECT_EQ(e->src->payload.size(), reply_header_size + 4);
    ASSERT_NE(body_of<error_response>(e), nullptr);
    EXPECT_EQ(body_of<error_response>(e)->err, 0);
  }
  EXPECT_EQ(add_watch_replies, 2U);

  const transcript& sasl = replayed("java_sasl");
  const auto sasl_requests = entries_of(sasl, kind::request);
  ASSERT_FALSE(sasl_requests.empty());
  const auto* first_token = body_of<get_sasl_request>(sasl_requests.front());
  ASSERT_NE(first_token, nullptr);
  EXPECT_EQ(first_token->token, "");  // an empty buffer (length 0), not null
  EXPECT_GT(sasl_requests.front()->req.header.xid, 0);
  const entry* challenge = reply_to(sasl, sasl_requests.front());
  ASSERT_NE(challenge, nullptr);
  EXPECT_EQ(challenge->rep.header.zxid, 0);
  ASSERT_NE(body_of<set_sasl_response>(challenge), nullptr);
  EXPECT_TRUE(body_of<set_sasl_response>(challenge)->token.has_value());

  const transcript& reconfig = replayed("java_reconfig");
  const std::vector<const entry*> reconfigs{find_op(reconfig, op_code::reconfig, 0),
                                            find_op(reconfig, op_code::reconfig, 1)};
  ASSERT_TRUE(reconfigs[0] && reconfigs[1]);
  EXPECT_EQ(find_op(reconfig, op_code::reconfig, 2), nullptr);
  const auto* joining = body_of<reconfig_request>(reconfigs[0]);
  const auto* leaving = body_of<reconfig_request>(reconfigs[1]);
  ASSERT_TRUE(joining && leaving);
  EXPECT_EQ(joining->joining_servers, std::optional<std::string>("server.9=127.0.0.1:2889:3889;2189"));
  EXPECT_EQ(joining->leaving_servers, std::nullopt);
  EXPECT_EQ(joining->new_members, std::nullopt);
  EXPECT_EQ(leaving->joining_servers, std::nullopt);
  EXPECT_EQ(leaving->leaving_servers, std::optional<std::string>("3"));
  for (const entry* r : reconfigs) {
    const entry* answer = reply_to(reconfig, r);
    ASSERT_NE(answer, nullptr);
    EXPECT_EQ(error_from_wire(answer->rep.header.err), server_error::reconfig_disabled);
    EXPECT_EQ(answer->src->payload.size(), reply_header_size);  // no body with an error
  }
}

}  // namespace
}  // namespace zkwire::proto
