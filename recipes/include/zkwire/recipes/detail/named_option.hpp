#pragma once
// The named options of the recipes' option structs (lock_options::with_data, semaphore_options::with_acl, ...): the
// defaults with one field set, built by one function.

#include <utility>

namespace zkwire::recipes::detail {

template <class Options, class Field, class Value>
Options with_field(Field Options::*field, Value&& value) {
  Options options;
  options.*field = std::forward<Value>(value);
  return options;
}

}  // namespace zkwire::recipes::detail
