#include "support/member_config.hpp"

#include <fstream>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "support/child_process.hpp"

namespace zkwire::test {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

member_paths::member_paths(std::filesystem::path member_dir)
    : dir(std::move(member_dir)), config(dir / "zoo.cfg"), data(dir / "data"), log(dir / "zookeeper.log") {}

std::string dynamic_server_line(std::size_t index, const member_ports& ports) {
  return "server." + std::to_string(index + 1) + "=127.0.0.1:" + std::to_string(ports.quorum) + ":" +
         std::to_string(ports.election) + ":participant;127.0.0.1:" + std::to_string(ports.client);
}

void write_member_config(const member_paths& paths, std::size_t index, const std::vector<member_ports>& all,
                         const cluster_options& options) {
  std::filesystem::create_directories(paths.data);
  const member_ports& own = all.at(index);
  std::string config;
  auto line = [&config](const std::string& key, const auto& value) {
    config += key;
    config += '=';
    if constexpr (std::is_convertible_v<decltype(value), std::string>) {
      config += value;
    } else {
      config += std::to_string(value);
    }
    config += '\n';
  };
  line("tickTime", options.tick_time.count());
  line("dataDir", paths.data.string());
  if (!options.reconfig) {
    line("clientPort", own.client);
    line("clientPortAddress", "127.0.0.1");
  }
  line("minSessionTimeout", options.min_session_timeout.count());
  line("maxSessionTimeout", options.max_session_timeout.count());
  line("maxClientCnxns", 0);
  line("admin.enableServer", "false");
  line("4lw.commands.whitelist", "*");
  line("forceSync", "no");
  line("preAllocSize", 1024);
  if (options.reconfig) {
    line("initLimit", 20);
    line("syncLimit", 10);
    line("reconfigEnabled", "true");
    line("standaloneEnabled", "false");
    line("skipACL", "yes");
    const auto dynamic = paths.dir / "zoo.cfg.dynamic";
    line("dynamicConfigFile", dynamic.string());
    std::string members;
    for (std::size_t i = 0; i < options.members && i < all.size(); ++i)
      members += dynamic_server_line(i, all[i]) + "\n";
    if (index >= options.members) members += dynamic_server_line(index, own) + "\n";
    write_file(dynamic, members);
    write_file(paths.data / "myid", std::to_string(index + 1) + "\n");
  } else if (all.size() > 1) {
    line("initLimit", 20);
    line("syncLimit", 10);
    for (std::size_t i = 0; i < all.size(); ++i) {
      line("server." + std::to_string(i + 1),
           "127.0.0.1:" + std::to_string(all[i].quorum) + ":" + std::to_string(all[i].election));
    }
    write_file(paths.data / "myid", std::to_string(index + 1) + "\n");
  }
  if (options.secure_port) {
    const auto& tls = *options.secure_port;
    line("secureClientPort", own.secure);
    line("secureClientPortAddress", "127.0.0.1");
    line("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
    line("ssl.keyStore.location", tls.key_store.string());
    line("ssl.keyStore.password", tls.password);
    line("ssl.keyStore.type", "PKCS12");
    line("ssl.trustStore.location", tls.trust_store.string());
    line("ssl.trustStore.password", tls.password);
    line("ssl.trustStore.type", "PKCS12");
    line("ssl.clientAuth", tls.client_auth);
    line("ssl.protocol", "TLSv1.3");
    line("ssl.enabledProtocols", tls.protocols);
    // ZooKeeper's default suites are TLS 1.2 ones only, which leaves TLS 1.3 without a cipher.
    line("ssl.ciphersuites",
         "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
         "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
  }
  for (const auto& extra : options.extra_config) config += extra + "\n";
  write_file(paths.config, config);
}

std::vector<std::string> member_command(const member_paths& paths, const cluster_options& options) {
  // A test's server lives seconds and serves little: the quick compiler alone (no second tier optimizing for peak
  // throughput) and the serial collector (no collector threads per core) take less of the machine's CPU, which the
  // test programs beside it need (docs/testing.md#ci-time; scripts/zk starts its servers with the same flags).
  std::vector<std::string> argv{find_on_path("java"),
                                "-Xmx256m",
                                "-XX:TieredStopAtLevel=1",
                                "-XX:+UseSerialGC",
                                "-Dzookeeper.extendedTypesEnabled=true",
                                "-Dznode.container.checkIntervalMs=500"};
  argv.insert(argv.end(), options.jvm_flags.begin(), options.jvm_flags.end());
  argv.insert(argv.end(), {"-cp",
                           // The jar's manifest lists Netty's handler but not the codec and resolver it needs.
                           "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar:"
                           "/usr/share/java/netty-codec.jar:/usr/share/java/netty-resolver.jar",
                           "org.apache.zookeeper.server.quorum.QuorumPeerMain", paths.config.string()});
  return argv;
}

}  // namespace zkwire::test
