#include "worker/types/list/list.hpp"

namespace ruvio::types {

void list_push(Quicklist& ql, ListEnd end, std::string_view value) {
  if (end == ListEnd::kHead) {
    ql.push_head(Listpack::Elem(value), value.size());
  } else {
    ql.push_tail(Listpack::Elem(value), value.size());
  }
}

bool list_insert(Quicklist& ql, Listpack::Where where, std::string_view pivot,
                 std::string_view value) {
  for (ListPos p = ql.first(); p; p = ql.next(p)) {
    if (ql.lp(p.node).equals(p.pos, pivot)) {
      ql.insert(p, where, Listpack::Elem(value), value.size());
      return true;
    }
  }
  return false;
}

bool list_set(Quicklist& ql, std::int64_t index, std::string_view value) {
  const ListPos p = ql.seek(index);
  if (!p) return false;
  ql.replace(p, Listpack::Elem(value), value.size());
  return true;
}

std::uint64_t list_remove(Quicklist& ql, std::string_view value, std::int64_t count) {
  std::uint64_t removed = 0;
  const std::uint64_t limit =
      count < 0 ? static_cast<std::uint64_t>(-(count + 1)) + 1 : static_cast<std::uint64_t>(count);
  if (count >= 0) {
    ListPos p = ql.first();
    while (p && (limit == 0 || removed < limit)) {
      if (ql.lp(p.node).equals(p.pos, value)) {
        p = ql.erase(p);
        ++removed;
      } else {
        p = ql.next(p);
      }
    }
    return removed;
  }
  // From the tail: erasing returns the follower, so step back from where the entry was.
  ListPos p = ql.last();
  while (p && removed < limit) {
    if (ql.lp(p.node).equals(p.pos, value)) {
      const ListPos prev = ql.prev(p);
      // prev is before p in the same node or in an earlier one: an erase at p leaves its
      // offset valid.
      ql.erase(p);
      ++removed;
      p = prev;
    } else {
      p = ql.prev(p);
    }
  }
  return removed;
}

void list_trim(Quicklist& ql, std::int64_t start, std::int64_t end) {
  const auto size = static_cast<std::int64_t>(ql.size());
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  std::int64_t ltrim;
  std::int64_t rtrim;
  if (start > end || start >= size) {
    ltrim = size;  // an empty range: everything goes
    rtrim = 0;
  } else {
    if (end >= size) end = size - 1;
    ltrim = start;
    rtrim = size - end - 1;
  }
  if (rtrim > 0) ql.erase_range(static_cast<std::uint64_t>(size - rtrim), rtrim);
  if (ltrim > 0) ql.erase_range(0, static_cast<std::uint64_t>(ltrim));
}

bool list_range(std::uint64_t usize, std::int64_t start, std::int64_t end, std::uint64_t& first,
                std::uint64_t& last) {
  const auto size = static_cast<std::int64_t>(usize);
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > end || start >= size) return false;
  if (end >= size) end = size - 1;
  first = static_cast<std::uint64_t>(start);
  last = static_cast<std::uint64_t>(end);
  return true;
}

}  // namespace ruvio::types
