#include "zkwire/proto/error.hpp"

#include <string>

#include "zkwire/jute/error.hpp"

namespace zkwire::proto {
namespace {

struct server_error_info {
  std::int32_t code;
  std::string_view name;
  const char* message;
};

// One row per server error code (docs/protocol.md#error-codes); messages say what happened, then what the caller can
// do.
constexpr server_error_info server_errors[] = {
    {0, "OK", "ok"},
    {-1, "SYSTEMERROR", "system error on the server (SYSTEMERROR)"},
    {-2, "RUNTIMEINCONSISTENCY",
     "runtime inconsistency (RUNTIMEINCONSISTENCY): in a multi, this op was not run because an earlier op failed"},
    {-3, "DATAINCONSISTENCY", "data inconsistency on the server (DATAINCONSISTENCY)"},
    {-4, "CONNECTIONLOSS",
     "connection lost (CONNECTIONLOSS): the outcome of the request is unknown; read back or retry"},
    {-5, "MARSHALLINGERROR",
     "the server could not decode the request (MARSHALLINGERROR): a null field, or read and write ops mixed in one "
     "multi"},
    {-6, "UNIMPLEMENTED",
     "not supported by the server (UNIMPLEMENTED): TTL nodes need -Dzookeeper.extendedTypesEnabled=true"},
    {-7, "OPERATIONTIMEOUT", "operation timed out (OPERATIONTIMEOUT): the outcome is unknown; read back or retry"},
    {-8, "BADARGUMENTS",
     "the server rejected the arguments (BADARGUMENTS): check the path, create mode, TTL and version"},
    {-12, "UNKNOWNSESSION", "unknown session (UNKNOWNSESSION): create a new session"},
    {-13, "NEWCONFIGNOQUORUM",
     "the proposed configuration has no quorum of connected servers (NEWCONFIGNOQUORUM); retry later"},
    {-14, "RECONFIGINPROGRESS", "another reconfiguration is in progress (RECONFIGINPROGRESS); retry later"},
    {-100, "APIERROR", "API error (APIERROR)"},
    {-101, "NONODE", "node does not exist (NONODE): create it or its parent first, or check the path"},
    {-102, "NOAUTH", "not authorized (NOAUTH): the node's ACL denies this operation to the session's identities"},
    {-103, "BADVERSION",
     "version does not match (BADVERSION): the node changed since it was read; read it again and retry"},
    {-108, "NOCHILDRENFOREPHEMERALS",
     "ephemeral nodes cannot have children (NOCHILDRENFOREPHEMERALS); create under a persistent parent"},
    {-110, "NODEEXISTS", "node already exists (NODEEXISTS)"},
    {-111, "NOTEMPTY", "node has children (NOTEMPTY): delete the children first"},
    {-112, "SESSIONEXPIRED",
     "session expired (SESSIONEXPIRED): ephemeral nodes and watches are gone; create a new session"},
    {-113, "INVALIDCALLBACK", "invalid callback (INVALIDCALLBACK)"},
    {-114, "INVALIDACL",
     "invalid ACL (INVALIDACL): the list is empty, or a scheme or id is malformed or not authenticated"},
    {-115, "AUTHFAILED", "authentication failed (AUTHFAILED): the server closes the connection; create a new session"},
    {-118, "SESSIONMOVED", "session moved to another server (SESSIONMOVED); reconnect"},
    {-119, "NOTREADONLY", "the server is read-only (NOTREADONLY); retry once connected to a read-write server"},
    {-120, "EPHEMERALONLOCALSESSION", "ephemeral nodes cannot be created by a local session (EPHEMERALONLOCALSESSION)"},
    {-121, "NOWATCHER", "no such watch (NOWATCHER): nothing was registered for this path and watch type"},
    {-122, "REQUESTTIMEOUT", "request timed out (REQUESTTIMEOUT): the outcome is unknown; read back or retry"},
    {-123, "RECONFIGDISABLED", "dynamic reconfiguration is disabled (RECONFIGDISABLED): set reconfigEnabled=true"},
    {-124, "SESSIONCLOSEDREQUIRESASLAUTH",
     "session closed because SASL authentication is required (SESSIONCLOSEDREQUIRESASLAUTH); authenticate and create "
     "a new session"},
    {-125, "QUOTAEXCEEDED", "quota exceeded (QUOTAEXCEEDED): the node's subtree hit its hard count or byte limit"},
    {-127, "THROTTLEDOP", "the server is throttling requests (THROTTLEDOP): this one did not run; back off and retry"},
};

const server_error_info* find_server_error(std::int32_t code) noexcept {
  for (const auto& info : server_errors) {
    if (info.code == code) return &info;
  }
  return nullptr;
}

class server_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zookeeper"; }

  [[nodiscard]] std::string message(int value) const override {
    if (const auto* info = find_server_error(value)) return info->message;
    return "unknown ZooKeeper error " + std::to_string(value);
  }
};

class client_error_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.proto"; }

  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<client_error>(value)) {
      case client_error::connection_loss:
        return "connection lost, outcome unknown: the request may or may not have been applied; read back or retry";
      case client_error::session_expired:
        return "session expired: ephemeral nodes and watches are gone; create a new session";
      case client_error::closed:
        return "session closed: the client or session was closed; create a new one to continue";
      case client_error::operation_timeout:
        return "no reply in time, outcome unknown: the operation timed out; read back or retry";
      case client_error::cancelled:
        return "cancelled: the request may still be applied by the server if it was already sent; read back";
      case client_error::frame_too_large:
        return "reply larger than the client accepts (client_options::max_frame_size, 64 MiB by default; the CLI's "
               "--max-frame-size): raise the limit to read it; only this request failed";
      case client_error::request_too_large:
        return "request larger than the server accepts (jute.maxbuffer, 1048575 bytes by default): send less data";
      case client_error::protocol_violation:
        return "protocol error from the server, connection dropped: it sent a malformed or unexpected frame";
      case client_error::truncated_frame:
        return "protocol error from the server, connection dropped: a frame ended in the middle of a record";
      case client_error::invalid_path:
        return "invalid path: ZooKeeper paths are absolute, '/'-separated, without empty, '.' or '..' "
               "components, a trailing '/' or control, surrogate, private-use or non-BMP characters";
      case client_error::invalid_argument:
        return "invalid argument: the request cannot be encoded as given";
      case client_error::sasl_failed:
        return "SASL authentication failed, wrong user name or password: the server rejected them (AUTHFAILED); the "
               "session is over, check the credentials";
      case client_error::sasl_exchange_failed:
        return "SASL authentication failed, the server's DIGEST-MD5 exchange was malformed or did not prove it "
               "knows the password: the session is over";
    }
    return "unknown zkwire.proto error " + std::to_string(value);
  }
};

bool server_code_is(int value, condition c) noexcept {
  switch (static_cast<server_error>(value)) {
    case server_error::connection_loss:
      return c == condition::connection_loss;
    case server_error::operation_timeout:
      return c == condition::connection_loss || c == condition::timeout;
    case server_error::request_timeout:
      return c == condition::timeout;
    case server_error::session_expired:
      return c == condition::session_ended || c == condition::session_expired;
    case server_error::auth_failed:
    case server_error::session_closed_require_sasl_auth:
      return c == condition::session_ended;
    case server_error::bad_arguments:
      return c == condition::invalid_argument;
    default:
      return false;
  }
}

bool client_code_is(int value, condition c) noexcept {
  switch (static_cast<client_error>(value)) {
    case client_error::connection_loss:
      return c == condition::connection_loss;
    case client_error::operation_timeout:
      return c == condition::connection_loss || c == condition::timeout;
    case client_error::session_expired:
      return c == condition::session_ended || c == condition::session_expired;
    case client_error::closed:
    case client_error::sasl_failed:
    case client_error::sasl_exchange_failed:
      return c == condition::session_ended;
    case client_error::cancelled:
      return c == condition::cancelled;
    case client_error::protocol_violation:
    case client_error::truncated_frame:
      return c == condition::protocol_violation;
    case client_error::frame_too_large:  // a reply the client would not read; the stream itself is fine
      return false;
    case client_error::invalid_path:
    case client_error::invalid_argument:
      return c == condition::invalid_argument;
    case client_error::request_too_large:
      return false;
  }
  return false;
}

// The codes of the other categories ask here whether they match a condition; the Asio layer's category answers
// for its own codes (its equivalent() override), since this layer does not know it.
class condition_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.condition"; }

  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<condition>(value)) {
      case condition::connection_loss:
        return "connection loss: the outcome of the request is unknown";
      case condition::timeout:
        return "timeout";
      case condition::session_ended:
        return "the session ended: expired, authentication failed or closed";
      case condition::session_expired:
        return "session expired";
      case condition::cancelled:
        return "cancelled";
      case condition::protocol_violation:
        return "protocol violation";
      case condition::invalid_argument:
        return "invalid argument";
    }
    return "unknown zkwire condition " + std::to_string(value);
  }

  [[nodiscard]] bool equivalent(const std::error_code& code, int value) const noexcept override {
    const auto c = static_cast<condition>(value);
    if (code.category() == server_category()) return server_code_is(code.value(), c);
    if (code.category() == client_error_category()) return client_code_is(code.value(), c);
    if (code.category() == jute::category()) {
      // value_too_large is the writer's error: about what we tried to send, not what we received.
      return c == condition::protocol_violation && code.value() != static_cast<int>(jute::error::value_too_large);
    }
    if (c == condition::cancelled) return code == std::errc::operation_canceled;
    return false;
  }
};

}  // namespace

const std::error_category& server_category() noexcept {
  static const server_category_impl instance;
  return instance;
}

const std::error_category& client_error_category() noexcept {
  static const client_error_category_impl instance;
  return instance;
}

const std::error_category& condition_category() noexcept {
  static const condition_category_impl instance;
  return instance;
}

std::string_view server_error_name(std::int32_t err) noexcept {
  if (const auto* info = find_server_error(err)) return info->name;
  return "UNKNOWN";
}

std::string error_summary(const std::error_code& ec) {
  std::string text = ec.message();
  if (ec.category() == server_category()) {
    if (const auto* info = find_server_error(ec.value())) {
      const std::string named = " (" + std::string(info->name) + ")";
      if (const auto at = text.find(named); at != std::string::npos) text.resize(at);
    }
    return text;
  }
  // The client's and the recipes' categories are above this layer: known by name.
  const std::string_view category = ec.category().name();
  if (ec.category() == client_error_category() || category == "zkwire.client" || category == "zkwire.recipes") {
    if (const auto at = text.find(": "); at != std::string::npos) text.resize(at);
  }
  return text;
}

bool is_session_fatal(const std::error_code& ec) noexcept { return ec == condition::session_ended; }

bool is_connection_loss(const std::error_code& ec) noexcept { return ec == condition::connection_loss; }

bool is_protocol_violation(const std::error_code& ec) noexcept { return ec == condition::protocol_violation; }

}  // namespace zkwire::proto
