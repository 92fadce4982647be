#include "worker/containers/stream_id.hpp"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ruvio::types {
namespace {

// Redis's string2ll: optional '-', no '+', no blanks, no leading zeros, fits int64.
bool string2ll(const char* s, std::size_t len, long long& out) {
  if (len == 0 || len > 20) return false;
  if (len == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    if (++i == len) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  unsigned long long v = 0;
  for (; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (ULLONG_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  if (neg) {
    if (v > static_cast<unsigned long long>(LLONG_MAX) + 1) return false;
    out = static_cast<long long>(0 - v);
  } else {
    if (v > static_cast<unsigned long long>(LLONG_MAX)) return false;
    out = static_cast<long long>(v);
  }
  return true;
}

}  // namespace

bool stream_string2ull(const char* s, std::uint64_t& out) {
  // Up to 19 plain digits (leading zeros too, which string2ll refuses and strtoull reads the
  // same way: XACK of "000000001234-0" from a benchmark) cannot overflow: read them here.
  std::uint64_t v = 0;
  std::size_t n = 0;
  for (; n < 20 && s[n] >= '0' && s[n] <= '9'; ++n) v = v * 10 + static_cast<unsigned>(s[n] - '0');
  if (n != 0 && n < 20 && s[n] == '\0') {
    out = v;
    return true;
  }
  long long ll;
  if (string2ll(s, std::strlen(s), ll)) {
    if (ll < 0) return false;
    out = static_cast<std::uint64_t>(ll);
    return true;
  }
  errno = 0;
  char* end = nullptr;
  out = std::strtoull(s, &end, 10);
  return !(errno == EINVAL || errno == ERANGE || !(*s != '\0' && *end == '\0'));
}

bool stream_id_incr(StreamID& id) {
  if (id.seq == UINT64_MAX) {
    if (id.ms == UINT64_MAX) return false;
    ++id.ms;
    id.seq = 0;
  } else {
    ++id.seq;
  }
  return true;
}

bool stream_id_decr(StreamID& id) {
  if (id.seq == 0) {
    if (id.ms == 0) return false;
    --id.ms;
    id.seq = UINT64_MAX;
  } else {
    --id.seq;
  }
  return true;
}

std::string_view stream_id_format(const StreamID& id, char* buf) {
  // to_chars, not snprintf: every entry a range or a group read replies starts with its ID.
  char* p = std::to_chars(buf, buf + 20, id.ms).ptr;
  *p++ = '-';
  p = std::to_chars(p, p + 20, id.seq).ptr;
  return {buf, static_cast<std::size_t>(p - buf)};
}

bool stream_id_parse(std::string_view s, std::uint64_t missing_seq, bool strict,
                     bool allow_seq_star, ParsedStreamId& out) {
  char buf[128];
  if (s.size() > sizeof(buf) - 1) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') return false;
  out.seq_given = true;
  if (buf[0] == '-' && buf[1] == '\0') {
    out.id = kStreamMinId;
    return true;
  }
  if (buf[0] == '+' && buf[1] == '\0') {
    out.id = kStreamMaxId;
    return true;
  }
  std::uint64_t ms = 0, seq = 0;
  char* dot = std::strchr(buf, '-');
  if (dot != nullptr) *dot = '\0';
  if (!stream_string2ull(buf, ms)) return false;
  if (dot != nullptr) {
    if (allow_seq_star && dot[1] == '*' && dot[2] == '\0') {
      seq = 0;
      out.seq_given = false;
    } else if (!stream_string2ull(dot + 1, seq)) {
      return false;
    }
  } else {
    seq = missing_seq;
  }
  out.id = {ms, seq};
  return true;
}

}  // namespace ruvio::types
