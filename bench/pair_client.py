#!/usr/bin/python3
"""A redis-benchmark stand-in for rows whose requests come in pairs that must stay in step
(LINSERT then LREM of the same value): each client works on its own key (`__client__` in the
commands is its number), and every pipeline it sends is `pipeline / 2` copies of the pair, so
the key is back to its starting state after every pipeline whatever the other clients do.
Every reply is checked against the exact bytes given (one mismatch is an error).

Prints redis-benchmark's --csv shape: a header line, then "name","requests per second".

Usage: pair_client.py -p PORT [-c 50] [-P 16] -n REQUESTS --reply1 :101 --reply2 :1
                      "CMD1 ..." "CMD2 ..."
"""

import argparse
import selectors
import socket
import sys
import time


def resp(words):
    out = [b"*%d\r\n" % len(words)]
    for w in words:
        out.append(b"$%d\r\n%s\r\n" % (len(w), w))
    return b"".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-p", type=int, required=True)
    ap.add_argument("-c", type=int, default=50)
    ap.add_argument("-P", type=int, default=16)
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--reply1", required=True)
    ap.add_argument("--reply2", required=True)
    ap.add_argument("cmd1")
    ap.add_argument("cmd2")
    a = ap.parse_args()
    pairs = max(1, a.P // 2)
    want = (a.reply1.encode() + b"\r\n" + a.reply2.encode() + b"\r\n") * pairs
    batches = max(1, a.n // (2 * pairs * a.c))  # per client
    sel = selectors.DefaultSelector()
    state = {}
    for c in range(a.c):
        s = socket.create_connection(("127.0.0.1", a.p))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        words = [cmd.replace("__client__", str(c)).encode().split() for cmd in (a.cmd1, a.cmd2)]
        batch = (resp(words[0]) + resp(words[1])) * pairs
        state[s] = {"batch": batch, "left": batches, "got": bytearray()}
        sel.register(s, selectors.EVENT_READ)
    t0 = time.monotonic()
    for s, st in state.items():
        s.sendall(st["batch"])
    active = len(state)
    while active:
        for key, _ in sel.select():
            s = key.fileobj
            st = state[s]
            chunk = s.recv(65536)
            if not chunk:
                sys.exit("server closed the connection")
            st["got"] += chunk
            if len(st["got"]) < len(want):
                continue
            if bytes(st["got"]) != want:
                sys.exit(f"unexpected reply: {bytes(st['got'][:200])!r}")
            st["got"].clear()
            st["left"] -= 1
            if st["left"] == 0:
                sel.unregister(s)
                active -= 1
            else:
                s.sendall(st["batch"])
    wall = time.monotonic() - t0
    total = batches * a.c * 2 * pairs
    print('"test","rps"')
    print(f'"{a.cmd1.split()[0]}+{a.cmd2.split()[0]}","{total / wall:.2f}"')


if __name__ == "__main__":
    main()
