// Geohash encode/decode, neighbours, distances and search cover (see geohash.hpp). Every
// floating-point step is written in Redis's order (deg→rad as a product with pi/180, rad→deg
// as a quotient), since a different but equivalent formula can round one ulp apart and move
// a point across a radius boundary or change the 4th decimal of a printed distance.
#include "worker/containers/geohash.hpp"

#include <cmath>
#include <cstring>

namespace ruvio::types::geo {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
constexpr double kMercatorMax = 20037726.37;

double deg_rad(double d) {
  return d * kDegToRad;
}
double rad_deg(double r) {
  return r / kDegToRad;
}

// Spreads the 32 bits of v to the even bits of a 64-bit word.
std::uint64_t spread(std::uint32_t v) {
  std::uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse of spread: the even bits of x, packed.
std::uint32_t squash(std::uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<std::uint32_t>(x);
}

// double → uint64 as GCC compiles the cast on x86-64: below 2^63 a signed truncation (negative
// values wrap, anything not representable is 2^63), above it the value minus 2^63 with the
// top bit set.
std::uint64_t x86_to_u64(double d) {
  constexpr double k2p63 = 9223372036854775808.0;
  auto cvttsd2si = [](double v) -> std::uint64_t {
    if (!(v >= -k2p63 && v < k2p63)) return 0x8000000000000000ULL;  // "integer indefinite"
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  };
  if (!(d >= k2p63)) return cvttsd2si(d);  // NaN takes this branch too (comisd unordered)
  return cvttsd2si(d - k2p63) ^ 0x8000000000000000ULL;
}

// The fractional offset of v in r times 2^step, truncated to 32 bits as the C conversion in
// geohashEncode's call of interleave64 does (v is within r, so the value is at most 2^step).
std::uint32_t fixed_offset(double v, Range r, std::uint8_t step) {
  double off = (v - r.min) / (r.max - r.min);
  off *= static_cast<double>(1ULL << step);
  return static_cast<std::uint32_t>(off);
}

void move_x(HashBits& h, int d) {
  if (d == 0) return;
  std::uint64_t x = h.bits & 0xaaaaaaaaaaaaaaaaULL;
  const std::uint64_t y = h.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0x5555555555555555ULL >> (64 - h.step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - h.step * 2));
  h.bits = x | y;
}

void move_y(HashBits& h, int d) {
  if (d == 0) return;
  const std::uint64_t x = h.bits & 0xaaaaaaaaaaaaaaaaULL;
  std::uint64_t y = h.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - h.step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - h.step * 2));
  h.bits = x | y;
}

HashBits moved(HashBits h, int dx, int dy) {
  move_x(h, dx);
  move_y(h, dy);
  return h;
}

// One axis of decode() + geohashDecodeAreaToLongLat at step 26: the cell's bounds as Redis
// computes them (i + 1 wraps in 32 bits as there), their mean, clamped to [lo, hi].
double cell_centre(std::uint32_t i, Range r, double lo, double hi) {
  constexpr double kInvCells = 1.0 / static_cast<double>(1ULL << kStepMax);
  const double scale = r.max - r.min;
  const double min = r.min + (i * 1.0 * kInvCells) * scale;
  const double max = r.min + ((i + 1) * 1.0 * kInvCells) * scale;
  double c = (min + max) / 2;
  if (c > hi) c = hi;
  if (c < lo) c = lo;
  return c;
}
double centre_lat(std::uint64_t bits) {
  return cell_centre(squash(bits), kLatRange, kLatMin, kLatMax);
}
double centre_lon(std::uint64_t bits) {
  return cell_centre(squash(bits >> 1), kLonRange, kLonMin, kLonMax);
}

// geohashBoundingBox (7.0): the box of the shape, wider at its pole-side edge.
void bounding_box(Shape& s) {
  const double height = s.conversion * (s.type == Shape::kCircle ? s.radius : s.height / 2);
  const double width = s.conversion * (s.type == Shape::kCircle ? s.radius : s.width / 2);
  const double lat_delta = rad_deg(height / kEarthRadiusM);
  const double lon_delta_top =
      rad_deg(width / kEarthRadiusM / std::cos(deg_rad(s.lat + lat_delta)));
  const double lon_delta_bottom =
      rad_deg(width / kEarthRadiusM / std::cos(deg_rad(s.lat - lat_delta)));
  const bool southern = s.lat < 0;
  s.bounds[0] = southern ? s.lon - lon_delta_bottom : s.lon - lon_delta_top;
  s.bounds[2] = southern ? s.lon + lon_delta_bottom : s.lon + lon_delta_top;
  s.bounds[1] = s.lat - lat_delta;
  s.bounds[3] = s.lat + lat_delta;
}

}  // namespace

bool encode(Range lon_range, Range lat_range, double lon, double lat, std::uint8_t step,
            HashBits& out) {
  if (step > 32 || step == 0) return false;
  if (lat_range.max == 0 && lat_range.min == 0) return false;
  if (lon_range.max == 0 && lon_range.min == 0) return false;
  if (lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin) return false;
  out.bits = 0;
  out.step = step;
  if (lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max) {
    return false;
  }
  out.bits = spread(fixed_offset(lat, lat_range, step)) |
             (spread(fixed_offset(lon, lon_range, step)) << 1);
  return true;
}

bool decode(Range lon_range, Range lat_range, HashBits hash, Area& out) {
  if (hash.zero()) return false;
  out.hash = hash;
  const std::uint32_t ilat = squash(hash.bits);
  const std::uint32_t ilon = squash(hash.bits >> 1);
  const double lat_scale = lat_range.max - lat_range.min;
  const double lon_scale = lon_range.max - lon_range.min;
  // Redis divides by 2^step; multiplying by 2^-step is the same value, exactly (no rounding
  // for a power of two), and cheaper.
  const double inv_cells = 1.0 / static_cast<double>(1ULL << hash.step);
  out.lat.min = lat_range.min + (ilat * 1.0 * inv_cells) * lat_scale;
  out.lat.max = lat_range.min + ((ilat + 1) * 1.0 * inv_cells) * lat_scale;
  out.lon.min = lon_range.min + (ilon * 1.0 * inv_cells) * lon_scale;
  out.lon.max = lon_range.min + ((ilon + 1) * 1.0 * inv_cells) * lon_scale;
  return true;
}

Neighbors neighbors(HashBits h) {
  Neighbors n;
  n.east = moved(h, 1, 0);
  n.west = moved(h, -1, 0);
  n.south = moved(h, 0, -1);
  n.north = moved(h, 0, 1);
  n.north_west = moved(h, -1, 1);
  n.north_east = moved(h, 1, 1);
  n.south_east = moved(h, 1, -1);
  n.south_west = moved(h, -1, -1);
  return n;
}

std::uint64_t align52(HashBits hash) {
  return hash.bits << (52 - hash.step * 2);
}

std::uint64_t score_of(double lon, double lat) {
  HashBits h;
  encode(kLonRange, kLatRange, lon, lat, kStepMax, h);
  return align52(h);
}

bool decode_score(double score, double& lon, double& lat) {
  const std::uint64_t bits = x86_to_u64(score);
  lon = centre_lon(bits);
  lat = centre_lat(bits);
  return true;  // a step-26 hash is never the all-zero "no cell"
}

void geohash_string(double score, char out[11]) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  double lon = 0, lat = 0;
  decode_score(score, lon, lat);
  HashBits h;
  encode(Range{-180, 180}, Range{-90, 90}, lon, lat, kStepMax, h);
  for (int i = 0; i < 10; ++i) out[i] = kAlphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = kAlphabet[0];  // 52 bits fill 10.4 characters; the 11th is 0, as Redis
}

double lat_distance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(deg_rad(lat2) - deg_rad(lat1));
}

Origin::Origin(double lon_deg, double lat_deg)
    : lon(lon_deg),
      lat(lat_deg),
      lon_r(deg_rad(lon_deg)),
      lat_r(deg_rad(lat_deg)),
      cos_lat(std::cos(lat_r)) {}

double distance(const Origin& o, double lon2, double lat2) {
  const double lon2r = deg_rad(lon2);
  const double v = std::sin((lon2r - o.lon_r) / 2);
  // On one meridian asin(sin(|dlat|/2)) is |dlat|/2: Redis 7.0.15 takes that shortcut, whose
  // result can differ from the full formula's in the last bit.
  if (v == 0.0) return lat_distance(o.lat, lat2);
  const double lat2r = deg_rad(lat2);
  const double u = std::sin((lat2r - o.lat_r) / 2);
  const double a = u * u + o.cos_lat * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

double distance(double lon1, double lat1, double lon2, double lat2) {
  return distance(Origin(lon1, lat1), lon2, lat2);
}

std::uint8_t estimate_steps(double range_m, double lat) {
  if (range_m == 0) return 26;
  int step = 1;
  while (range_m < kMercatorMax) {
    range_m *= 2;
    ++step;
  }
  step -= 2;  // so that the range fits the 9 cells in most cases
  // Meridians converge towards the poles: coarser cells there.
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return static_cast<std::uint8_t>(step);
}

Cover cover(Shape& s) {
  bounding_box(s);
  const double min_lon = s.bounds[0], min_lat = s.bounds[1];
  const double max_lon = s.bounds[2], max_lat = s.bounds[3];
  double radius_m =
      s.type == Shape::kCircle
          ? s.radius
          : std::sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2));
  radius_m *= s.conversion;

  std::uint8_t steps = estimate_steps(radius_m, s.lat);
  Cover c;
  encode(kLonRange, kLatRange, s.lon, s.lat, steps, c.hash);
  c.n = neighbors(c.hash);
  decode(kLonRange, kLatRange, c.hash, c.area);

  // One cell coarser when a side neighbour does not reach the edge of the shape's box.
  Area north, south, east, west;
  decode(kLonRange, kLatRange, c.n.north, north);
  decode(kLonRange, kLatRange, c.n.south, south);
  decode(kLonRange, kLatRange, c.n.east, east);
  decode(kLonRange, kLatRange, c.n.west, west);
  const bool decrease = north.lat.max < max_lat || south.lat.min > min_lat ||
                        east.lon.max < max_lon || west.lon.min > min_lon;
  if (steps > 1 && decrease) {
    --steps;
    encode(kLonRange, kLatRange, s.lon, s.lat, steps, c.hash);
    c.n = neighbors(c.hash);
    decode(kLonRange, kLatRange, c.hash, c.area);
  }

  // Drop the neighbours on a side the shape does not reach.
  if (steps >= 2) {
    if (c.area.lat.min < min_lat) c.n.south = c.n.south_west = c.n.south_east = HashBits{};
    if (c.area.lat.max > max_lat) c.n.north = c.n.north_east = c.n.north_west = HashBits{};
    if (c.area.lon.min < min_lon) c.n.west = c.n.south_west = c.n.north_west = HashBits{};
    if (c.area.lon.max > max_lon) c.n.east = c.n.south_east = c.n.north_east = HashBits{};
  }
  return c;
}

bool within(const Shape& s, double lon, double lat, double& dist_m) {
  return ShapeTest(s)(lon, lat, dist_m);
}

ShapeTest::ShapeTest(const Shape& s) : s_(s), o_(s.lon, s.lat) {
  if (s.type != Shape::kCircle) return;
  const double radius_m = s.radius * s.conversion;
  // The bounds hold while the radius is below a quarter of the circumference (a monotonic
  // haversine term); beyond that every point takes the exact path.
  if (!(radius_m < 0.45 * M_PI * kEarthRadiusM)) return;
  constexpr double kMargin = 1e-9;
  prefilter_ = true;
  lat_limit_m_ = radius_m * (1 + kMargin) + 1e-6;
  // A point that passed the latitude test lies within lat1 +- dlat: cos(lat2) is at least
  // the cosine at the pole-side end of that band.
  const double far = std::fabs(o_.lat_r) + lat_limit_m_ / kEarthRadiusM;
  const double cos_far = far >= M_PI / 2 ? 0.0 : std::cos(far);
  lon_coef_ = o_.cos_lat * cos_far * (1 - kMargin);
  const double h = std::sin(radius_m / (2 * kEarthRadiusM));
  a_limit_ = h * h * (1 + kMargin) + 1e-300;
}

bool ShapeTest::score(double score, double& lon, double& lat, double& dist_m) const {
  // Latitude first: most candidates fail on it before their longitude is decoded.
  const std::uint64_t bits = x86_to_u64(score);
  lat = centre_lat(bits);
  if (s_.type == Shape::kCircle) {
    if (prefilter_ && lat_far(lat)) return false;
  } else if (lat_distance(lat, s_.lat) > s_.height * s_.conversion / 2) {
    return false;
  }
  lon = centre_lon(bits);
  return (*this)(lon, lat, dist_m);
}

bool ShapeTest::lat_far(double lat) const {
  // R * |dlat| <= great-circle distance.
  return kEarthRadiusM * std::fabs(deg_rad(lat) - o_.lat_r) > lat_limit_m_;
}

bool ShapeTest::operator()(double lon, double lat, double& dist_m) const {
  if (s_.type == Shape::kCircle) {
    if (prefilter_) {
      if (lat_far(lat)) return false;
      // a >= cos(lat1) cos(lat2) sin^2(|dlon| / 2) and sin(x) >= x - x^3 / 6 for x >= 0.
      const double x = std::fabs(deg_rad(lon) - o_.lon_r) / 2;
      const double sx = x - x * x * x / 6;
      if (sx > 0 && lon_coef_ * sx * sx > a_limit_) return false;
    }
    dist_m = distance(o_, lon, lat);
    return dist_m <= s_.radius * s_.conversion;
  }
  // geohashGetDistanceIfInRectangle: the cheaper latitude test first, each axis distance
  // measured from the point.
  if (lat_distance(lat, s_.lat) > s_.height * s_.conversion / 2) return false;
  if (distance(lon, lat, s_.lon, lat) > s_.width * s_.conversion / 2) return false;
  dist_m = distance(o_, lon, lat);
  return true;
}

}  // namespace ruvio::types::geo
