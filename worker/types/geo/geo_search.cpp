// The 9-cell search over a sorted set (see geo_search.hpp).
#include "worker/types/geo/geo_search.hpp"

#include <algorithm>

#include "worker/types/geo/pqsort.hpp"

namespace ruvio::types::geo {
namespace {

bool full(const std::vector<GeoPoint>& out, std::size_t limit) {
  return limit != 0 && !out.empty() && out.size() >= limit;
}

// geoGetPointsInRange over the cell's scores [min, max).
void points_in_cell(const ZSet* z, HashBits cell, const ShapeTest& test, std::size_t limit,
                    std::vector<GeoPoint>& out) {
  ScoreRange r;
  r.min = static_cast<double>(align52(cell));
  ++cell.bits;
  r.max = static_cast<double>(align52(cell));
  r.maxex = true;
  for (ZCursor c = zset_first_in(z, r); c.valid(); c.next()) {
    const double score = c.score();
    if (!r.contains_max_side(score)) break;
    GeoPoint p;
    if (test.score(score, p.lon, p.lat, p.dist)) {
      p.score = score;
      p.at = c;
      out.push_back(p);
    }
    if (full(out, limit)) break;
  }
}

}  // namespace

void search(const ZSet* z, Shape& shape, std::size_t limit, std::vector<GeoPoint>& out) {
  const Cover cv = cover(shape);
  const ShapeTest test(shape);
  const HashBits cells[9] = {cv.hash,         cv.n.north,      cv.n.south,
                             cv.n.east,       cv.n.west,       cv.n.north_east,
                             cv.n.north_west, cv.n.south_east, cv.n.south_west};
  // A huge radius makes neighbours coincide (4 cells cover the earth): a cell equal to the last
  // one searched is skipped. As in Redis, "last" is an index where 0 also means "none yet".
  std::size_t last = 0;
  for (std::size_t i = 0; i < 9; ++i) {
    if (cells[i].zero()) continue;
    if (last != 0 && cells[i].bits == cells[last].bits && cells[i].step == cells[last].step) {
      continue;
    }
    if (full(out, limit)) break;
    points_in_cell(z, cells[i], test, limit, out);
    last = i;
  }
}

void sort_by_distance(std::vector<GeoPoint>& v, bool descending, std::size_t first) {
  // sort_gp_asc / sort_gp_desc: distance only, so ties are left to the sort algorithm.
  auto asc = [](const GeoPoint& a, const GeoPoint& b) {
    return a.dist > b.dist ? 1 : a.dist == b.dist ? 0 : -1;
  };
  auto desc = [&asc](const GeoPoint& a, const GeoPoint& b) { return -asc(a, b); };
  if (first >= v.size()) {
    // glibc 2.36's qsort is a merge sort for arrays that fit its memory test (always here):
    // stable, so ties keep the search order.
    auto less = [&](const GeoPoint& a, const GeoPoint& b) {
      return (descending ? desc(a, b) : asc(a, b)) < 0;
    };
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  if (first == 0) return;
  if (descending) {
    pqsort(v.data(), v.size(), desc, 0, first - 1);
  } else {
    pqsort(v.data(), v.size(), asc, 0, first - 1);
  }
}

}  // namespace ruvio::types::geo
