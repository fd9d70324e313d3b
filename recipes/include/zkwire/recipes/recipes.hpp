#pragma once
// All of the recipes: exclusive and read/write locks (lock.hpp), their blocking forms for threads
// (blocking_lock.hpp), several locks all or none (multi_lock.hpp), revocation (revoke.hpp), introspection
// (contenders.hpp), counting semaphores (semaphore.hpp), leader election (election.hpp, blocking_election.hpp,
// election_order.hpp), node names (node_name.hpp) and errors (errors.hpp).

#include "zkwire/recipes/blocking_election.hpp"
#include "zkwire/recipes/blocking_lock.hpp"
#include "zkwire/recipes/contenders.hpp"
#include "zkwire/recipes/election.hpp"
#include "zkwire/recipes/election_order.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/lock_keeper.hpp"
#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/member_views.hpp"
#include "zkwire/recipes/metrics_exposition.hpp"
#include "zkwire/recipes/multi_lock.hpp"
#include "zkwire/recipes/node_name.hpp"
#include "zkwire/recipes/revoke.hpp"
#include "zkwire/recipes/semaphore.hpp"
