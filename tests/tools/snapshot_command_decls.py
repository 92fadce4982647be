#!/usr/bin/python3
"""Writes worker/commands/<group>/<family>_decls.json, beside the family's table in
<family>_commands.cpp: everything Redis declares about every command a family file declares
(name, arity, command flags, ACL categories, tips, key specs; group, summary, since,
complexity, doc flags, deprecation, history, arguments, subcommands), taken from a running
redis-server 7.0.15's own COMMAND INFO / COMMAND DOCS over RESP3, under their field names.
The build turns each JSON file into the C++ header the rows point at
(tools/emit_command_decls.py); a table row states only its decl, its handler and Ruvio's own
traits.

A dev-time tool; its output is committed and reviewed like code. Run from the repository root:

    redis-server --port 7391 --save '' --appendonly no &
    /usr/bin/python3 tests/tools/snapshot_command_decls.py --port 7391

It finds a family's commands by reading the `&decl::<name>` of the rows in
worker/commands/<group>/<family>_commands.cpp (a subcommand's "container|sub" is spelled
container_sub), so a new command gets its declaration data by adding its row
`{&decl::name, handler}` and re-running this script. Ruvio-only commands (unknown to
redis-server) are skipped: their declarations are written by hand, every field, in a JSON file
of the same form whose "written_by_hand" says why (hash_ttl_decls.json, ops_extra_decls.json,
client_extra_decls.json), which this script never overwrites.

Redis keeps commands and subcommands in dicts, so COMMAND DOCS lists a container's subcommands
in a different order each run; the order a JSON file already holds is kept (new ones after),
so that a re-run changes only what Redis changed. --check writes nothing and exits 1 if a
file would change (the snapshot is still what redis-server 7.0.15 says).
"""

import argparse
import glob
import json
import os
import re
import socket
import sys


# ---- a RESP3 reader that keeps the reply's types (map/set/array, simple/bulk) ------------------

class Resp:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode() if isinstance(a, str) else a
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.read()

    def _line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(1 << 16)
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self.buf += self.s.recv(1 << 16)
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        line = self._line()
        t, rest = chr(line[0]), line[1:]
        if t in "*~>":
            return (t, [self.read() for _ in range(int(rest))])
        if t == "%":
            items = []
            for _ in range(int(rest)):
                k = self.read()
                items.append((k[1], self.read()))
            return ("%", items)
        if t in "$=":
            n = int(rest)
            return ("$", None) if n < 0 else ("$", self._exact(n).decode())
        if t == "+":
            return ("+", rest.decode())
        if t == ":":
            return (":", int(rest))
        if t == "_":
            return ("_", None)
        if t == "-":
            raise RuntimeError(rest.decode())
        raise RuntimeError("unexpected reply type " + t)


def ident(name):
    return re.sub(r"[^a-z0-9]", "_", name.lower())


def family_commands(path, names):
    """The Redis names of the decls the rows of `path` point at, in order (`names`: ident ->
    Redis name); Ruvio-only ones are reported and skipped."""
    out = []
    for i in re.findall(r"&decl::([a-z0-9_]+)\b", open(path).read()):
        if i not in names:
            print("skipped (not a Redis command): " + i, file=sys.stderr)
        elif names[i] not in out:
            out.append(names[i])
    return out


def all_names(r):
    """ident -> Redis name of every command and subcommand redis-server has."""
    names = {}

    def add(entry):
        name = entry[1][0][1]
        if ident(name) in names:
            raise RuntimeError("%s and %s have the same ident" % (name, names[ident(name)]))
        names[ident(name)] = name
        for sub in entry[1][9][1]:
            add(sub)

    for entry in r.call("COMMAND", "INFO")[1]:
        add(entry)
    return names


def value(v):
    """A RESP3 value as JSON: maps as objects, arrays and sets as lists."""
    t, x = v
    if t == "%":
        return {k: value(item) for k, item in x}
    if t in "*~>":
        return [value(item) for item in x]
    return x


INFO_FIELDS = ["name", "arity", "flags", "first_key", "last_key", "step", "acl_categories",
               "tips", "key_specs"]


def dump(v, indent=0, lead=0):
    """JSON text for review: what fits in 100 columns on one line, the rest one item a line."""
    flat = json.dumps(v)
    if indent + lead + len(flat) <= 100 or not v or not isinstance(v, (dict, list)):
        return flat
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        items = [pad + json.dumps(k) + ": " + dump(x, indent + 2, len(json.dumps(k)) + 2)
                 for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dump(x, indent + 2) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def command(r, name, subs):
    """COMMAND INFO and COMMAND DOCS of `name` in one object (Redis's field names), its
    "subcommands" the names in `subs`."""
    info = r.call("COMMAND", "INFO", name)[1][0][1]
    out = {f: value(v) for f, v in zip(INFO_FIELDS, info)}
    docs = value(dict(r.call("COMMAND", "DOCS", name)[1])[name])
    docs.pop("subcommands", None)
    out.update(docs)
    if subs:
        out["subcommands"] = subs
    return out


def by_hand(path):
    if not os.path.exists(path):
        return False
    with open(path) as f:
        return "written_by_hand" in json.load(f)


def kept_order(path):
    """container -> its subcommands' names as the committed JSON lists them."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {c["name"]: c["subcommands"] for c in json.load(f)["commands"]
                if "subcommands" in c}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=7391)
    ap.add_argument("--root", default=".")
    ap.add_argument("--check", action="store_true")
    opts = ap.parse_args()
    r = Resp(opts.port)
    hello = dict(r.call("HELLO", "3")[1])
    if hello["version"][1] != "7.0.15":
        sys.exit("redis-server 7.0.15 expected (COMMAND INFO/DOCS are compared with it), got "
                 + hello["version"][1])
    names = all_names(r)
    paths = sorted(glob.glob(os.path.join(opts.root, "worker/commands/*/*_commands.cpp")))
    families = {path: family_commands(path, names) for path in paths}
    # A container's decl lists its subcommands' decls, so it is written where they are (CLIENT:
    # its row is in connection_commands.cpp, its subcommands' in client_commands.cpp).
    home = {}
    for path, ns in families.items():
        for n in ns:
            home.setdefault(n.split("|")[0] if "|" in n else n, path)
    for path, ns in families.items():
        for n in ns:
            if "|" in n:
                home[n.split("|")[0]] = path
    changed = []
    for path in paths:
        family = os.path.basename(path)[: -len("_commands.cpp")]
        todo = [n for n in families[path] if "|" in n or home[n] == path]
        todo += [n for p, ns in families.items() if p != path
                 for n in ns if "|" not in n and home[n] == path]
        if not todo:
            continue
        target = os.path.join(os.path.dirname(path), family + "_decls.json")
        if by_hand(target):
            print("kept (written by hand): " + target, file=sys.stderr)
            continue
        kept = kept_order(target)
        commands, done = [], set()

        def take(name):
            if name in done:
                return
            done.add(name)
            docs = dict(dict(r.call("COMMAND", "DOCS", name)[1])[name][1])
            ours = [s for s, _ in docs.get("subcommands", ("%", []))[1] if s in families[path]]
            subs = [s for s in kept.get(name, []) if s in ours]
            subs += [s for s in ours if s not in subs]
            for sub in subs:
                take(sub)
            commands.append(command(r, name, subs))

        for name in todo:
            take(name)
        text = dump({"redis": "7.0.15", "commands": commands}) + "\n"
        old = open(target).read() if os.path.exists(target) else None
        if text != old:
            changed.append(target)
            if not opts.check:
                with open(target, "w") as f:
                    f.write(text)
    for target in changed:
        print(("differs: " if opts.check else "wrote: ") + target)
    sys.exit(1 if opts.check and changed else 0)


if __name__ == "__main__":
    main()
