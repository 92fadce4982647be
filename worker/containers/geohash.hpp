// Geohash: the 52-bit score a geo member is stored under, its decoding, the 8 neighbour cells,
// the haversine distance and the search shapes — Redis 7.0's geohash.c + geohash_helper.c
// semantics, operation for operation, so a point lands in the same cell, decodes to the same
// coordinates and measures the same distance as on redis-server. No RESP, no zset: the search
// over a sorted set is geo_search.hpp; the commands are worker/commands/geo/geo_commands.cpp.
//
//   score (a double holding an integer < 2^53; the zset orders members by it):
//
//     bit 51 ............................................. bit 0
//     [lon25 lat25][lon24 lat24] ... [lon1 lat1][lon0 lat0]         step 26: 26 bit pairs
//
//   lat = floor((latitude  + 85.05112878) / 170.10225756 * 2^26)   even bits (0, 2, ... 50)
//   lon = floor((longitude + 180)         / 360          * 2^26)   odd bits  (1, 3, ... 51)
//
//   A cell of step s < 26 is the 2s-bit prefix; its members are the scores
//   [prefix << (52 - 2s), (prefix + 1) << (52 - 2s)), one score range of the zset. Latitude is
//   limited to +-85.05112878 (EPSG:3857; the poles cannot be encoded). At exactly the upper
//   limits (lon 180, lat 85.05112878) the offset is 2^26 and its bit lands just above the
//   52 — as in Redis, whose decoding clamps the cell centre back into range.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ruvio::types::geo {

inline constexpr double kLonMin = -180;
inline constexpr double kLonMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr std::uint8_t kStepMax = 26;  // 52 bits
// Earth's quadratic mean radius for WGS-84, as Redis.
inline constexpr double kEarthRadiusM = 6372797.560856;

struct HashBits {
  std::uint64_t bits = 0;
  std::uint8_t step = 0;
  bool zero() const { return bits == 0 && step == 0; }  // a neighbour excluded from the search
};
struct Range {
  double min = 0, max = 0;
};
struct Area {
  HashBits hash;
  Range lon, lat;
};
struct Neighbors {
  HashBits north, east, west, south, north_east, south_east, north_west, south_west;
};

// The WGS-84 ranges GEOADD uses: lon -180..180, lat -85.05112878..85.05112878.
inline constexpr Range kLonRange{kLonMin, kLonMax};
inline constexpr Range kLatRange{kLatMin, kLatMax};

// geohashEncode: false outside the WGS-84 limits or outside the given ranges.
bool encode(Range lon_range, Range lat_range, double lon, double lat, std::uint8_t step,
            HashBits& out);
// geohashDecode: the cell's bounds (false for an all-zero hash).
bool decode(Range lon_range, Range lat_range, HashBits hash, Area& out);
// geohashNeighbors.
Neighbors neighbors(HashBits hash);
// geohashAlign52Bits: the cell's prefix shifted to a full 52-bit score.
std::uint64_t align52(HashBits hash);

// GEOADD's score for a point already checked to be in range.
std::uint64_t score_of(double lon, double lat);
// decodeGeohash: a zset score back to the centre of its step-26 cell (clamped to the limits).
// The double → uint64 conversion is x86-64's (cvttsd2si), which Redis's cast compiles to, so
// a score that is not a geo score decodes to the same coordinates as there.
bool decode_score(double score, double& lon, double& lat);
// GEOHASH: the 11-character standard geohash (re-encoded over lat -90..90) of a score.
void geohash_string(double score, char out[11]);

// geohashGetDistance: haversine on a sphere of kEarthRadiusM, in meters.
double distance(double lon1, double lat1, double lon2, double lat2);
// The first point of distance() with its terms computed once: distance(o, lon, lat) is
// bit for bit distance(o.lon, o.lat, lon, lat).
struct Origin {
  Origin(double lon, double lat);
  double lon, lat, lon_r, lat_r, cos_lat;
};
double distance(const Origin& o, double lon2, double lat2);
// geohashGetLatDistance: along a meridian.
double lat_distance(double lat1, double lat2);

// The area a search covers (Redis's GeoShape): a circle or an axis-aligned box around xy.
struct Shape {
  enum Type : std::uint8_t { kCircle, kBox } type = kCircle;
  double lon = 0, lat = 0;
  double conversion = 1;         // meters per unit
  double radius = 0;             // kCircle, in units
  double width = 0, height = 0;  // kBox, in units
  double bounds[4] = {};         // min lon, min lat, max lon, max lat (filled by cover())
};

// geohashCalculateAreasByShapeWGS84: the centre cell and the neighbours that can hold points
// of the shape (the others zeroed), at the step the shape's size picks.
struct Cover {
  HashBits hash;
  Neighbors n;
  Area area;
};
Cover cover(Shape& shape);

// geohashEstimateStepsByRadius.
std::uint8_t estimate_steps(double range_m, double lat);

// geoAppendIfWithinShape's test: true (and the distance to the centre, in meters) when the
// point lies inside the shape.
bool within(const Shape& shape, double lon, double lat, double& dist_m);

// within() for the many points of one search. For a circle it first rejects, with a margin
// of 1e-9 relative, the points whose latitude difference alone, or a lower bound of the
// haversine term from the longitude difference, puts them outside: a few multiplications
// instead of four transcendental calls for most candidates of the 9 cells. Every point
// not rejected gets Redis's exact computation, so the answer is within()'s.
class ShapeTest {
 public:
  explicit ShapeTest(const Shape& s);
  bool operator()(double lon, double lat, double& dist_m) const;
  // decode_score and the test in one: lon/lat are set when it returns true.
  bool score(double score, double& lon, double& lat, double& dist_m) const;

 private:
  bool lat_far(double lat) const;

  const Shape& s_;
  Origin o_;
  bool prefilter_ = false;
  double lat_limit_m_ = 0;  // reject when R * |dlat| exceeds this
  double lon_coef_ = 0;     // cos(lat1) * a lower bound of cos(lat2)
  double a_limit_ = 0;      // reject when the haversine term's lower bound exceeds this
};

}  // namespace ruvio::types::geo
