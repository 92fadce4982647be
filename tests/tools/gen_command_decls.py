#!/usr/bin/python3
"""Writes worker/commands/<group>/<family>_decls.hpp, beside the family's table in
<family>_commands.cpp: the key specs, tips and docs (history, arguments, doc flags) of every
command a family file declares, taken from a running redis-server 7.0's own COMMAND INFO /
COMMAND DOCS over RESP3.

A dev-time tool; its output is committed and reviewed like code. Run from the repository root:

    redis-server --port 7391 --save '' --appendonly no &
    /usr/bin/python3 tests/tools/gen_command_decls.py --port 7391
    clang-format -i worker/commands/*/*_decls.hpp

It finds a family's commands by reading the rows `{"name", arity, ...` of the declaration
tables in worker/commands/<family>_commands.cpp, so a new command gets its declaration data
by adding its row and re-running this script. Ruvio-only commands (unknown to redis-server)
are skipped: their CommandDecl is written by hand.
"""

import argparse
import glob
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


def as_map(v):
    assert v[0] == "%", v
    return dict(v[1])


# ---- C++ text --------------------------------------------------------------------------------

def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ident(name):
    return re.sub(r"[^a-z0-9]", "_", name.lower())


KEY_FLAGS = {"RO": "kKeyRO", "RW": "kKeyRW", "OW": "kKeyOW", "RM": "kKeyRM",
             "access": "kKeyAccess", "update": "kKeyUpdate", "insert": "kKeyInsert",
             "delete": "kKeyDelete", "not_key": "kKeyNotKey", "incomplete": "kKeyIncomplete",
             "variable_flags": "kKeyVariableFlags"}
ARG_TYPES = {"string": "kString", "integer": "kInteger", "double": "kDouble", "key": "kKey",
             "pattern": "kPattern", "unix-time": "kUnixTime", "pure-token": "kPureToken",
             "oneof": "kOneof", "block": "kBlock"}
ARG_FLAGS = {"optional": "kArgOptional", "multiple": "kArgMultiple",
             "multiple_token": "kArgMultipleToken"}
DOC_FLAGS = {"deprecated": "kDocDeprecated", "syscmd": "kDocSyscmd"}
TIPS = {
    "nondeterministic_output": "Tip::kNondeterministicOutput",
    "nondeterministic_output_order": "Tip::kNondeterministicOutputOrder",
    "request_policy:all_nodes": "Tip::kRequestAllNodes",
    "request_policy:all_shards": "Tip::kRequestAllShards",
    "request_policy:multi_shard": "Tip::kRequestMultiShard",
    "request_policy:special": "Tip::kRequestSpecial",
    "response_policy:one_succeeded": "Tip::kResponseOneSucceeded",
    "response_policy:all_succeeded": "Tip::kResponseAllSucceeded",
    "response_policy:agg_logical_and": "Tip::kResponseAggLogicalAnd",
    "response_policy:agg_logical_or": "Tip::kResponseAggLogicalOr",
    "response_policy:agg_min": "Tip::kResponseAggMin",
    "response_policy:agg_max": "Tip::kResponseAggMax",
    "response_policy:agg_sum": "Tip::kResponseAggSum",
    "response_policy:special": "Tip::kResponseSpecial",
}


def flags_expr(values, table):
    names = [table[v[1]] for v in values]
    return " | ".join(names) if names else "0"


def key_spec(spec):
    m = as_map(spec)
    bs = as_map(m["begin_search"])
    bss = as_map(bs["spec"])
    if bs["type"][1] == "index":
        begin = "bs_index(%d)" % bss["index"][1]
    elif bs["type"][1] == "keyword":
        begin = "bs_keyword(%s, %d)" % (cstr(bss["keyword"][1]), bss["startfrom"][1])
    elif bs["type"][1] == "unknown":
        begin = "bs_unknown()"
    else:
        raise RuntimeError("begin_search " + bs["type"][1])
    fk = as_map(m["find_keys"])
    fks = as_map(fk["spec"])
    if fk["type"][1] == "range":
        find = "fk_range(%d, %d, %d)" % (fks["lastkey"][1], fks["keystep"][1], fks["limit"][1])
    elif fk["type"][1] == "keynum":
        find = "fk_keynum(%d, %d, %d)" % (fks["keynumidx"][1], fks["firstkey"][1],
                                         fks["keystep"][1])
    elif fk["type"][1] == "unknown":
        find = "fk_unknown()"
    else:
        raise RuntimeError("find_keys " + fk["type"][1])
    notes = (", " + cstr(m["notes"][1])) if "notes" in m else ""
    return "{%s, %s, %s%s}" % (flags_expr(m["flags"][1], KEY_FLAGS), begin, find, notes)


class Emitter:
    def __init__(self):
        self.lines = []

    def args(self, base, args):
        """Defines the argument array `base` (children first); returns its name."""
        rows = []
        for i, a in enumerate(args[1]):
            m = as_map(a)
            known = {"name", "type", "key_spec_index", "token", "summary", "since",
                     "deprecated_since", "flags", "arguments"}
            extra = set(m) - known
            if extra:
                raise RuntimeError("unknown argument fields %s in %s" % (extra, base))
            fields = [".name = " + cstr(m["name"][1]),
                      ".type = ArgType::" + ARG_TYPES[m["type"][1]]]
            if "key_spec_index" in m:
                fields.append(".key_spec_index = %d" % m["key_spec_index"][1])
            for f in ("token", "summary", "since", "deprecated_since"):
                if f in m:
                    fields.append(".%s = %s" % (f, cstr(m[f][1])))
            if "flags" in m:
                fields.append(".flags = " + flags_expr(m["flags"][1], ARG_FLAGS))
            if "arguments" in m:
                fields.append(".args = " + self.args("%s_%d" % (base, i), m["arguments"]))
            rows.append("    {" + ", ".join(fields) + "},")
        self.lines.append("inline constexpr Arg %s[] = {" % base)
        self.lines += rows
        self.lines.append("};")
        return base

    def command(self, name, info, docs):
        i = ident(name)
        info_items = info[1]
        tips, specs = info_items[7], info_items[8]
        fields = []
        if specs[1]:
            self.lines.append("inline constexpr KeySpec %s_keys[] = {" % i)
            self.lines += ["    " + key_spec(s) + "," for s in specs[1]]
            self.lines.append("};")
            fields.append(".keys = %s_keys" % i)
        if tips[1]:
            self.lines.append("inline constexpr Tip %s_tips[] = {%s};" %
                              (i, ", ".join(TIPS[t[1]] for t in tips[1])))
            fields.append(".tips = %s_tips" % i)
        d = as_map(docs)
        known = {"summary", "since", "group", "complexity", "doc_flags", "deprecated_since",
                 "replaced_by", "history", "arguments", "subcommands"}
        extra = set(d) - known
        if extra:
            raise RuntimeError("unknown docs fields %s in %s" % (extra, name))
        if "doc_flags" in d:
            fields.append(".doc_flags = " + flags_expr(d["doc_flags"][1], DOC_FLAGS))
        for f in ("deprecated_since", "replaced_by"):
            if f in d:
                fields.append(".%s = %s" % (f, cstr(d[f][1])))
        if "history" in d:
            self.lines.append("inline constexpr History %s_history[] = {" % i)
            for h in d["history"][1]:
                self.lines.append("    {%s, %s}," % (cstr(h[1][0][1]), cstr(h[1][1][1])))
            self.lines.append("};")
            fields.append(".history = %s_history" % i)
        if "arguments" in d:
            fields.append(".args = " + self.args(i + "_args", d["arguments"]))
        self.lines.append("inline constexpr CommandDecl %s{%s};" % (i, ", ".join(fields)))
        self.lines.append("")


def family_commands(path):
    text = open(path).read()
    return re.findall(r'\{"([a-z][a-z_|-]*)",\s*-?\d+,', text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=7391)
    ap.add_argument("--root", default=".")
    opts = ap.parse_args()
    r = Resp(opts.port)
    hello = dict(r.call("HELLO", "3")[1])
    if hello["version"][1] != "7.0.15":
        sys.exit("redis-server 7.0.15 expected (COMMAND INFO/DOCS are compared with it), got "
                 + hello["version"][1])
    for path in sorted(glob.glob(os.path.join(opts.root, "worker/commands/*/*_commands.cpp"))):
        family = os.path.basename(path)[: -len("_commands.cpp")]
        names = family_commands(path)
        if not names:
            continue
        em = Emitter()
        for name in names:
            info = r.call("COMMAND", "INFO", name)[1][0]
            if info[1] is None:
                print("skipped (not a Redis command): " + name, file=sys.stderr)
                continue
            docs = dict(r.call("COMMAND", "DOCS", name)[1])[name]
            em.command(name, info, docs)
        guard = "// Generated by tests/tools/gen_command_decls.py from redis-server 7.0.15's\n" \
                "// COMMAND INFO / COMMAND DOCS: key specs, tips and docs of the %s family.\n" \
                "// Edit by re-running the script (see its header), not by hand.\n" % family
        text = guard + "#pragma once\n\n#include \"worker/engine/command.hpp\"\n\n" \
            "namespace ruvio::worker::decl {\n\n" + "\n".join(em.lines) + \
            "\n}  // namespace ruvio::worker::decl\n"
        target = os.path.join(os.path.dirname(path), family + "_decls.hpp")
        if os.path.exists(target):
            with open(target) as f:
                if f.readline().startswith("// Written by hand"):
                    print("kept (written by hand): " + target, file=sys.stderr)
                    continue
        with open(target, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
