#include "chaos_support.hpp"

#include <cstdlib>
#include <random>
#include <thread>

namespace zkwire::test {

namespace {

std::optional<std::uint64_t> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0') throw std::runtime_error(std::string(name) + ": not a number: " + text);
  return value;
}

constexpr std::size_t kept_log_lines = 2000;

}  // namespace

std::uint64_t chaos_seed() {
  if (auto seed = env_number("ZKWIRE_CHAOS_SEED"); seed && *seed != 0) return *seed;
  std::random_device rd;
  const std::uint64_t seed = ((std::uint64_t{rd()} << 32) | rd()) & 0xffffffffffffULL;
  return seed == 0 ? 1 : seed;
}

std::chrono::seconds chaos_duration() { return std::chrono::seconds(env_number("ZKWIRE_CHAOS_SECONDS").value_or(60)); }

proxied_cluster::proxied_cluster(asio::io_context& io, const zk_cluster& cluster, std::uint64_t seed) {
  for (std::size_t i = 0; i < cluster.member_count(); ++i) {
    faults::proxy_options options;
    options.upstream_port = cluster.client_port(i);
    options.seed = seed + i;
    options.log = [log = log_, i](std::string_view line) {
      const std::lock_guard lock(log->mutex);
      // Appended piecewise: gcc 12 warns (-Wrestrict, a false positive) on "p" + to_string(i) + ...
      std::string entry = "p";
      entry += std::to_string(i);
      entry += ' ';
      entry += line;
      log->lines.push_back(std::move(entry));
      if (log->lines.size() > kept_log_lines) log->lines.pop_front();
    };
    proxies_.push_back(std::make_unique<faults::proxy>(io.get_executor(), std::move(options)));
    if (auto ec = proxies_.back()->listen()) throw std::system_error(ec, "proxy listen");
  }
}

std::string proxied_cluster::connect_string() const {
  std::string out;
  for (const auto& p : proxies_) {
    if (!out.empty()) out += ',';
    out += p->address();
  }
  return out;
}

std::size_t proxied_cluster::index_of_port(std::uint16_t port) const {
  for (std::size_t i = 0; i < proxies_.size(); ++i) {
    if (proxies_[i]->local_endpoint().port() == port) return i;
  }
  return proxies_.size();
}

std::vector<faults::rule_id> proxied_cluster::add_rule(std::string_view text) {
  std::vector<faults::rule_id> ids;
  for (auto& p : proxies_) {
    std::string error;
    auto id = p->add_rule(text, &error);
    EXPECT_TRUE(id.has_value()) << text << ": " << error;
    ids.push_back(id.value_or(0));
  }
  return ids;
}

void proxied_cluster::clear_rules() {
  for (auto& p : proxies_) p->clear_rules();
}

std::uint64_t proxied_cluster::fired(const std::vector<faults::rule_id>& ids) const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < ids.size() && i < proxies_.size(); ++i) {
    if (auto c = proxies_[i]->counters(ids[i])) total += c->fired;
  }
  return total;
}

void proxied_cluster::cut_connections(faults::cut_kind how) {
  for (auto& p : proxies_) p->cut_connections(how);
}

std::string proxied_cluster::log_tail(std::size_t lines, bool pings) const {
  const std::lock_guard lock(log_->mutex);
  std::deque<const std::string*> tail;
  for (const auto& line : log_->lines) {
    if (!pings && line.find(R"("op":"ping")") != std::string::npos) continue;
    tail.push_back(&line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const auto* line : tail) out += *line + "\n";
  return out;
}

}  // namespace zkwire::test
