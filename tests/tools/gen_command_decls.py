#!/usr/bin/python3
"""Writes worker/commands/<group>/<family>_decls.hpp, beside the family's table in
<family>_commands.cpp: everything Redis declares about every command a family file declares
(name, arity, command flags, ACL categories, group, summary, since, complexity, doc flags,
deprecation, history, key specs, tips, arguments, subcommands), taken from a running
redis-server 7.0's own COMMAND INFO / COMMAND DOCS over RESP3. A table row then states only
its decl, its handler and Ruvio's own traits.

A dev-time tool; its output is committed and reviewed like code. Run from the repository root:

    redis-server --port 7391 --save '' --appendonly no &
    /usr/bin/python3 tests/tools/gen_command_decls.py --port 7391
    clang-format -i worker/commands/*/*_decls.hpp

It finds a family's commands by reading the `&decl::<name>` of the rows in
worker/commands/<group>/<family>_commands.cpp (a subcommand's "container|sub" is spelled
container_sub), so a new command gets its declaration data by adding its row
`{&decl::name, handler}` and re-running this script. Ruvio-only commands (unknown to
redis-server) are skipped: their CommandDecl is written by hand, every field, in a file whose
first line starts with "// Written by hand" (which this script never overwrites).
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
# COMMAND INFO's flag words (movablekeys is derived from the key specs, never declared).
COMMAND_FLAGS = {"write": "kWrite", "readonly": "kReadonly", "denyoom": "kDenyOom",
                 "admin": "kAdmin", "pubsub": "kPubsub", "noscript": "kNoScript",
                 "blocking": "kBlocking", "loading": "kLoading", "stale": "kStale",
                 "skip_monitor": "kSkipMonitor", "skip_slowlog": "kSkipSlowlog",
                 "fast": "kFast", "no_auth": "kNoAuth", "no_mandatory_keys": "kNoMandatoryKeys",
                 "no_async_loading": "kNoAsyncLoading", "no_multi": "kNoMulti",
                 "allow_busy": "kAllowBusy", "movablekeys": None}
# In CommandFlag's order (command.hpp), so that a decl's flags read the same way everywhere.
FLAG_ORDER = ["kWrite", "kReadonly", "kFast", "kAdmin", "kPubsub", "kNoScript", "kLoading",
              "kStale", "kNoAuth", "kDenyOom", "kBlocking", "kSkipMonitor", "kSkipSlowlog",
              "kSentinel", "kNoMulti", "kMayReplicate", "kAllowBusy", "kNoAsyncLoading",
              "kNoMandatoryKeys"]
# Flags Redis declares but 7.0's COMMAND INFO hides (addReplyFlagsForCommand: may_replicate,
# sentinel, only_sentinel, protected), as far as Ruvio acts on them: MAY_REPLICATE makes
# CLIENT PAUSE WRITE hold PUBLISH and SPUBLISH (src/commands/publish.json, spublish.json).
HIDDEN_FLAGS = {"publish": ["kMayReplicate"], "spublish": ["kMayReplicate"]}
# Redis's ACLCommandCategories, in its order: AclCategory's bits.
ACL_CATEGORIES = ["keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
                  "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
                  "blocking", "dangerous", "connection", "transaction", "scripting"]

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


def command_flags(name, values):
    names = set(HIDDEN_FLAGS.get(name, []))
    for v in values:
        if v[1] not in COMMAND_FLAGS:
            raise RuntimeError("unknown command flag %s of %s" % (v[1], name))
        if COMMAND_FLAGS[v[1]]:
            names.add(COMMAND_FLAGS[v[1]])
    return " | ".join(f for f in FLAG_ORDER if f in names) or "0"


def acl_categories(name, values):
    cats = [v[1] for v in values]
    for c in cats:
        if not c.startswith("@") or c[1:] not in ACL_CATEGORIES:
            raise RuntimeError("unknown ACL category %s of %s" % (c, name))
    if [c[1:] for c in cats] != [c for c in ACL_CATEGORIES if "@" + c in cats]:
        raise RuntimeError("ACL categories of %s not in ACLCommandCategories' order" % name)
    return " | ".join("kCat" + c[1:].capitalize() for c in cats) or "0"


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

    def command(self, name, info, docs, subcommands=()):
        """Defines the CommandDecl of `name`; `subcommands`: the idents of its subcommands'
        decls, already defined, in Redis's order."""
        i = ident(name)
        info_items = info[1]
        tips, specs = info_items[7], info_items[8]
        d = as_map(docs)
        fields = [".name = " + cstr(name), ".arity = %d" % info_items[1][1],
                  ".flags = " + command_flags(name, info_items[2][1]),
                  ".acl = " + acl_categories(name, info_items[6][1])]
        for f in ("group", "summary", "since", "complexity"):
            if f in d:
                fields.append(".%s = %s" % (f, cstr(d[f][1])))
        if specs[1]:
            self.lines.append("inline constexpr KeySpec %s_keys[] = {" % i)
            self.lines += ["    " + key_spec(s) + "," for s in specs[1]]
            self.lines.append("};")
            fields.append(".keys = %s_keys" % i)
        if tips[1]:
            self.lines.append("inline constexpr Tip %s_tips[] = {%s};" %
                              (i, ", ".join(TIPS[t[1]] for t in tips[1])))
            fields.append(".tips = %s_tips" % i)
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
        if subcommands:
            self.lines.append("inline constexpr const CommandDecl* %s_subs[] = {%s};" %
                              (i, ", ".join("&" + s for s in subcommands)))
            fields.append(".subcommands = %s_subs" % i)
        self.lines.append("inline constexpr CommandDecl %s{%s};" % (i, ", ".join(fields)))
        self.lines.append("")


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
    for path in paths:
        family = os.path.basename(path)[: -len("_commands.cpp")]
        todo = [n for n in families[path] if "|" in n or home[n] == path]
        todo += [n for p, ns in families.items() if p != path
                 for n in ns if "|" not in n and home[n] == path]
        if not todo:
            continue
        em = Emitter()
        done = set()

        def emit(name):
            if name in done:
                return
            done.add(name)
            info = r.call("COMMAND", "INFO", name)[1][0]
            docs = dict(r.call("COMMAND", "DOCS", name)[1])[name]
            subs = []
            if "subcommands" in as_map(docs):
                for sub, _ in as_map(docs)["subcommands"][1]:
                    if sub in families[path]:
                        emit(sub)
                        subs.append(ident(sub))
            em.command(name, info, docs, subs)

        for name in todo:
            emit(name)
        guard = "// Generated by tests/tools/gen_command_decls.py from redis-server 7.0.15's\n" \
                "// COMMAND INFO / COMMAND DOCS: what Redis declares about the commands of the\n" \
                "// %s family. Edit by re-running the script (see its header), not by hand.\n" \
                % family
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
