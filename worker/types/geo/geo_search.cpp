// The 9-cell search over a sorted set (see geo_search.hpp).
#include "worker/types/geo/geo_search.hpp"

#include <algorithm>

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
  auto asc = [](const GeoPoint& a, const GeoPoint& b) { return a.dist < b.dist; };
  auto desc = [](const GeoPoint& a, const GeoPoint& b) { return a.dist > b.dist; };
  if (first >= v.size()) {
    if (descending) {
      std::stable_sort(v.begin(), v.end(), desc);
    } else {
      std::stable_sort(v.begin(), v.end(), asc);
    }
    return;
  }
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(first);
  if (descending) {
    std::partial_sort(v.begin(), mid, v.end(), desc);
  } else {
    std::partial_sort(v.begin(), mid, v.end(), asc);
  }
}

}  // namespace ruvio::types::geo
