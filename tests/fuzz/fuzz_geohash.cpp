// libFuzzer target: the geohash layer on arbitrary doubles. Scores come from any sorted set
// (ZADD can store a NaN-free double of any value, GEOPOS then decodes it), coordinates and
// radii from commands that have checked their ranges: decoding must never crash or leave the
// limits, the search cover must stay a valid set of cells, and the search prefilter must
// never change the exact answer of Redis's test.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_geohash.cpp worker/containers/geohash.cpp -o fuzz_geohash
//
// Input: a sequence of 8-byte doubles (native order): a score, then a centre, a radius, a box
// and points, each taken modulo the range a command would allow.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "worker/containers/geohash.hpp"

namespace {

namespace geo = ruvio::types::geo;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  bool next(double& d) {
    if (n < sizeof(d)) return false;
    std::memcpy(&d, p, sizeof(d));
    p += sizeof(d);
    n -= sizeof(d);
    return true;
  }
  // A value in [lo, hi] as a command would have accepted it (NaN and inf folded in).
  double in(double lo, double hi) {
    double d = 0;
    if (!next(d) || !std::isfinite(d)) return lo;
    if (d >= lo && d <= hi) return d;
    return lo + std::fmod(std::fabs(d), hi - lo);
  }
};

bool in_limits(double lon, double lat) {
  return lon >= geo::kLonMin && lon <= geo::kLonMax && lat >= geo::kLatMin && lat <= geo::kLatMax;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in{data, size};

  double score = 0;
  if (!in.next(score)) return 0;
  if (!std::isnan(score)) {  // a zset never holds NaN
    double lon = 0, lat = 0;
    check(geo::decode_score(score, lon, lat));
    check(in_limits(lon, lat));
    char hash[11];
    geo::geohash_string(score, hash);
    for (char c : hash) check(std::strchr("0123456789bcdefghjkmnpqrstuvwxyz", c) != nullptr);
  }

  geo::Shape s;
  s.lon = in.in(geo::kLonMin, geo::kLonMax);
  s.lat = in.in(geo::kLatMin, geo::kLatMax);
  const double units[] = {1, 1000, 0.3048, 1609.34};
  s.conversion = units[static_cast<std::size_t>(in.in(0, 3.99))];
  s.type = in.in(0, 1) < 0.5 ? geo::Shape::kCircle : geo::Shape::kBox;
  s.radius = in.in(0, 3e7);
  s.width = in.in(0, 6e7);
  s.height = in.in(0, 6e7);

  geo::Shape cs = s;
  const geo::Cover cover = geo::cover(cs);
  check(cover.hash.step >= 1 && cover.hash.step <= geo::kStepMax);
  for (const geo::HashBits& h :
       {cover.n.north, cover.n.south, cover.n.east, cover.n.west, cover.n.north_east,
        cover.n.north_west, cover.n.south_east, cover.n.south_west}) {
    check(h.zero() || (h.step == cover.hash.step && h.bits < (1ULL << (2 * h.step))));
  }

  const geo::ShapeTest test(s);
  for (int i = 0; i < 64 && in.n >= 16; ++i) {
    const double lon = in.in(geo::kLonMin, geo::kLonMax);
    const double lat = in.in(geo::kLatMin, geo::kLatMax);
    // The prefiltered test answers as Redis's plain formulas.
    double d = -1;
    const bool a = test(lon, lat, d);
    if (s.type == geo::Shape::kCircle) {
      const double exact = geo::distance(s.lon, s.lat, lon, lat);
      check(a == (exact <= s.radius * s.conversion));
      if (a) check(d == exact);
    } else {
      const bool inside = geo::lat_distance(lat, s.lat) <= s.height * s.conversion / 2 &&
                          geo::distance(lon, lat, s.lon, lat) <= s.width * s.conversion / 2;
      check(a == inside);
      if (a) check(d == geo::distance(s.lon, s.lat, lon, lat));
    }
    geo::Shape plain = s;
    // And score() as decode_score + the test.
    const auto sc = static_cast<double>(geo::score_of(lon, lat));
    double clon = 0, clat = 0, slon = 0, slat = 0, sd = 0, wd = 0;
    geo::decode_score(sc, clon, clat);
    const bool w = geo::within(plain, clon, clat, wd);
    check(test.score(sc, slon, slat, sd) == w);
    if (w) check(slon == clon && slat == clat && sd == wd);
  }
  return 0;
}
