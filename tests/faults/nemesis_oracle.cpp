#include "nemesis_oracle.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

// Appends one line with one write(2) (O_APPEND: lines of concurrent processes do not interleave).
void append_line(const std::filesystem::path& file, const std::string& line) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = line + "\n";
  (void)::write(fd, text.data(), text.size());
  ::close(fd);
}

std::atomic<bool> sigterm_seen{false};
extern "C" void on_sigterm(int /*signal*/) { sigterm_seen = true; }

// The fenced register: under an exclusive flock, refuses a token lower than the highest accepted so far, else
// stores it. Every attempt is logged with its time (taken under the lock) for the oracle.
bool register_write(const std::filesystem::path& dir, int contender, std::int64_t token) {
  const auto path = dir / "register";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::flock(fd, LOCK_EX);
  std::array<char, 32> buffer{};
  const auto n = ::pread(fd, buffer.data(), buffer.size() - 1, 0);
  const std::int64_t highest = n > 0 ? std::strtoll(buffer.data(), nullptr, 10) : 0;
  const bool accepted = token >= highest;
  if (accepted) {
    const auto text = std::to_string(token);
    (void)::ftruncate(fd, 0);
    (void)::pwrite(fd, text.data(), text.size(), 0);
  }
  append_line(dir / "writes", std::to_string(contender) + " " + std::to_string(token) + " " +
                                  std::to_string(monotonic_ns()) + " " + (accepted ? "1" : "0"));
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return accepted;
}

}  // namespace

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int critical_section(char** argv) {
  const std::int64_t start = monotonic_ns();
  std::signal(SIGTERM, on_sigterm);
  const std::filesystem::path dir = argv[2];
  const int contender = std::atoi(argv[3]);
  const milliseconds hold{std::atoi(argv[4])};
  const milliseconds stop{std::atoi(argv[5])};
  const char* token_text = std::getenv("ZKWIRE_FENCING_TOKEN");
  const std::int64_t token = token_text == nullptr ? 0 : std::strtoll(token_text, nullptr, 10);
  append_line(dir / ("holder." + std::to_string(contender)), std::to_string(token));
  int refused = register_write(dir, contender, token) ? 0 : 1;
  const auto until = std::chrono::steady_clock::now() + hold;
  auto next_write = std::chrono::steady_clock::now() + 100ms;
  while (!sigterm_seen && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
    if (std::chrono::steady_clock::now() >= next_write) {
      refused += register_write(dir, contender, token) ? 0 : 1;
      next_write += 100ms;
    }
  }
  if (sigterm_seen) {
    std::this_thread::sleep_for(stop);
    refused += register_write(dir, contender, token) ? 0 : 1;
  }
  std::filesystem::remove(dir / ("holder." + std::to_string(contender)));
  append_line(dir / "sections", std::to_string(contender) + " " + std::to_string(token) + " " + std::to_string(start) +
                                    " " + std::to_string(monotonic_ns()) + " " + (sigterm_seen ? "1" : "0") + " " +
                                    std::to_string(refused));
  return 0;
}

std::vector<section> read_sections(const std::filesystem::path& file) {
  std::vector<section> out;
  std::ifstream in(file);
  section s;
  int terminated = 0;
  while (in >> s.contender >> s.token >> s.start >> s.end >> terminated >> s.refused) {
    s.terminated = terminated != 0;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const section& a, const section& b) { return a.start < b.start; });
  return out;
}

std::vector<register_write_record> read_writes(const std::filesystem::path& file) {
  std::vector<register_write_record> out;
  std::ifstream in(file);
  register_write_record w;
  int accepted = 0;
  while (in >> w.contender >> w.token >> w.at >> accepted) {
    w.accepted = accepted != 0;
    out.push_back(w);
  }
  return out;
}

verdict judge(const std::vector<section>& sections, const std::vector<register_write_record>& writes,
              std::int64_t origin) {
  const auto at = [origin](std::int64_t t) { return static_cast<double>(t - origin) / 1e9; };
  verdict v;
  std::ostringstream details;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& a = sections[i];
    ++v.per_contender[a.contender];
    v.terminated += a.terminated ? 1 : 0;
    for (std::size_t j = i + 1; j < sections.size() && sections[j].start < a.end; ++j) {
      ++v.overlaps;
      details << "overlap: contender " << a.contender << " (token " << a.token << ", " << at(a.start) << "–"
              << at(a.end) << " s" << (a.terminated ? ", terminated" : "") << ") still ran "
              << (a.end - sections[j].start) / 1'000'000 << " ms after contender " << sections[j].contender
              << " (token " << sections[j].token << ") started at " << at(sections[j].start) << " s\n";
    }
    if (i > 0 && a.token <= sections[i - 1].token) {
      ++v.token_regressions;
      details << "token " << a.token << " of contender " << a.contender << " after token " << sections[i - 1].token
              << "\n";
    }
  }
  for (const auto& w : writes) {
    if (!w.accepted) {
      ++v.refused;
      continue;
    }
    // Stale: a section with a higher token had started before this write was accepted.
    for (const auto& s : sections) {
      if (s.token > w.token && s.start < w.at) {
        ++v.stale_accepted;
        details << "stale write accepted: token " << w.token << " of contender " << w.contender << ", "
                << (w.at - s.start) / 1'000'000 << " ms after token " << s.token << "'s section started\n";
        break;
      }
    }
  }
  v.details = details.str();
  return v;
}

}  // namespace zkwire::test
