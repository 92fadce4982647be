"""LOLWUT beside redis-server 7.0, raw replies byte for byte: the version line for the default
and every version but 5 and 6; VERSION 5 (Schotter) for sizes whose drawing has no random
part (at most 2 squares per column: Redis displaces only rows 3 and below), clamped
parameters, a version given as a 64-bit number (printed with %u), errors for non-numbers; in
RESP2 and RESP3 (verbatim txt). The random drawings are compared by their shape: the same
number of lines of the same length and the same footer. VERSION 6 (the skyline, random
buildings) is compared by its shape too: the same rows of the same number of cells, each
cell one of the four gray escapes, the same footer, and the top row (always sky: no building
reaches it) and 1-row drawings byte for byte; its errors and clamps exactly."""

import re

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "differential"))
import harness  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import RawConn  # noqa: E402

EXACT = [["LOLWUT"], ["LOLWUT", "VERSION", "7"], ["LOLWUT", "VERSION", "4"],
         ["LOLWUT", "VERSION", "-1"], ["LOLWUT", "VERSION", "x"], ["LOLWUT", "VERSION"],
         ["LOLWUT", "10", "2", "2"], ["LOLWUT", "VERSION", "5", "x"],
         ["LOLWUT", "VERSION", "5", "10", "2", "y"], ["LOLWUT", "VERSION", "5", "0", "0", "0"],
         ["LOLWUT", "VERSION", "5", "-5", "-1", "1"],
         ["LOLWUT", "VERSION", "5", "3000", "500", "1"],
         ["LOLWUT", "VERSION", "4294967301", "20", "3", "2"],
         ["LOLWUT", "VERSION", "5", "66", "8", "2", "extra"]]
for cols in (1, 2, 3, 5, 10, 33, 66, 101):
    for row in (1, 2, 3, 8, 13):
        for col in (1, 2):
            EXACT.append(["LOLWUT", "VERSION", "5", str(cols), str(row), str(col)])

EXACT += [["LOLWUT", "VERSION", "6", "x"], ["LOLWUT", "VERSION", "6", "10", "y"],
          ["LOLWUT", "VERSION", "6", "1.5"], ["LOLWUT", "VERSION", "6", "7", "1"],
          ["LOLWUT", "VERSION", "6", "0", "-3"], ["LOLWUT", "VERSION", "6", "1", "1"],
          ["LOLWUT", "VERSION", "6", "3000", "1"]]
SKYLINES = [["LOLWUT", "VERSION", "6"], ["LOLWUT", "VERSION", "6", "40"],
            ["LOLWUT", "VERSION", "6", "40", "15"], ["LOLWUT", "VERSION", "6", "1", "30"],
            ["LOLWUT", "VERSION", "6", "7", "2"], ["LOLWUT", "VERSION", "6", "150", "50", "x"],
            ["LOLWUT", "VERSION", "6", "5000", "3"], ["LOLWUT", "VERSION", "6", "3", "5000"]]
CELL = re.compile(rb"\x1b\[0;(?:30;40|90;100|37;47|97;107)m \x1b\[0m")


def skyline(reply):
    """(cells per row, top row, footer lines) of a LOLWUT 6 reply, its header cut."""
    body = reply[reply.index(b"\n") + 1:]  # $len or =len, then txt: in RESP3
    if body.startswith(b"txt:"):
        body = body[4:]
    lines = body.split(b"\n")
    rows, footer = lines[:-4], lines[-4:]
    cells = []
    for row in rows:
        found = CELL.findall(row)
        assert b"".join(found) == row, row[:80]
        cells.append(len(found))
    return cells, rows[0], footer


RANDOM = [["LOLWUT", "VERSION", "5"], ["LOLWUT", "VERSION", "5", "40", "5", "7"],
          ["LOLWUT", "VERSION", "5", "120", "20", "30"]]


def shape(reply):
    lines = reply.split(b"\n")
    return [len(x) for x in lines[1:-3]], lines[-3:]


@unittest.skipUnless(harness.ruvio_built(), f"{harness.RUVIO_BIN} not built")
class Lolwut(unittest.TestCase):
    def test_side_by_side(self):
        with sidebyside.pair() as (redis, ruvio):
            for proto in (2, 3):
                a, b = RawConn(ruvio.port), RawConn(redis.port)
                if proto == 3:
                    a.call("HELLO", "3")
                    b.call("HELLO", "3")
                for args in EXACT:
                    self.assertEqual(a.call(*args), b.call(*args), (proto, args))
                for args in SKYLINES:
                    x, y = a.call(*args), b.call(*args)
                    self.assertEqual(skyline(x), skyline(y), (proto, args))
                    self.assertTrue(x.endswith(b"\nDedicated to the 8 bit game developers of "
                                               b"past and present.\nOriginal 8 bit image from "
                                               b"Plaguemon by hikikomori. Redis ver. 7.0.15\n\r\n"))
                for args in RANDOM:
                    x, y = a.call(*args), b.call(*args)
                    self.assertEqual(shape(x), shape(y), (proto, args))
                    self.assertTrue(x.endswith(
                        b"\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n"))
                a.close()
                b.close()


if __name__ == "__main__":
    unittest.main()
