// zkwire::recipes::blocking_lock from plain threads: four workers on one session take turns in a critical section
// guarded by a ZooKeeper lock (any other process locking the same path, with zkwire, Curator or Kazoo, takes part
// in the same queue), each with std::unique_lock and a timeout. Usage: blocking_lock_example [connect string]
// (default: $ZKWIRE_SERVERS, else 127.0.0.1:2181).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/blocking_lock.hpp"

int main(int argc, char** argv) {
  const char* env = std::getenv("ZKWIRE_SERVERS");
  const std::string servers = argc > 1 ? argv[1] : (env != nullptr ? env : "127.0.0.1:2181");
  try {
    zkwire::client_options options;
    options.connect_string = servers;
    zkwire::blocking_client c(options);
    c.connect();
    constexpr int worker_count = 4;
    std::vector<std::thread> workers;
    workers.reserve(worker_count);
    for (int id = 0; id < worker_count; ++id) {
      workers.emplace_back([&c, id] {
        zkwire::recipes::blocking_lock job(c, "/zkwire-example/locks/job");  // one node per object
        for (int round = 0; round < 3; ++round) {
          try {
            std::unique_lock hold(job, std::chrono::seconds(30));
            if (!hold) {
              std::printf("worker %d: not acquired within 30 s\n", id);
              continue;
            }
            std::printf("worker %d: holding, fencing token %lld\n", id, static_cast<long long>(job.fencing_token()));
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          } catch (const std::system_error& e) {  // the session ended, no permission, ...
            std::printf("worker %d: %s\n", id, e.what());
            return;
          }
        }
      });
    }
    for (auto& w : workers) w.join();
    c.close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blocking_lock_example: %s\n", e.what());
    return 1;
  }
  return 0;
}
