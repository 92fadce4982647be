#include <doctest/doctest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "proto/resp_writer.hpp"

using ruvio::proto::ReplyWriter;

namespace {

template <typename F>
std::string written(int protocol, F&& f) {
  std::string out;
  ReplyWriter w(out, protocol);
  f(w);
  return out;
}

}  // namespace

TEST_CASE("resp writer: types both protocols share") {
  for (int proto : {2, 3}) {
    CAPTURE(proto);
    CHECK(written(proto, [](ReplyWriter& w) { w.ok(); }) == "+OK\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.simple("PONG"); }) == "+PONG\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.simple(""); }) == "+\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.error("ERR syntax error"); }) ==
          "-ERR syntax error\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.error("ERR bad\r\nthing"); }) ==
          "-ERR bad  thing\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.integer(0); }) == ":0\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.integer(42); }) == ":42\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.integer(-7); }) == ":-7\r\n");
    CHECK(written(proto, [](ReplyWriter& w) {
            w.integer(std::numeric_limits<std::int64_t>::min());
          }) == ":-9223372036854775808\r\n");
    CHECK(written(proto, [](ReplyWriter& w) {
            w.integer(std::numeric_limits<std::int64_t>::max());
          }) == ":9223372036854775807\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk("foo"); }) == "$3\r\nfoo\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk(""); }) == "$0\r\n\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk(std::string("a\0\r\n", 4)); }) ==
          std::string("$4\r\na\0\r\n\r\n", 10));
    std::string big(1000, 'z');
    CHECK(written(proto, [&](ReplyWriter& w) { w.bulk(big); }) == "$1000\r\n" + big + "\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk_int(12345); }) == "$5\r\n12345\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk_int(-1); }) == "$2\r\n-1\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.bulk_int(0); }) == "$1\r\n0\r\n");
    CHECK(written(proto, [](ReplyWriter& w) {
            w.bulk_int(std::numeric_limits<std::int64_t>::min());
          }) == "$20\r\n-9223372036854775808\r\n");
    CHECK(written(proto, [](ReplyWriter& w) { w.array(0); }) == "*0\r\n");
    CHECK(written(proto, [](ReplyWriter& w) {
            w.array(2);
            w.bulk("a");
            w.integer(1);
          }) == "*2\r\n$1\r\na\r\n:1\r\n");
  }
}

TEST_CASE("resp writer: RESP2 degrades RESP3 types as Redis 7") {
  auto w2 = [](auto f) { return written(2, f); };
  CHECK(w2([](ReplyWriter& w) { w.null(); }) == "$-1\r\n");
  CHECK(w2([](ReplyWriter& w) { w.null_array(); }) == "*-1\r\n");
  CHECK(w2([](ReplyWriter& w) {
          w.map(2);
          w.bulk("a");
          w.integer(1);
          w.bulk("b");
          w.integer(2);
        }) == "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n");
  CHECK(w2([](ReplyWriter& w) { w.map(0); }) == "*0\r\n");
  CHECK(w2([](ReplyWriter& w) { w.set(3); }) == "*3\r\n");
  CHECK(w2([](ReplyWriter& w) { w.push(3); }) == "*3\r\n");
  CHECK(w2([](ReplyWriter& w) { w.boolean(true); }) == ":1\r\n");
  CHECK(w2([](ReplyWriter& w) { w.boolean(false); }) == ":0\r\n");
  CHECK(w2([](ReplyWriter& w) { w.verbatim("hello"); }) == "$5\r\nhello\r\n");
  CHECK(w2([](ReplyWriter& w) { w.verbatim("# x", "mkd"); }) == "$3\r\n# x\r\n");
  // Bytes taken from redis-server 7.0.15 (ZSCORE).
  CHECK(w2([](ReplyWriter& w) { w.double_value(1.1); }) == "$18\r\n1.1000000000000001\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(3); }) == "$1\r\n3\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(0.1); }) == "$19\r\n0.10000000000000001\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(1e300); }) == "$23\r\n1.0000000000000001e+300\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(5e-324); }) == "$23\r\n4.9406564584124654e-324\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(123456789012345678.0); }) ==
        "$22\r\n1.2345678901234568e+17\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(HUGE_VAL); }) == "$3\r\ninf\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(-HUGE_VAL); }) == "$4\r\n-inf\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(-0.0); }) == "$2\r\n-0\r\n");
  CHECK(w2([](ReplyWriter& w) { w.double_value(-std::nan("")); }) == "$3\r\nnan\r\n");
}

TEST_CASE("resp writer: RESP3 encodings") {
  auto w3 = [](auto f) { return written(3, f); };
  CHECK(w3([](ReplyWriter& w) { w.null(); }) == "_\r\n");
  CHECK(w3([](ReplyWriter& w) { w.null_array(); }) == "_\r\n");
  CHECK(w3([](ReplyWriter& w) {
          w.map(1);
          w.bulk("maxmemory");
          w.bulk("0");
        }) == "%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
  CHECK(w3([](ReplyWriter& w) { w.set(0); }) == "~0\r\n");
  CHECK(w3([](ReplyWriter& w) { w.set(2); }) == "~2\r\n");
  CHECK(w3([](ReplyWriter& w) {
          w.push(3);
          w.bulk("message");
          w.bulk("ch");
          w.bulk("hi");
        }) == ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");
  CHECK(w3([](ReplyWriter& w) { w.boolean(true); }) == "#t\r\n");
  CHECK(w3([](ReplyWriter& w) { w.boolean(false); }) == "#f\r\n");
  CHECK(w3([](ReplyWriter& w) { w.verbatim("hello"); }) == "=9\r\ntxt:hello\r\n");
  CHECK(w3([](ReplyWriter& w) { w.verbatim("", "mkd"); }) == "=4\r\nmkd:\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(1.1); }) == ",1.1000000000000001\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(3); }) == ",3\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(1e300); }) == ",1.0000000000000001e+300\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(HUGE_VAL); }) == ",inf\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(-HUGE_VAL); }) == ",-inf\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(std::nan("")); }) == ",nan\r\n");
  CHECK(w3([](ReplyWriter& w) { w.double_value(-std::nan("")); }) == ",nan\r\n");
}

TEST_CASE("resp writer: protocol switch after HELLO and appending to existing output") {
  std::string out = "+QUEUED\r\n";
  ReplyWriter w(out);
  CHECK(w.protocol() == 2);
  w.null();
  w.set_protocol(3);
  CHECK(w.protocol() == 3);
  w.null();
  CHECK(&w.buffer() == &out);
  CHECK(out == "+QUEUED\r\n$-1\r\n_\r\n");
}

TEST_CASE("resp writer: doubles and integers match printf on random values") {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = rng();
    double d;
    static_assert(sizeof(d) == sizeof(bits));
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isnan(d) || std::isinf(d)) continue;
    char want[64];
    std::snprintf(want, sizeof(want), ",%.17g\r\n", d);
    REQUIRE(written(3, [&](ReplyWriter& w) { w.double_value(d); }) == want);

    auto v = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    std::snprintf(want, sizeof(want), ":%" PRId64 "\r\n", v);
    REQUIRE(written(2, [&](ReplyWriter& w) { w.integer(v); }) == want);
  }
}
