#pragma once
// The nemesis's records and its oracle (tests/faults/nemesis_test.cpp runs the nemesis). Each critical section is
// the test program run again as the lock's command (critical_section): it appends its interval and fencing token to
// DIR/sections and each of its writes to the fenced register to DIR/writes, on CLOCK_MONOTONIC, which every
// process of the machine shares. judge() reads them back: overlapping sections, tokens that do not grow in the
// order the sections started, and register writes accepted from a holder whose successor had already started.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace zkwire::test {

// CLOCK_MONOTONIC in ns: the clock of every record.
std::int64_t monotonic_ns();

// The lock's command. argv: PROGRAM --critical-section DIR CONTENDER HOLD_MS STOP_MS. Holds for HOLD_MS, writing
// ZKWIRE_FENCING_TOKEN to the register in DIR every 100 ms, while DIR/holder.CONTENDER exists; on SIGTERM (the lock
// was lost) it takes STOP_MS to finish the write in progress, as a real command would. Returns the exit status.
int critical_section(char** argv);

struct section {
  int contender = 0;
  std::int64_t token = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool terminated = false;
  int refused = 0;
};

struct register_write_record {
  int contender = 0;
  std::int64_t token = 0;
  std::int64_t at = 0;
  bool accepted = false;
};

std::vector<section> read_sections(const std::filesystem::path& file);
std::vector<register_write_record> read_writes(const std::filesystem::path& file);

struct verdict {
  std::size_t overlaps = 0;
  std::size_t token_regressions = 0;
  std::size_t stale_accepted = 0;
  std::size_t refused = 0;
  std::size_t terminated = 0;
  std::map<int, std::size_t> per_contender;
  std::string details;
};

// `origin`: the monotonic time (ns) the fault schedule's seconds count from, so that the details can be read
// against it.
verdict judge(const std::vector<section>& sections, const std::vector<register_write_record>& writes,
              std::int64_t origin);

}  // namespace zkwire::test
