// SASL of the C API (docs/libzookeeper.md#sasl): zookeeper_init_sasl and zoo_sasl_make_basic_callbacks, declared as
// by the 3.8 C client built with Cyrus SASL. The credentials come from the application's Cyrus-style callbacks,
// called through their function pointers; the login is zkwire's own DIGEST-MD5 (client_options::sasl). Nothing here
// calls Cyrus SASL, so the library does not link it. Compiled with HAVE_CYRUS_SASL_H (capi/CMakeLists.txt).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "session.hpp"

namespace zkwire::capi {
namespace {

constexpr std::string_view mechanism = "DIGEST-MD5";
// The longest password zoo_sasl_make_basic_callbacks reads from its file (the C client's limit too).
constexpr std::size_t max_password = 1023;

// Cyrus callbacks are stored as int (*)(void) and called as their real type. The casts go through void (*)(), the
// type GCC's -Wcast-function-type lets convert to and from any function type.
using any_function = void (*)();
template <class Function>
Function* as(int (*proc)()) {
  return reinterpret_cast<Function*>(reinterpret_cast<any_function>(proc));  // NOLINT(*-reinterpret-cast): Cyrus's ABI
}

const sasl_callback_t* find(const sasl_callback_t* callbacks, unsigned long id) {
  for (const sasl_callback_t* c = callbacks; c->id != SASL_CB_LIST_END; ++c) {
    if (c->id == id && c->proc != nullptr) return c;
  }
  return nullptr;
}

// True if the space- or comma-separated list names DIGEST-MD5 (Cyrus picks a mechanism it has from the list).
bool names_digest_md5(const char* mechlist) {
  if (mechlist == nullptr) return false;
  const std::string_view list = mechlist;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find_first_of(" ,\t", start);
    if (end == std::string_view::npos) end = list.size();
    const std::string_view name = list.substr(start, end - start);
    if (name.size() == mechanism.size() && std::equal(name.begin(), name.end(), mechanism.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == b;
        })) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// The user (SASL_CB_AUTHNAME, else SASL_CB_USER) and password (SASL_CB_PASS) the callbacks give, or why not.
std::string ask_credentials(const sasl_callback_t* callbacks, zkwire::sasl_credentials& out) {
  if (callbacks == nullptr) return "no SASL callbacks";
  const sasl_callback_t* name = find(callbacks, SASL_CB_AUTHNAME);
  if (name == nullptr) name = find(callbacks, SASL_CB_USER);
  if (name == nullptr) return "no SASL_CB_AUTHNAME or SASL_CB_USER callback";
  const char* user = nullptr;
  unsigned user_len = 0;
  if (as<sasl_getsimple_t>(name->proc)(name->context, static_cast<int>(name->id), &user, &user_len) != SASL_OK ||
      user == nullptr || *user == '\0') {
    return "the SASL user callback gave no user";
  }
  const sasl_callback_t* pass = find(callbacks, SASL_CB_PASS);
  if (pass == nullptr) return "no SASL_CB_PASS callback";
  sasl_secret_t* secret = nullptr;
  // Callbacks may insist on a connection; they get a stand-in they must not use (there is no Cyrus connection).
  static char no_connection;
  auto* conn = reinterpret_cast<sasl_conn_t*>(&no_connection);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  if (as<sasl_getsecret_t>(pass->proc)(conn, pass->context, SASL_CB_PASS, &secret) != SASL_OK || secret == nullptr) {
    return "the SASL_CB_PASS callback gave no password";
  }
  // user_len may be 0 for "NUL-terminated" (Cyrus's getsimple convention).
  out.user = user_len != 0 ? std::string(user, user_len) : std::string(user);
  out.password.assign(reinterpret_cast<const char*>(secret->data), secret->len);  // NOLINT(*-reinterpret-cast)
  return {};
}

// --- zoo_sasl_make_basic_callbacks: one malloc()ed block, so that free() of the array releases everything ---

struct basic_block {
  sasl_callback_t callbacks[5];  // NOLINT(*-avoid-c-arrays): the layout handed to C
  const char* user;
  const char* realm;
  const char* password_file;
  // The last password read (Cyrus leaves the secret with the callback); the strings follow the block.
  unsigned long secret_len;
  unsigned char secret_data[max_password + 1];  // NOLINT(*-avoid-c-arrays): sasl_secret_t's layout
};
static_assert(offsetof(basic_block, secret_data) - offsetof(basic_block, secret_len) ==
              offsetof(sasl_secret_t, data) - offsetof(sasl_secret_t, len));

int basic_simple(void* context, int id, const char** result, unsigned* len) {
  if (result == nullptr || (id != SASL_CB_USER && id != SASL_CB_AUTHNAME)) return SASL_BADPARAM;
  *result = static_cast<const basic_block*>(context)->user;
  if (len != nullptr) *len = *result != nullptr ? static_cast<unsigned>(std::strlen(*result)) : 0;
  return SASL_OK;
}

int basic_realm(void* context, int /*id*/, const char** /*availrealms*/, const char** result) {
  if (result == nullptr) return SASL_BADPARAM;
  *result = static_cast<const basic_block*>(context)->realm;
  return SASL_OK;
}

// The first line of the password file (without prompting when there is none: a library must not read the
// terminal; the C client prompts).
int basic_secret(sasl_conn_t* /*conn*/, void* context, int id, sasl_secret_t** psecret) {
  auto* block = static_cast<basic_block*>(context);
  if (psecret == nullptr || id != SASL_CB_PASS) return SASL_BADPARAM;
  if (block->password_file == nullptr) return SASL_FAIL;
  std::FILE* file = std::fopen(block->password_file, "rb");
  if (file == nullptr) return SASL_FAIL;
  char buffer[max_password + 2];  // NOLINT(*-avoid-c-arrays)
  const std::size_t read = std::fread(buffer, 1, sizeof buffer, file);
  const bool complete = std::feof(file) != 0;
  std::fclose(file);
  if (!complete || read > max_password) return SASL_FAIL;  // too long
  std::string_view password(buffer, read);
  password = password.substr(0, password.find('\n'));
  block->secret_len = password.size();
  std::memcpy(block->secret_data, password.data(), password.size());
  block->secret_data[password.size()] = '\0';
  *psecret = reinterpret_cast<sasl_secret_t*>(&block->secret_len);  // NOLINT(*-reinterpret-cast)
  return SASL_OK;
}

template <class Function>
int (*erase(Function* f))() {
  return reinterpret_cast<int (*)()>(reinterpret_cast<any_function>(f));  // NOLINT(*-reinterpret-cast): Cyrus's ABI
}

}  // namespace
}  // namespace zkwire::capi

using namespace zkwire::capi;  // NOLINT(google-build-using-namespace): the C entry points below use it throughout

extern "C" {

ZOOAPI zhandle_t* zookeeper_init_sasl(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                      void* context, int flags, log_callback_fn log_callback,
                                      zoo_sasl_params_t* sasl_params) {
  session_setup setup;
  if (sasl_params != nullptr) {
    if (!names_digest_md5(sasl_params->mechlist)) {
      setup.refused = std::string("no supported mechanism in \"") +
                      (sasl_params->mechlist != nullptr ? sasl_params->mechlist : "(null)") +
                      "\" (this library implements DIGEST-MD5 only)";
    } else {
      zkwire::sasl_credentials credentials;
      setup.refused = ask_credentials(sasl_params->callbacks, credentials);
      if (setup.refused.empty()) setup.sasl = std::move(credentials);
    }
  }
  return init_handle(host, fn, recv_timeout, clientid, context, flags, log_callback, std::move(setup));
}

ZOOAPI sasl_callback_t* zoo_sasl_make_basic_callbacks(const char* user, const char* realm, const char* password_file) {
  const auto size_of = [](const char* s) { return s != nullptr ? std::strlen(s) + 1 : 0; };
  const std::size_t total = sizeof(basic_block) + size_of(user) + size_of(realm) + size_of(password_file);
  auto* block = static_cast<basic_block*>(std::calloc(1, total));  // NOLINT(*-no-malloc): released with free()
  if (block == nullptr) return nullptr;
  char* next = reinterpret_cast<char*>(block + 1);  // NOLINT(*-reinterpret-cast, *-pointer-arithmetic)
  const auto keep = [&next](const char* s) -> const char* {
    if (s == nullptr) return nullptr;
    const std::size_t n = std::strlen(s) + 1;
    std::memcpy(next, s, n);
    const char* kept = next;
    next += n;  // NOLINT(cppcoreguidelines-pro-bounds-pointer-arithmetic)
    return kept;
  };
  block->user = keep(user);
  block->realm = keep(realm);
  block->password_file = keep(password_file);
  block->callbacks[0] = {SASL_CB_GETREALM, erase(&basic_realm), block};
  block->callbacks[1] = {SASL_CB_USER, erase(&basic_simple), block};
  block->callbacks[2] = {SASL_CB_AUTHNAME, erase(&basic_simple), block};
  block->callbacks[3] = {SASL_CB_PASS, erase(&basic_secret), block};
  block->callbacks[4] = {SASL_CB_LIST_END, nullptr, nullptr};
  return block->callbacks;
}

}  // extern "C"
