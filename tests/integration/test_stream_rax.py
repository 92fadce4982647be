"""XINFO STREAM's radix-tree-keys and radix-tree-nodes answer what redis-server 7.0 answers
for the same stream: both servers get the same appends (dense and sparse IDs, so the masters'
big-endian bytes branch at different depths), then MAXLEN/MINID trims and XDELs that empty
whole nodes, and the two figures are compared after each step (stream_rax.cpp counts Redis's
rax nodes from the node masters)."""

import unittest

import itest  # noqa: F401  (puts tests/ on sys.path)
import sidebyside

# (key, entries, ID step): IDs "<base + i*step // 7>-<i*step % 7>".
SHAPES = [("s1", 1, 1), ("s101", 101, 1), ("dense", 1500, 1), ("mid", 4000, 13),
          ("sparse", 3000, 100003), ("wide", 9000, 977)]
BASE = 1700000000000


def ident(i, step):
    return "%d-%d" % (BASE + (i * step) // 7, (i * step) % 7)


def load(r):
    p = r.pipeline(transaction=False)
    for key, n, step in SHAPES:
        for i in range(n):
            p.execute_command("XADD", key, ident(i, step), "f", "v")
        p.execute_command("XADD", key + ":auto", "*", "f", "v")
    p.execute()


def edit(r):
    r.execute_command("XTRIM", "dense", "MAXLEN", "~", "700")
    r.execute_command("XTRIM", "wide", "MINID", ident(3000, 977))
    r.execute_command("XTRIM", "sparse", "MAXLEN", "=", "1234")
    p = r.pipeline(transaction=False)
    for i in range(0, 1200):  # the first dozen nodes of "mid" emptied, more thinned
        p.execute_command("XDEL", "mid", ident(i, 13))
    for i in range(2000, 4000, 3):
        p.execute_command("XDEL", "mid", ident(i, 13))
    p.execute()


def figures(r):
    out = {}
    for key, _, _ in SHAPES:
        for k in (key, key + ":auto"):
            v = r.execute_command("XINFO", "STREAM", k)
            d = dict(zip(v[::2], v[1::2]))
            out[k] = (d[b"radix-tree-keys"], d[b"radix-tree-nodes"])
    return out


class StreamRax(sidebyside.SideBySideCase):
    def test_radix_tree_figures_match_redis(self):
        red, ruv = self.ref.client(), self.cand.client()
        load(red)
        load(ruv)
        want = figures(red)
        self.assertEqual(want["wide"][0], 90)  # 100 entries a node: the shapes are real
        self.assertEqual(figures(ruv), want)
        edit(red)
        edit(ruv)
        want = figures(red)
        self.assertLess(want["mid"][0], 40)
        self.assertEqual(figures(ruv), want)


if __name__ == "__main__":
    unittest.main()
