#pragma once
// The simulated server's watches, per connection, the way a ZooKeeper 3.8 server keeps them: a data table (data,
// exist, persistent and persistent-recursive watches) and a child table (child and persistent watches), each with
// one mode per (path, connection) — so setting a one-shot watch where a persistent one is, replaces it, as on the
// real 3.8 server. One-shot watches go when they fire; persistent ones stay until removeWatches(any) or the
// connection closes. Each connection gets at most one event per trigger, even when several of its watches match.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "data_tree.hpp"
#include "zkwire/proto/watches.hpp"

namespace zkwire::sim {

using connection_id = std::uint64_t;

enum class watch_mode { standard, persistent, persistent_recursive };

struct fired_event {
  connection_id connection = 0;
  proto::watcher_event event;
};

class watch_table {
 public:
  void add_data(const std::string& path, connection_id c) { data_[path][c] = watch_mode::standard; }
  void add_child(const std::string& path, connection_id c) { child_[path][c] = watch_mode::standard; }
  // addWatch: persistent goes into both tables, persistent_recursive into the data table only.
  void add_persistent(const std::string& path, connection_id c, bool recursive);

  // Fires one trigger; `notified` are the connections already told about this change (a delete fires the data and
  // the child table for the same path, and a connection hears of it once). Appends the events to `out`.
  void fire(const trigger& t, std::set<connection_id>& notified, std::vector<fired_event>& out);

  // removeWatches / checkWatches: children and data touch one-shot watches of that table, any every watch of the
  // path in both tables. True if a watch was (or would be) removed.
  bool remove(const std::string& path, connection_id c, proto::watcher_type type);
  [[nodiscard]] bool contains(const std::string& path, connection_id c, proto::watcher_type type) const;

  void drop_connection(connection_id c);
  // Registrations in both tables, for leak checks.
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] std::size_t size(connection_id c) const noexcept;

 private:
  using table = std::map<std::string, std::map<connection_id, watch_mode>, std::less<>>;
  static bool erase(table& t, const std::string& path, connection_id c, bool standard_only);
  static bool has(const table& t, const std::string& path, connection_id c, bool standard_only);

  table data_;
  table child_;
};

}  // namespace zkwire::sim
