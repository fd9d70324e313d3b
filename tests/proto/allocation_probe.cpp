#include "allocation_probe.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> largest{0};
}  // namespace

namespace zkwire::proto::test {

void reset_largest_allocation() noexcept { largest.store(0, std::memory_order_relaxed); }
std::size_t largest_allocation() noexcept { return largest.load(std::memory_order_relaxed); }

}  // namespace zkwire::proto::test

void* operator new(std::size_t size) {
  std::size_t seen = largest.load(std::memory_order_relaxed);
  while (size > seen && !largest.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
