"""Bad stream input gets redis-server 7.0.15's exact error and changes nothing: malformed
IDs, 0-0, a sequence that cannot grow, IDs at or below the top, negative MAXLEN / LIMIT,
unknown groups and consumers, wrong types, bad options. Each command goes to a redis-server
and to Ruvio holding the same stream with a group; the replies must be the same bytes, the
ones listed below must be exactly those texts, and afterwards XINFO STREAM FULL (times
masked) and XRANGE must show both servers still hold what they held before."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "differential"))
import harness  # noqa: E402
import sidebyside  # noqa: E402
from itest import Raw  # noqa: E402
from test_stream_differential import _mask  # noqa: E402
from resp_raw import parse  # noqa: E402

MAX = "18446744073709551615"
INVALID = b"-ERR Invalid stream ID specified as stream command argument\r\n"
SMALLER = b"-ERR The ID specified in XADD is equal or smaller than the target stream top item\r\n"

SETUP = [["XADD", "s", "5-1", "a", "1"], ["XADD", "s", "5-2", "a", "2"],
         ["XADD", "top", "1-" + MAX, "a", "1"], ["XADD", "full", MAX + "-" + MAX, "a", "1"],
         ["XGROUP", "CREATE", "s", "g", "0"], ["SET", "str", "x"]]

CASES = {
    ("XADD", "s", "0-0", "a", "1"): b"-ERR The ID specified in XADD must be greater than 0-0\r\n",
    ("XADD", "new", "0-0", "a", "1"): b"-ERR The ID specified in XADD must be greater than 0-0\r\n",
    ("XADD", "s", "5-2", "a", "1"): SMALLER,
    ("XADD", "s", "4", "a", "1"): SMALLER,
    ("XADD", "s", "abc", "a", "1"): INVALID,
    ("XADD", "s", "1-" + MAX + "0", "a", "1"): INVALID,
    ("XADD", "s", MAX + "0-1", "a", "1"): INVALID,
    ("XADD", "s", "-1", "a", "1"): INVALID,
    ("XADD", "s", "1-2-3", "a", "1"): INVALID,
    ("XADD", "full", "*", "a", "1"):
        b"-ERR The stream has exhausted the last possible ID, unable to add more items\r\n",
    ("XADD", "s", "MAXLEN", "-1", "*", "a", "1"): b"-ERR The MAXLEN argument must be >= 0.\r\n",
    ("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "*", "a", "1"):
        b"-ERR The LIMIT argument must be >= 0.\r\n",
    ("XADD", "s", "LIMIT", "5", "*", "a", "1"):
        b"-ERR syntax error, LIMIT cannot be used without specifying a trimming strategy\r\n",
    ("XADD", "s", "MAXLEN", "5", "LIMIT", "5", "*", "a", "1"):
        b"-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n",
    ("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "1"):
        b"-ERR syntax error, MAXLEN and MINID options at the same time are not compatible\r\n",
    ("XADD", "s", "MAXLEN", "x", "*", "a", "1"):
        b"-ERR value is not an integer or out of range\r\n",
    ("XADD", "s", "*", "a"): b"-ERR wrong number of arguments for 'xadd' command\r\n",
    ("XADD", "str", "*", "a", "1"):
        b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
    ("XTRIM", "s", "MAXLEN", "-5"): b"-ERR The MAXLEN argument must be >= 0.\r\n",
    ("XTRIM", "s", "FOO", "1"): b"-ERR syntax error\r\n",
    ("XTRIM", "s", "MINID", "x"): INVALID,
    ("XRANGE", "s", "(-", "+"): INVALID,
    ("XRANGE", "s", "-", "(0-0"): b"-ERR invalid end ID for the interval\r\n",
    ("XRANGE", "s", "(" + MAX + "-" + MAX, "+"): b"-ERR invalid start ID for the interval\r\n",
    ("XRANGE", "s", "-", "+", "COUNT"): b"-ERR syntax error\r\n",
    ("XDEL", "s", "5-1", "bad"): INVALID,
    ("XDEL", "s", "-"): INVALID,
    ("XREAD", "STREAMS", "s", "+"): INVALID,
    ("XREAD", "COUNT", "x", "STREAMS", "s", "0"):
        b"-ERR value is not an integer or out of range\r\n",
    ("XREAD", "STREAMS", "s", "t", "0"):
        b"-ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
        b"specified.\r\n",
    ("XREADGROUP", "GROUP", "nog", "c", "STREAMS", "s", ">"):
        b"-NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option\r\n",
    ("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "$"):
        b"-ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
        b"history of this consumer by specifying a proper ID, or use the > ID to get new "
        b"messages. The $ ID would just return an empty result set.\r\n",
    ("XREADGROUP", "COUNT", "1", "NOACK", "STREAMS", "s", ">"):
        b"-ERR Missing GROUP option for XREADGROUP\r\n",
    ("XACK", "s", "g", "bad"): INVALID,
    ("XPENDING", "s", "nog"): b"-NOGROUP No such key 's' or consumer group 'nog'\r\n",
    ("XPENDING", "s", "g", "-", "+"): b"-ERR syntax error\r\n",
    ("XCLAIM", "s", "nog", "c", "0", "5-1"): b"-NOGROUP No such key 's' or consumer group 'nog'\r\n",
    ("XCLAIM", "s", "g", "c", "x", "5-1"): b"-ERR Invalid min-idle-time argument for XCLAIM\r\n",
    ("XCLAIM", "s", "g", "c", "0", "5-1", "FOO"): b"-ERR Unrecognized XCLAIM option 'FOO'\r\n",
    ("XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "0"): b"-ERR COUNT must be > 0\r\n",
    ("XGROUP", "CREATE", "nokey", "g", "$"):
        b"-ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
        b"want to use the MKSTREAM option to create an empty stream automatically.\r\n",
    ("XGROUP", "CREATE", "s", "g", "$"): b"-BUSYGROUP Consumer Group name already exists\r\n",
    ("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "-3"):
        b"-ERR value for ENTRIESREAD must be positive or -1\r\n",
    ("XGROUP", "SETID", "s", "nog", "0"):
        b"-NOGROUP No such consumer group 'nog' for key name 's'\r\n",
    ("XGROUP", "CREATECONSUMER", "s", "nog", "c"):
        b"-NOGROUP No such consumer group 'nog' for key name 's'\r\n",
    ("XGROUP", "FOO", "s"): None,
    ("XINFO", "STREAM", "nokey"): b"-ERR no such key\r\n",
    ("XINFO", "CONSUMERS", "s", "nog"):
        b"-NOGROUP No such consumer group 'nog' for key name 's'\r\n",
    ("XINFO", "STREAM", "s", "FULL", "COUNT", "x"):
        b"-ERR value is not an integer or out of range\r\n",
    ("XSETID", "s", "1-0"):
        b"-ERR The ID specified in XSETID is smaller than the target stream top item\r\n",
    ("XSETID", "s", "9-0", "ENTRIESADDED", "-1"): b"-ERR entries_added must be positive\r\n",
    ("XSETID", "s", "9-0", "ENTRIESADDED", "1"):
        b"-ERR The entries_added specified in XSETID is smaller than the target stream "
        b"length\r\n",
    ("XSETID", "s", "9-0", "MAXDELETEDID", "10-0"):
        b"-ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id\r\n",
    ("XSETID", "nokey", "9-0"): b"-ERR no such key\r\n",
}


def state(c):
    out = []
    for k in ("s", "top", "full", "new"):
        out.append(c.call("XRANGE", k, "-", "+"))
        out.append(repr(_mask(parse(c.call("XINFO", "STREAM", k, "FULL")))).encode())
        out.append(c.call("EXISTS", k))
    return out


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class StreamBadInput(unittest.TestCase):
    def test_errors_are_redis_and_change_nothing(self):
        with sidebyside.pair() as (ref, cand):
            with Raw(ref.port) as a, Raw(cand.port) as b:
                for cmd in SETUP:
                    self.assertEqual(a.call(*cmd), b.call(*cmd), cmd)
                before_a, before_b = state(a), state(b)
                self.assertEqual(before_a, before_b)
                for cmd, want in CASES.items():
                    with self.subTest(cmd=cmd):
                        ra, rb = a.call(*cmd), b.call(*cmd)
                        self.assertEqual(ra, rb)
                        if want is not None:
                            self.assertEqual(rb, want)
                        self.assertEqual(rb[:1], b"-")
                self.assertEqual(state(a), before_a)
                self.assertEqual(state(b), before_b)


if __name__ == "__main__":
    unittest.main()
