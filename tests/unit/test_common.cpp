// The number parsers must accept and refuse exactly what Redis's util.c does.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "worker/engine/common.hpp"

using ruvio::worker::format_int64;
using ruvio::worker::iequals;
using ruvio::worker::parse_double;
using ruvio::worker::parse_int64;
using ruvio::worker::parse_long_double;
using ruvio::worker::parse_scan_cursor;

TEST_CASE("parse_int64 follows string2ll") {
  CHECK(parse_int64("0") == 0);
  CHECK(parse_int64("1") == 1);
  CHECK(parse_int64("-1") == -1);
  CHECK(parse_int64("123456") == 123456);
  CHECK(parse_int64("9223372036854775807") == INT64_MAX);
  CHECK(parse_int64("-9223372036854775808") == INT64_MIN);

  CHECK_FALSE(parse_int64(""));
  CHECK_FALSE(parse_int64("-"));
  CHECK_FALSE(parse_int64("-0"));
  CHECK_FALSE(parse_int64("007"));
  CHECK_FALSE(parse_int64("00"));
  CHECK_FALSE(parse_int64("+1"));
  CHECK_FALSE(parse_int64(" 1"));
  CHECK_FALSE(parse_int64("1 "));
  CHECK_FALSE(parse_int64("1.0"));
  CHECK_FALSE(parse_int64("1e3"));
  CHECK_FALSE(parse_int64("abc"));
  CHECK_FALSE(parse_int64("9223372036854775808"));
  CHECK_FALSE(parse_int64("-9223372036854775809"));
  CHECK_FALSE(parse_int64("18446744073709551616"));
  CHECK_FALSE(parse_int64("99999999999999999999"));
  CHECK_FALSE(parse_int64("123456789012345678901"));  // 21 chars: refused by length
  CHECK_FALSE(parse_int64(std::string_view("12\0", 3)));
  // A view that is not NUL-terminated: only its own bytes count.
  std::string_view part = std::string_view("12345").substr(0, 2);
  CHECK(parse_int64(part) == 12);
}

TEST_CASE("parse_long_double follows string2ld") {
  CHECK(parse_long_double("1.5") == 1.5L);
  CHECK(parse_long_double("-3") == -3.0L);
  CHECK(parse_long_double(".5") == 0.5L);
  CHECK(parse_long_double("5.") == 5.0L);
  CHECK(parse_long_double("+3.5") == 3.5L);
  CHECK(parse_long_double("1E2") == 100.0L);
  CHECK(parse_long_double("0x10") == 16.0L);
  CHECK(parse_long_double("-0.0") == 0.0L);
  auto inf = parse_long_double("inf");
  REQUIRE(inf);
  CHECK(std::isinf(*inf));
  CHECK(parse_long_double("1e4000"));  // fits an 80-bit long double

  CHECK_FALSE(parse_long_double(""));
  CHECK_FALSE(parse_long_double("nan"));
  CHECK_FALSE(parse_long_double(" 1"));
  CHECK_FALSE(parse_long_double("1 "));
  CHECK_FALSE(parse_long_double("abc"));
  CHECK_FALSE(parse_long_double("1.5x"));
  CHECK_FALSE(parse_long_double("1e-5000"));  // underflow to zero
  CHECK_FALSE(parse_long_double("1e5000"));   // overflow to HUGE_VALL
  CHECK_FALSE(parse_long_double(std::string_view("1\0", 2)));
  CHECK_FALSE(parse_long_double(std::string(5120, '1')));
  CHECK(parse_long_double(std::string_view("2.5xyz").substr(0, 3)) == 2.5L);
}

TEST_CASE("parse_double follows string2d") {
  CHECK(parse_double("1.5") == 1.5);
  CHECK(parse_double("-2") == -2.0);
  CHECK(parse_double("inf") == HUGE_VAL);
  CHECK(parse_double("+inf") == HUGE_VAL);
  CHECK(parse_double("-inf") == -HUGE_VAL);
  CHECK(parse_double("1e10") == 1e10);

  CHECK_FALSE(parse_double(""));
  CHECK_FALSE(parse_double("nan"));
  CHECK_FALSE(parse_double(" 1"));
  CHECK_FALSE(parse_double("1 "));
  CHECK_FALSE(parse_double("1e400"));
  CHECK_FALSE(parse_double("1e-400"));
  CHECK_FALSE(parse_double("x"));
  CHECK(parse_double(std::string(200, '1')));  // long input takes the heap path
  CHECK(parse_double(std::string_view("3.25abc").substr(0, 4)) == 3.25);
}

TEST_CASE("iequals is ASCII case-insensitive") {
  CHECK(iequals("KEEPTTL", "keepttl"));
  CHECK(iequals("Ex", "eX"));
  CHECK(iequals("", ""));
  CHECK_FALSE(iequals("EX", "EXAT"));
  CHECK_FALSE(iequals("px", "py"));
  CHECK_FALSE(iequals("[", "{"));  // '[' + 32 == '{': only letters fold
}

TEST_CASE("format_int64 matches ll2string") {
  char buf[21];
  CHECK(format_int64(0, buf) == "0");
  CHECK(format_int64(7, buf) == "7");
  CHECK(format_int64(-42, buf) == "-42");
  CHECK(format_int64(INT64_MAX, buf) == "9223372036854775807");
  CHECK(format_int64(INT64_MIN, buf) == "-9223372036854775808");
  CHECK(format_int64(1000000, buf) == "1000000");
}

TEST_CASE("parse_scan_cursor follows parseScanCursorOrReply (strtoul)") {
  CHECK(parse_scan_cursor("0") == 0u);
  CHECK(parse_scan_cursor("") == 0u);
  CHECK(parse_scan_cursor("+5") == 5u);
  CHECK(parse_scan_cursor("007") == 7u);
  CHECK(parse_scan_cursor("-0") == 0u);
  CHECK(parse_scan_cursor("-1") == UINT64_MAX);
  CHECK(parse_scan_cursor("18446744073709551615") == UINT64_MAX);
  CHECK(parse_scan_cursor("-18446744073709551615") == 1u);
  CHECK_FALSE(parse_scan_cursor(" 5"));
  CHECK_FALSE(parse_scan_cursor("5 "));
  CHECK_FALSE(parse_scan_cursor("5a"));
  CHECK_FALSE(parse_scan_cursor("18446744073709551616"));
  CHECK_FALSE(parse_scan_cursor("-18446744073709551616"));
  CHECK_FALSE(parse_scan_cursor("0x1"));
  CHECK_FALSE(parse_scan_cursor("+-1"));
  CHECK_FALSE(parse_scan_cursor("-"));
  CHECK_FALSE(parse_scan_cursor("+"));
}
