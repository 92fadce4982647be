// The geo search over a sorted set (Redis 7.0's membersOfAllNeighbors / geoGetPointsInRange):
// each of the 9 cells that cover a shape is one score range of the zset; the points of the
// range that lie inside the shape are collected in the zset's order, cell after cell (centre,
// N, S, E, W, NE, NW, SE, SW), which is the order GEOSEARCH replies in when nothing sorts it.
// It reaches the zset only through its public API (zset.hpp: score ranges and cursors).
#pragma once

#include <cstddef>
#include <vector>

#include "worker/containers/geohash.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::types::geo {

struct GeoPoint {
  double lon, lat;
  double dist;   // to the shape's centre, in meters
  double score;  // the member's zset score (its geohash)
  ZCursor at;    // the member; valid until the zset is next written
};

// Appends to `out` the points of `z` inside `shape` (its bounds are filled); with `limit` > 0
// it stops once `out` holds that many (COUNT … ANY).
void search(const ZSet* z, Shape& shape, std::size_t limit, std::vector<GeoPoint>& out);

// Sorts by distance, ascending or descending, leaving equal distances where Redis 7.0 does:
// when all points are returned (`first` >= size) Redis sorts with glibc's qsort, a stable merge
// sort, so ties keep the search order; when COUNT cuts, it sorts positions [0, first) with its
// pqsort (pqsort.hpp), whose tie order is that algorithm's own.
void sort_by_distance(std::vector<GeoPoint>& v, bool descending, std::size_t first);

}  // namespace ruvio::types::geo
