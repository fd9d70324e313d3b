// run_open_loop: the open loop (open_loop.hpp) on zkwire::client sessions.

#include "open_loop.hpp"

#include <vector>

#include "workload_state.hpp"

namespace zkwire::bench {

void run_open_loop(runner::state& s, const std::vector<mix_entry>& mix, std::vector<latency_recorder>& recorders,
                   std::vector<op_report>& reports) {
  open_loop<runner::state> loop(s, mix, recorders);
  loop.run();
  // The whole workload's report (the first) holds what was due and skipped; a mix's parts only what they sent.
  reports.front().intended = loop.total();
  reports.front().skipped = loop.skipped();
}

}  // namespace zkwire::bench
