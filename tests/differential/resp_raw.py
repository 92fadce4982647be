"""A minimal RESP client that keeps each reply as the exact bytes the server sent.

The differential test compares servers byte for byte, so nothing here decodes and
re-encodes a reply: `RawConn.read_reply()` returns the raw slice of the stream that makes
up one reply (RESP2 or RESP3, including a leading attribute `|` frame if there is one).
`parse()` turns such a slice into Python values for the few comparisons that need them
(KEYS order, TTL tolerance)."""

import socket
import time


def encode(args):
    """One command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, int):
            a = b"%d" % a
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class ProtocolError(Exception):
    pass


# Types whose payload is a single line: simple string, error, integer, null, double,
# boolean, big number.
_LINE_TYPES = b"+-:_,#("
# Types with a length-prefixed payload: bulk string, blob error, verbatim string.
_BLOB_TYPES = b"$!="
# Aggregate types and how many child replies one announced element stands for.
_AGG_TYPES = {ord("*"): 1, ord("~"): 1, ord(">"): 1, ord("%"): 2, ord("|"): 2}


class RawConn:
    """One TCP connection; replies come back as raw bytes."""

    def __init__(self, port, host="127.0.0.1", timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def _line_end(self, start):
        """Index of the CRLF that ends the line starting at `start` (reads as needed)."""
        while True:
            i = self.buf.find(b"\r\n", start)
            if i >= 0:
                return i
            self._fill()

    def _skip_one(self, start):
        """Returns the index just past the complete reply that begins at `start`."""
        while len(self.buf) <= start:
            self._fill()
        t = self.buf[start]
        end = self._line_end(start)
        if t in _LINE_TYPES:
            return end + 2
        header = bytes(self.buf[start + 1 : end])
        try:
            n = int(header)
        except ValueError:
            raise ProtocolError(f"bad length line {bytes(self.buf[start:end])!r}")
        if t in _BLOB_TYPES:
            if n < 0:
                return end + 2
            stop = end + 2 + n + 2
            while len(self.buf) < stop:
                self._fill()
            if self.buf[stop - 2 : stop] != b"\r\n":
                raise ProtocolError("bulk payload not followed by CRLF")
            return stop
        if t in _AGG_TYPES:
            pos = end + 2
            if n < 0:
                return pos
            for _ in range(n * _AGG_TYPES[t]):
                pos = self._skip_one(pos)
            if t == ord("|"):  # an attribute precedes the reply it annotates
                pos = self._skip_one(pos)
            return pos
        raise ProtocolError(f"unknown reply type byte {bytes([t])!r}")

    def read_reply(self):
        # Drop consumed bytes only here, between replies: _skip_one holds offsets.
        if self.pos > (1 << 20):
            del self.buf[: self.pos]
            self.pos = 0
        end = self._skip_one(self.pos)
        raw = bytes(self.buf[self.pos : end])
        self.pos = end
        return raw

    def call(self, *args):
        self.send(encode(args))
        return self.read_reply()


class Lockstep:
    """A connection to the reference server (`a`) and one to the candidate (`b`) that take
    every command together: both() sends it to each and returns (reference reply, candidate
    reply); switch_proto() moves both between RESP2 and RESP3 (`proto`)."""

    def __init__(self, ref_port, cand_port):
        self.a = RawConn(ref_port)
        try:
            self.b = RawConn(cand_port)
        except BaseException:
            self.a.close()
            raise
        self.proto = 2

    def close(self):
        self.a.close()
        self.b.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def both(self, cmd):
        data = encode(cmd)
        self.a.send(data)
        self.b.send(data)
        return self.a.read_reply(), self.b.read_reply()

    def switch_proto(self):
        self.proto = 5 - self.proto
        for c in (self.a, self.b):
            c.call("HELLO", str(self.proto))


class Frames:
    """A raw connection that keeps every frame it receives (pushes included): the client-side
    caching tests read invalidations off it. `worker`: reconnect until the connection lands on
    that worker of a 2-worker proxy (CLIENT ID mod 2)."""

    def __init__(self, port, worker=None, drain_wait=0.25):
        for _ in range(400):
            self.c = RawConn(port)
            if worker is None or parse(self.c.call(b"CLIENT", b"ID")) % 2 == worker:
                break
            self.c.close()
        else:
            raise AssertionError(f"no connection landed on worker {worker}")
        self.frames = []
        self.drain_wait = drain_wait

    def call(self, *args):
        """Sends a command; reads frames up to its reply (pushes before it are kept)."""
        self.c.send(encode(args))
        while True:
            f = self.c.read_reply()
            self.frames.append(f)
            if f[:1] != b">":
                return f

    def drain(self, wait=None):
        """Keeps what arrives within `wait` seconds (default: drain_wait)."""
        end = time.monotonic() + (self.drain_wait if wait is None else wait)
        while time.monotonic() < end:
            self.c.sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                self.frames.append(self.c.read_reply())
            except (TimeoutError, OSError):
                break
        self.c.sock.settimeout(10.0)

    def close(self):
        self.c.close()


def parse(raw):
    """Decodes one raw reply into Python values: bytes for strings, int, None, lists,
    dicts as lists of pairs, ('err', msg) for errors, ('double', text) for doubles."""
    value, end = _parse_at(raw, 0)
    if end != len(raw):
        raise ProtocolError("trailing bytes after reply")
    return value


def _parse_at(raw, i):
    t = raw[i]
    end = raw.index(b"\r\n", i)
    line = raw[i + 1 : end]
    nxt = end + 2
    if t == ord("+"):
        return line, nxt
    if t == ord("-"):
        return ("err", line), nxt
    if t in b":(":
        return int(line), nxt
    if t == ord("_"):
        return None, nxt
    if t == ord(","):
        return ("double", line), nxt
    if t == ord("#"):
        return line == b"t", nxt
    n = int(line)
    if t in _BLOB_TYPES:
        if n < 0:
            return None, nxt
        body = raw[nxt : nxt + n]
        if t == ord("!"):
            body = ("err", body)
        return body, nxt + n + 2
    if n < 0:
        return None, nxt
    items = []
    pos = nxt
    for _ in range(n * _AGG_TYPES[t]):
        v, pos = _parse_at(raw, pos)
        items.append(v)
    if t in (ord("%"), ord("|")):
        items = list(zip(items[0::2], items[1::2]))
    if t == ord("|"):
        return _parse_at(raw, pos)
    return items, pos
