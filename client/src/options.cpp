// The constructors of the option and value types callers build (options.hpp, tls_options.hpp, types.hpp). They
// are user-provided, out of line, so that none of these types is an aggregate (types.hpp says why).

#include "zkwire/client/options.hpp"

#include <utility>

#include "zkwire/client/tls_options.hpp"
#include "zkwire/client/types.hpp"

namespace zkwire {

credential::credential() = default;
credential::credential(std::string scheme_name, std::string secret)
    : scheme(std::move(scheme_name)), credentials(std::move(secret)) {}

sasl_credentials::sasl_credentials() = default;
sasl_credentials::sasl_credentials(std::string user_name, std::string secret)
    : user(std::move(user_name)), password(std::move(secret)) {}

client_options::client_options() = default;
client_options::client_options(std::string servers) : connect_string(std::move(servers)) {}

tls_options::tls_options() = default;
tls_options::tls_options(std::string ca, std::string certificate, std::string key)
    : ca_file(std::move(ca)), cert_file(std::move(certificate)), key_file(std::move(key)) {}

create_options::create_options() = default;
create_options::create_options(create_mode create_as, std::vector<zkwire::acl> entries)
    : mode(create_as), acl(std::move(entries)) {}

}  // namespace zkwire
