#pragma once
// What the election needs of lock_keeper's core beyond lock_keeper.hpp: a keeper around a lock made with another
// queue rule, queueing again without a loss, and word of the keeper giving up. Used on the client's executor only.

#include <functional>
#include <system_error>

#include "zkwire/recipes/lock_keeper.hpp"

namespace zkwire::recipes::detail {

// A keeper of `lock` (made with make_lock_impl, or a lock_impl with its own rule).
keeper_ptr make_keeper(lock_ptr lock, keeper_options keep);
// Arms the keeper and queues again as after a loss (a new session first if the client's has ended), reporting
// nothing until `lost -> held`. Does nothing while it already re-acquires; clears an earlier give-up.
void start_keeper_rejoin(const keeper_ptr& k);
// Called (on the executor) when the keeper gives up re-acquiring, with last_error(); {} removes it.
void set_keeper_give_up_handler(keeper_core& k, std::function<void(std::error_code)> handler);

}  // namespace zkwire::recipes::detail
