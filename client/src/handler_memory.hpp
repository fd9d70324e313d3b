#pragma once
// Memory for the one outstanding operation of a kind (a read, a write, a posted pump). Asio allocates each
// operation's state through the handler's associated allocator; its default, a per-thread cache of two blocks,
// thrashes between the read, write and post sizes and costs about three heap allocations per request. A block
// that is busy (never in steady state) falls back to the heap. The block is allocated by the first operation and
// grows to the largest seen, so steady traffic allocates nothing and an idle client holds what its operations need
// (184 bytes for a TCP read; a fixed block would have to fit TLS's larger ones in every client). The owner of a
// handler_memory must outlive every operation using it: Asio frees an operation's memory before it destroys the
// handler, so a handler that keeps the owner alive (a shared_ptr capture) is enough.

#include <cstddef>
#include <new>
#include <utility>

namespace zkwire::detail {

class handler_memory {
 public:
  handler_memory() = default;
  handler_memory(const handler_memory&) = delete;
  handler_memory& operator=(const handler_memory&) = delete;
  handler_memory(handler_memory&&) = delete;
  handler_memory& operator=(handler_memory&&) = delete;
  ~handler_memory() { ::operator delete(block_); }

  void* allocate(std::size_t size) {
    if (in_use_) return ::operator new(size);
    if (size > capacity_) {
      ::operator delete(block_);
      block_ = nullptr;  // nothing left dangling should the next line throw
      capacity_ = 0;
      block_ = ::operator new(size);
      capacity_ = size;
    }
    in_use_ = true;
    return block_;
  }
  void deallocate(void* p) noexcept {
    if (p == block_) {
      in_use_ = false;
    } else {
      ::operator delete(p);
    }
  }

 private:
  void* block_ = nullptr;  // operator new's alignment: that of std::max_align_t, as Asio's operations need
  std::size_t capacity_ = 0;
  bool in_use_ = false;
};

template <class T>
class handler_allocator {
 public:
  using value_type = T;
  explicit handler_allocator(handler_memory& memory) noexcept : memory_(&memory) {}
  template <class U>
  handler_allocator(const handler_allocator<U>& other) noexcept  // NOLINT(google-explicit-constructor): rebinding
      : memory_(other.memory()) {}
  T* allocate(std::size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
  void deallocate(T* p, std::size_t /*n*/) noexcept { memory_->deallocate(p); }
  [[nodiscard]] handler_memory* memory() const noexcept { return memory_; }
  template <class U>
  bool operator==(const handler_allocator<U>& other) const noexcept {
    return memory_ == other.memory();
  }

 private:
  handler_memory* memory_;
};

// A handler whose associated allocator takes its memory from a handler_memory.
template <class Handler>
struct with_memory {
  using allocator_type = handler_allocator<char>;
  handler_memory* memory;
  Handler handler;

  [[nodiscard]] allocator_type get_allocator() const noexcept { return allocator_type(*memory); }
  template <class... Args>
  void operator()(Args&&... args) {
    handler(std::forward<Args>(args)...);
  }
};
template <class Handler>
with_memory<Handler> using_memory(handler_memory& memory, Handler handler) {
  return with_memory<Handler>{&memory, std::move(handler)};
}

}  // namespace zkwire::detail
