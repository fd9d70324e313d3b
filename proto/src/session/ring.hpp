#pragma once
// A FIFO over a growable circular array whose slots are reused: popping keeps a slot's members (and the capacity of
// its strings) for the next push, so a steady stream of requests allocates nothing once the ring has grown. An idle
// ring gives back what a burst made it grow (release_idle).

#include <cstddef>
#include <utility>
#include <vector>

namespace zkwire::proto::session_detail {

template <class T>
class ring {
 public:
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  [[nodiscard]] T& front() noexcept { return slots_[head_]; }
  [[nodiscard]] const T& front() const noexcept { return slots_[head_]; }
  T& operator[](std::size_t i) noexcept { return slots_[(head_ + i) % slots_.size()]; }
  const T& operator[](std::size_t i) const noexcept { return slots_[(head_ + i) % slots_.size()]; }

  // A slot at the back holding whatever an earlier element left there: the caller assigns every field.
  T& push_back() {
    if (size_ == slots_.size()) grow();
    T& slot = slots_[(head_ + size_) % slots_.size()];
    ++size_;
    return slot;
  }
  void pop_back() noexcept { --size_; }
  void pop_front() noexcept {
    head_ = (head_ + 1) % slots_.size();
    --size_;
  }
  // Removes element i, keeping the order of the others (its slot moves to the back for reuse).
  void erase(std::size_t i) noexcept {
    for (std::size_t k = i; k + 1 < size_; ++k) std::swap((*this)[k], (*this)[k + 1]);
    --size_;
  }
  void clear() noexcept {
    head_ = 0;
    size_ = 0;
  }
  [[nodiscard]] std::size_t slot_count() const noexcept { return slots_.size(); }
  template <class F>
  void for_each_slot(F&& f) const {
    for (const T& slot : slots_) f(slot);
  }
  // When empty: more than `keep_slots` slots go back to the heap, with whatever they kept; otherwise each slot is
  // passed to shrink(T&), which may drop what it kept beyond a steady request's needs. Without this, a burst of
  // thousands of requests in flight at once would hold its peak size for the rest of the session.
  template <class Shrink>
  void release_idle(std::size_t keep_slots, Shrink&& shrink) {
    if (size_ != 0) return;
    if (slots_.size() > keep_slots) {
      std::vector<T>().swap(slots_);
      head_ = 0;
      return;
    }
    for (T& slot : slots_) shrink(slot);
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 2 : slots_.size() * 2);
    for (std::size_t k = 0; k < slots_.size(); ++k) bigger[k] = std::move((*this)[k]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace zkwire::proto::session_detail
