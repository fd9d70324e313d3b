// The memory of pending operations (pending_op::operator new/delete): a per-thread free list per size class, so
// that a request's completion state, allocated by the initiating function and freed when its handler has run,
// reuses the block of the previous request instead of a heap allocation per request. Up to `blocks_kept` blocks per
// class are kept (enough for a pipeline of that many requests); the rest go back to the heap. A block freed on
// another thread (the blocking client's loop thread) joins that thread's list.

#include <array>
#include <cstddef>
#include <new>

#include "zkwire/client/detail/core.hpp"

namespace zkwire::detail {
namespace {

constexpr std::size_t granule = 64;
constexpr std::size_t classes = 16;  // blocks of 64 .. 1024 bytes
constexpr std::size_t blocks_kept = 256;

struct free_block {
  free_block* next;
};

struct op_cache {
  op_cache() = default;
  op_cache(const op_cache&) = delete;
  op_cache& operator=(const op_cache&) = delete;
  op_cache(op_cache&&) = delete;
  op_cache& operator=(op_cache&&) = delete;
  ~op_cache();

  std::array<free_block*, classes> heads{};
  std::array<std::size_t, classes> counts{};
};

// Set when the thread's cache is gone (thread exit): later frees go straight to the heap.
thread_local bool cache_gone = false;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): per thread
thread_local op_cache cache;           // NOLINT(cppcoreguidelines-avoid-non-const-global-variables): per thread

op_cache::~op_cache() {
  cache_gone = true;
  for (free_block*& head : heads) {
    while (head != nullptr) {
      free_block* next = head->next;
      ::operator delete(head);
      head = next;
    }
  }
}

// The size class of `size` (1-based), or 0 when it is not cached.
std::size_t class_of(std::size_t size) noexcept {
  const std::size_t c = (size + granule - 1) / granule;
  return c <= classes ? c : 0;
}

}  // namespace

// NOLINTNEXTLINE(misc-new-delete-overloads,cert-dcl54-cpp): the sized delete is the class-scope one
void* pending_op::operator new(std::size_t size) {
  const std::size_t c = class_of(size);
  if (c == 0 || cache_gone) return ::operator new(c == 0 ? size : c * granule);
  free_block*& head = cache.heads.at(c - 1);
  if (head == nullptr) return ::operator new(c* granule);
  free_block* block = head;
  head = block->next;
  --cache.counts.at(c - 1);
  return block;
}

void pending_op::operator delete(void* p, std::size_t size) noexcept {
  if (p == nullptr) return;
  const std::size_t c = class_of(size);
  if (c == 0 || cache_gone || cache.counts.at(c - 1) >= blocks_kept) {
    ::operator delete(p);
    return;
  }
  auto* block = ::new (p) free_block{cache.heads.at(c - 1)};  // NOLINT(cppcoreguidelines-owning-memory): a free block
  cache.heads.at(c - 1) = block;
  ++cache.counts.at(c - 1);
}

// NOLINTNEXTLINE(misc-new-delete-overloads,cert-dcl54-cpp): the sized delete is the class-scope one
void* pending_op::operator new(std::size_t size, std::align_val_t align) { return ::operator new(size, align); }

void pending_op::operator delete(void* p, std::size_t /*size*/, std::align_val_t align) noexcept {
  ::operator delete(p, align);
}

}  // namespace zkwire::detail
