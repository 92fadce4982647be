// Test helpers shared by the list unit tests and the list fuzz target: a list's entries as
// strings, walked forwards and backwards through the Quicklist positions.
#pragma once

#include <string>
#include <vector>

#include "worker/types/list/quicklist.hpp"

namespace ruvio::types::testing {

inline std::string text(const Listpack::Entry& e) {
  return e.is_int ? std::to_string(e.i) : std::string(e.str);
}

inline std::vector<std::string> items(const Quicklist& ql) {
  std::vector<std::string> out;
  for (ListPos p = ql.first(); p; p = ql.next(p)) out.push_back(text(ql.get(p)));
  return out;
}

inline std::vector<std::string> items_backwards(const Quicklist& ql) {
  std::vector<std::string> out;
  for (ListPos p = ql.last(); p; p = ql.prev(p)) out.insert(out.begin(), text(ql.get(p)));
  return out;
}

}  // namespace ruvio::types::testing
