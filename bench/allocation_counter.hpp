#pragma once
// Heap allocation counting for the benchmarks: linking the object library zkwire_allocation_counter replaces the
// global operator new/delete of the program with versions that count every allocation of the process (the
// standard library's and Asio's included). Thread-safe (a relaxed atomic counter).

#include <cstdint>

namespace zkwire::bench {

// Allocations since the program started.
std::uint64_t heap_allocations() noexcept;

}  // namespace zkwire::bench
