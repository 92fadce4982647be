// Geohash and geo search: scores, decoded coordinates, geohash strings and distances that
// redis-server 7.0.15 gives for the same points (values read from it), the limits (+-180,
// +-85.05112878, whose offsets spill past bit 52), neighbours, the step estimate, the cover
// of a circle and a box, and the 9-cell search over both zset encodings against brute force.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "worker/containers/geohash.hpp"
#include "worker/types/geo/geo_search.hpp"
#include "worker/types/zset/zset.hpp"

using namespace ruvio;
namespace geo = types::geo;
using types::ZSet;

namespace {

std::string hash_string(double score) {
  char buf[11];
  geo::geohash_string(score, buf);
  return {buf, sizeof(buf)};
}

ZSet* zset_of_points(store::Heap& heap, const std::vector<std::pair<double, double>>& pts,
                     const types::ZSetLimits& lim) {
  ZSet* z = types::zset_create(heap, pts.size(), 8, lim);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    unsigned out = 0;
    types::zset_add(heap, z, static_cast<double>(geo::score_of(pts[i].first, pts[i].second)),
                    "m" + std::to_string(i), 0, &out, nullptr, lim);
  }
  return z;
}

std::set<std::string> members(const std::vector<geo::GeoPoint>& pts) {
  std::set<std::string> out;
  types::Listpack::IntBuf ib;
  for (const auto& p : pts) out.emplace(p.at.member(ib));
  return out;
}

}  // namespace

TEST_CASE("geo: scores, positions and geohash strings are redis-server's") {
  CHECK(geo::score_of(13.361389, 38.115556) == 3479099956230698ULL);  // Palermo
  CHECK(geo::score_of(15.087269, 37.502669) == 3479447370796909ULL);  // Catania
  CHECK(geo::score_of(0, 0) == 3377699720527872ULL);
  CHECK(geo::score_of(-180, -85.05112878) == 0);
  // At the upper limits the offset is 2^26: its bits land at 52 and 53, as in Redis.
  CHECK(geo::score_of(180, 85.05112878) == 13510798882111488ULL);

  CHECK(hash_string(3479099956230698.0) == "sqc8b49rny0");
  CHECK(hash_string(3479447370796909.0) == "sqdtr74hyu0");
  CHECK(hash_string(13510798882111488.0) == "bp05b5048p0");
  CHECK(hash_string(0) == "00bh0hbj200");
  CHECK(hash_string(3377699720527872.0) == "s0000000000");

  double lon = 0, lat = 0;
  REQUIRE(geo::decode_score(13510798882111488.0, lon, lat));
  CHECK(lon == 180);  // the cell's centre is past the limit: clamped
  CHECK(lat == geo::kLatMax);
  REQUIRE(geo::decode_score(0, lon, lat));
  CHECK(lon == doctest::Approx(-179.99999731779098511).epsilon(1e-15));
  CHECK(lat == doctest::Approx(-85.05112751263942528).epsilon(1e-15));
}

TEST_CASE("geo: scores that are not geohashes decode as x86-64's cast makes them") {
  double lon1 = 0, lat1 = 0, lon2 = 0, lat2 = 0;
  // Negative: a signed truncation, so -1 is all ones (the top-right cell of the grid).
  REQUIRE(geo::decode_score(-1, lon1, lat1));
  REQUIRE(geo::decode_score(static_cast<double>(0xFFFFFFFFFFFFF800ULL), lon2, lat2));
  CHECK(lon1 == lon2);
  CHECK(lat1 == lat2);
  // Past 2^64 and -inf: "integer indefinite" paths, never undefined behaviour.
  CHECK(geo::decode_score(1e300, lon1, lat1));
  CHECK(geo::decode_score(-INFINITY, lon1, lat1));
  CHECK(geo::decode_score(INFINITY, lon1, lat1));
}

TEST_CASE("geo: encode refuses what is outside the limits") {
  geo::HashBits h;
  CHECK_FALSE(geo::encode(geo::kLonRange, geo::kLatRange, 180.0000001, 0, 26, h));
  CHECK_FALSE(geo::encode(geo::kLonRange, geo::kLatRange, 0, 85.051129, 26, h));
  CHECK_FALSE(geo::encode(geo::kLonRange, geo::kLatRange, 0, -90, 26, h));
  CHECK_FALSE(geo::encode(geo::kLonRange, geo::kLatRange, 0, 0, 0, h));
  CHECK_FALSE(geo::encode(geo::kLonRange, geo::kLatRange, 0, 0, 33, h));
  CHECK(geo::encode(geo::kLonRange, geo::kLatRange, -180, -85.05112878, 26, h));
  CHECK(h.bits == 0);
  CHECK_FALSE(h.zero());  // step 26: a real cell, not an excluded neighbour
}

TEST_CASE("geo: decode inverts encode to the cell that holds the point") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lon_d(-180, 180), lat_d(geo::kLatMin, geo::kLatMax);
  for (int i = 0; i < 2000; ++i) {
    const double lon = lon_d(rng), lat = lat_d(rng);
    for (std::uint8_t step : {1, 2, 13, 26}) {
      geo::HashBits h;
      REQUIRE(geo::encode(geo::kLonRange, geo::kLatRange, lon, lat, step, h));
      geo::Area a;
      REQUIRE(geo::decode(geo::kLonRange, geo::kLatRange, h, a));
      CHECK(a.lon.min <= lon);
      CHECK(lon <= a.lon.max);
      CHECK(a.lat.min <= lat);
      CHECK(lat <= a.lat.max);
    }
  }
}

TEST_CASE("geo: neighbours are the adjacent cells, wrapping at the grid's edge") {
  geo::HashBits h;
  REQUIRE(geo::encode(geo::kLonRange, geo::kLatRange, 10, 10, 8, h));
  geo::Area c, e, w, n, s, ne, sw;
  const geo::Neighbors nb = geo::neighbors(h);
  geo::decode(geo::kLonRange, geo::kLatRange, h, c);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.east, e);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.west, w);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.north, n);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.south, s);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.north_east, ne);
  geo::decode(geo::kLonRange, geo::kLatRange, nb.south_west, sw);
  CHECK(e.lon.min == c.lon.max);
  CHECK(e.lat.min == c.lat.min);
  CHECK(w.lon.max == c.lon.min);
  CHECK(n.lat.min == c.lat.max);
  CHECK(n.lon.min == c.lon.min);
  CHECK(s.lat.max == c.lat.min);
  CHECK(ne.lon.min == c.lon.max);
  CHECK(ne.lat.min == c.lat.max);
  CHECK(sw.lon.max == c.lon.min);
  CHECK(sw.lat.max == c.lat.min);

  // West of the first column is the last one (the antimeridian).
  REQUIRE(geo::encode(geo::kLonRange, geo::kLatRange, -180, 0, 8, h));
  geo::decode(geo::kLonRange, geo::kLatRange, geo::neighbors(h).west, w);
  CHECK(w.lon.max == 180);
}

TEST_CASE("geo: distances are Redis's haversine") {
  double a[2], b[2];
  geo::decode_score(3479099956230698.0, a[0], a[1]);
  geo::decode_score(3479447370796909.0, b[0], b[1]);
  // GEODIST Sicily Palermo Catania: 166274.1516 (m)
  CHECK(std::llrint(geo::distance(a[0], a[1], b[0], b[1]) * 10000) == 1662741516);
  CHECK(geo::distance(a[0], a[1], a[0], a[1]) == 0);
  // On one meridian the simplified formula, which can differ from the full one in the last
  // bit (redis-server's STOREDIST score for these cell centres).
  CHECK(geo::distance(10, 20, 10, 30.123) == geo::lat_distance(20, 30.123));
  CHECK(geo::lat_distance(-85, 85) == doctest::Approx(geo::kEarthRadiusM * 170 * M_PI / 180));
  // Half the circumference across the antimeridian.
  CHECK(geo::distance(-180, 0, 0, 0) == doctest::Approx(geo::kEarthRadiusM * M_PI));
}

TEST_CASE("geo: the step estimate and its pole corrections") {
  CHECK(geo::estimate_steps(0, 0) == 26);
  CHECK(geo::estimate_steps(1, 0) == 24);
  CHECK(geo::estimate_steps(50000, 0) == 8);
  CHECK(geo::estimate_steps(50000, 70) == 7);
  CHECK(geo::estimate_steps(50000, -81) == 6);
  CHECK(geo::estimate_steps(5e7, 0) == 1);
  CHECK(geo::estimate_steps(5e7, 85) == 1);
}

TEST_CASE("geo: the cover drops the neighbours a small shape cannot reach") {
  geo::Shape s;
  s.lon = 10.5;
  s.lat = 20.5;
  s.radius = 1;
  s.conversion = 1000;
  const geo::Cover c = geo::cover(s);
  CHECK(s.bounds[0] < 10.5);
  CHECK(s.bounds[2] > 10.5);
  CHECK(s.bounds[3] - s.bounds[1] == doctest::Approx(2 * 1000 / geo::kEarthRadiusM * 180 / M_PI));
  int kept = 0;
  for (const geo::HashBits& h : {c.n.north, c.n.south, c.n.east, c.n.west, c.n.north_east,
                                 c.n.north_west, c.n.south_east, c.n.south_west}) {
    kept += !h.zero();
  }
  CHECK(kept < 8);
  CHECK_FALSE(c.hash.zero());

  geo::Shape box;
  box.type = geo::Shape::kBox;
  box.lon = 0;
  box.lat = -60;
  box.width = 200;
  box.height = 100;
  box.conversion = 1000;
  geo::cover(box);
  // Southern hemisphere: the box is widest at its southern edge.
  const double half_lon = box.bounds[2] - box.lon;
  CHECK(half_lon ==
        doctest::Approx(100000 / geo::kEarthRadiusM /
                        std::cos((-60 - 50000 / geo::kEarthRadiusM * 180 / M_PI) * M_PI / 180) *
                        180 / M_PI));
}

TEST_CASE("geo: within() for circles and boxes") {
  geo::Shape c;
  c.lon = 0;
  c.lat = 0;
  c.radius = 100;
  c.conversion = 1000;
  double d = 0;
  CHECK(geo::within(c, 0, 0.5, d));
  CHECK(d == doctest::Approx(geo::lat_distance(0, 0.5)));
  CHECK_FALSE(geo::within(c, 0, 1, d));  // 111 km

  geo::Shape b;
  b.type = geo::Shape::kBox;
  b.lon = 0;
  b.lat = 0;
  b.width = 200;
  b.height = 20;
  b.conversion = 1000;
  CHECK(geo::within(b, 0.8, 0, d));        // 89 km east, inside the 100 km half-width
  CHECK_FALSE(geo::within(b, 0, 0.2, d));  // 22 km north, outside the 10 km half-height
}

TEST_CASE("geo: the 9-cell search finds exactly the points in the circle, both encodings") {
  store::Heap heap;
  std::mt19937_64 rng(11);
  for (std::size_t n : {0, 1, 20, 127, 128, 129, 600}) {
    for (std::size_t max_entries : {std::size_t{128}, std::size_t{0}}) {  // listpack, skiplist
      const types::ZSetLimits lim{max_entries, 64};
      std::vector<std::pair<double, double>> pts;
      std::normal_distribution<double> off(0, 1.0);
      const std::pair<double, double> centres[] = {{179.8, 10}, {0, 84.9}, {13.4, 38.1}};
      for (std::size_t i = 0; i < n; ++i) {
        auto [clon, clat] = centres[i % 3];
        double lon = clon + off(rng), lat = clat + off(rng) / 4;
        if (lon > 180) lon -= 360;
        lat = std::clamp(lat, geo::kLatMin, geo::kLatMax);
        pts.emplace_back(lon, lat);
      }
      ZSet* z = zset_of_points(heap, pts, lim);
      for (auto [clon, clat] : centres) {
        for (double km : {0.0, 5.0, 50.0, 300.0, 3000.0}) {
          geo::Shape s;
          s.lon = clon;
          s.lat = clat;
          s.radius = km;
          s.conversion = 1000;
          std::vector<geo::GeoPoint> found;
          geo::search(z, s, 0, found);
          std::set<std::string> want;
          for (std::size_t i = 0; i < pts.size(); ++i) {
            double lon = 0, lat = 0;
            geo::decode_score(static_cast<double>(geo::score_of(pts[i].first, pts[i].second)), lon,
                              lat);
            if (geo::distance(clon, clat, lon, lat) <= km * 1000) {
              want.insert("m" + std::to_string(i));
            }
          }
          // Redis's cover misses points: near the far edge of a huge radius, and near the
          // latitude limit, where the north neighbour of the top row wraps to the bottom
          // one (redis-server 7.0.15 misses the same points: 57 of 186 within 50 km of
          // 0,84.9 in one sample). Elsewhere it finds every one.
          const std::set<std::string> got = members(found);
          CHECK(std::includes(want.begin(), want.end(), got.begin(), got.end()));
          if (km <= 300 && std::fabs(clat) < 80) CHECK(got == want);
          CHECK(got.size() == found.size());  // no cell searched twice

          if (!found.empty()) {
            std::vector<geo::GeoPoint> limited;
            geo::search(z, s, 1, limited);  // COUNT 1 ANY: stops at the first point
            CHECK(limited.size() == 1);
          }
        }
      }
      types::zset_destroy(heap, z);
    }
  }
}

TEST_CASE("geo: sort_by_distance keeps the search order of ties in a full sort") {
  std::vector<geo::GeoPoint> v(5);
  const double d[] = {3, 1, 2, 1, 0};
  for (int i = 0; i < 5; ++i) {
    v[i].dist = d[i];
    v[i].score = i;  // the search order
  }
  geo::sort_by_distance(v, false, v.size());
  CHECK(v[0].score == 4);
  CHECK(v[1].score == 1);
  CHECK(v[2].score == 3);
  CHECK(v[4].score == 0);
  geo::sort_by_distance(v, true, v.size());
  CHECK(v[0].score == 0);
  CHECK(v[2].score == 1);
  CHECK(v[3].score == 3);
  geo::sort_by_distance(v, false, 2);
  CHECK(v[0].dist == 0);
  CHECK(v[1].dist == 1);
}

TEST_CASE("geo: pqsort leaves COUNT-cut ties where redis-server 7.0.15 does") {
  // GEOSEARCH k FROMMEMBER m232 BYRADIUS 500 km COUNT 5 over 7 points (search order below,
  // m232 and m928 on one spot): redis-server answers m928 m232 m758 m229 m384. The median
  // m758 already splits the array, so a NetBSD qsort with the swap_cnt switch would finish
  // with an insertion sort and answer m232 m928 …; 7.0.15's partition block swap puts m928
  // first.
  const double d[] = {74.9457, 0, 0, 3.3487, 85.7832, 119.5146, 119.5146};
  const int id[] = {229, 232, 928, 758, 384, 448, 986};
  std::vector<geo::GeoPoint> v(7);
  for (int i = 0; i < 7; ++i) {
    v[i].dist = d[i];
    v[i].score = id[i];
  }
  geo::sort_by_distance(v, false, 5);
  const int want[] = {928, 232, 758, 229, 384};
  for (int i = 0; i < 5; ++i) CHECK(v[i].score == want[i]);

  // A large array with many ties: the first `first` positions hold the smallest distances in
  // ascending order whatever the ties (the order among them is the algorithm's).
  std::mt19937 rng(7);
  for (std::size_t first : {1u, 3u, 10u, 99u}) {
    std::vector<geo::GeoPoint> w(100);
    for (auto& p : w) p.dist = static_cast<double>(rng() % 6);
    std::vector<double> sorted;
    for (const auto& p : w) sorted.push_back(p.dist);
    std::sort(sorted.begin(), sorted.end());
    geo::sort_by_distance(w, false, first);
    for (std::size_t i = 0; i < first; ++i) CHECK(w[i].dist == sorted[i]);
  }
}

TEST_CASE("geo: ShapeTest's prefilter never changes within()'s exact answer") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> lon_d(-180, 180), lat_d(geo::kLatMin, geo::kLatMax);
  std::uniform_real_distribution<double> unit(0, 1);
  long rejected_cheaply = 0, checked = 0;
  for (int c = 0; c < 300; ++c) {
    geo::Shape s;
    s.lon = c % 3 == 0 ? 180 - unit(rng) * 0.5 : lon_d(rng);
    s.lat = c % 5 == 0 ? geo::kLatMax - unit(rng) : lat_d(rng);
    s.conversion = 1;
    const double radii[] = {0, 1, 1000, 50000, 500000, 5e6, 9e6, 1.9e7, 2.1e7};
    s.radius = radii[c % 9];
    const geo::ShapeTest test(s);
    for (int i = 0; i < 400; ++i) {
      double lon = lon_d(rng), lat = lat_d(rng);
      if (i % 2 == 0) {  // near the centre, across the antimeridian too
        lon = s.lon + (unit(rng) - 0.5) * 4;
        if (lon > 180) lon -= 360;
        lat = std::clamp(s.lat + (unit(rng) - 0.5) * 2, geo::kLatMin, geo::kLatMax);
      }
      const double exact = geo::distance(s.lon, s.lat, lon, lat);
      // On the boundary, and one ulp inside and outside it.
      for (double r : {s.radius, exact, std::nextafter(exact, 0.0), std::nextafter(exact, 1e30)}) {
        geo::Shape t = s;
        t.radius = r;
        const geo::ShapeTest tt(t);
        double d = -1;
        const bool in = tt(lon, lat, d);
        CHECK(in == (exact <= r));
        if (in) CHECK(d == exact);
        ++checked;
        if (!in && d < 0) ++rejected_cheaply;
      }
      double d = 0;
      CHECK(test(lon, lat, d) == (exact <= s.radius));
      // score(): the decoding and the test in one, as decode_score + within().
      const auto sc = static_cast<double>(geo::score_of(lon, lat));
      double clon = 0, clat = 0, slon = 0, slat = 0, sd = 0, wd = 0;
      geo::decode_score(sc, clon, clat);
      const bool win = geo::within(s, clon, clat, wd);
      CHECK(test.score(sc, slon, slat, sd) == win);
      if (win) {
        CHECK(slon == clon);
        CHECK(slat == clat);
        CHECK(sd == wd);
      }
    }
  }
  CHECK(rejected_cheaply > checked / 10);  // the prefilter does reject outside points
}
