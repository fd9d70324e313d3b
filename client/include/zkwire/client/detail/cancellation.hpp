#pragma once
// What every zkwire operation does with its cancellation slot, the client's and the recipes' alike: terminal and
// partial cancellation cancel the operation; total cancellation (undo without any effect) is not offered, since a
// request already written may still be applied by the server. Internal to zkwire, shared with the recipes on purpose
// (docs/design.md#layers).

#include <asio/cancellation_type.hpp>
#include <utility>

namespace zkwire::detail {

// The handler installed in a cancellation slot: runs `cancel` on terminal or partial cancellation.
template <class Cancel>
class cancellation_filter {
 public:
  explicit cancellation_filter(Cancel cancel) : cancel_(std::move(cancel)) {}

  void operator()(asio::cancellation_type type) const {
    if ((type & (asio::cancellation_type::terminal | asio::cancellation_type::partial)) !=
        asio::cancellation_type::none) {
      cancel_();
    }
  }

 private:
  Cancel cancel_;
};

// Installs `cancel` (a callable taking no arguments, e.g. a lambda holding a weak pointer and an id) in `slot` when
// the slot is connected; nothing otherwise.
template <class Slot, class Cancel>
void on_cancel(Slot& slot, Cancel cancel) {
  if (slot.is_connected()) slot.template emplace<cancellation_filter<Cancel>>(std::move(cancel));
}

}  // namespace zkwire::detail
