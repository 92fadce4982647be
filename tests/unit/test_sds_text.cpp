// split_args and repr against what Redis's sdssplitargs and sdscatrepr do (sds.c).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shared/sds_text.hpp"

using ruvio::repr;
using ruvio::split_args;
using Words = std::vector<std::string>;

TEST_CASE("repr: Redis's sdscatrepr") {
  CHECK(repr("*1\r\n$4\r\nPING\r\n", 64) == "\"*1\\r\\n$4\\r\\nPING\\r\\n\"");
  CHECK(repr(std::string("a\0\"\\", 4), 64) == "\"a\\x00\\\"\\\\\"");
  CHECK(repr("abcdef", 3) == "\"abc\"");
  CHECK(repr("\a\b\t\x7f\xff") == "\"\\a\\b\\t\\x7f\\xff\"");
  CHECK(repr("") == "\"\"");
}

TEST_CASE("split_args: Redis's sdssplitargs") {
  CHECK(split_args("  set  k   v ") == Words{"set", "k", "v"});
  CHECK(split_args("") == Words{});
  CHECK(split_args("\"a b\" 'c d'") == Words{"a b", "c d"});
  CHECK(split_args("\"\\x41\\n\\t\\\"\\\\\"") == Words{"A\n\t\"\\"});
  CHECK(split_args("\"\\xZZ\"") == Words{"xZZ"});  // not hex: the backslash only drops
  CHECK(split_args("'it\\'s' 'a\\nb'") == Words{"it's", "a\\nb"});
  CHECK(split_args("foo\"bar baz\" x") == Words{"foobar baz", "x"});  // a quote opens mid-word
  CHECK(split_args("\"\"") == Words{""});
  CHECK_FALSE(split_args("\"open"));
  CHECK_FALSE(split_args("'open"));
  CHECK_FALSE(split_args("\"glued\"x"));
  CHECK_FALSE(split_args("'glued'x"));
  // round trip: what repr writes, split_args reads back
  const std::string nasty("a \"b\"\\ \x01\xfe\r\n", 12);
  CHECK(split_args(repr(nasty)) == Words{nasty});
}
