#!/usr/bin/python3
"""Turns a family's committed declarations, worker/commands/<group>/<family>_decls.json, into
the C++ header <family>_decls.hpp that its table rows point at (`&decl::zadd`): one
`inline constexpr CommandDecl` a command, with its key specs, tips, history and argument
arrays beside it. The build runs it (worker/commands/<group>/meson.build, a custom_target a
family) and writes the header into the build dir, as Redis's utils/generate-command-code.py
writes commands.def from src/commands/*.json. Standard library only.

    /usr/bin/python3 tools/emit_command_decls.py zset_decls.json zset_decls.hpp

The JSON is what tests/tools/snapshot_command_decls.py took from redis-server 7.0.15's
COMMAND INFO / COMMAND DOCS, under their field names: {"redis": "7.0.15", "commands": [...]}
(or, for commands 7.0.15 does not have, the same written by hand: {"written_by_hand": why,
"commands": [...]}, which the snapshot tool leaves alone),
the commands in the order the family's rows name them (each subcommand before its container,
whose "subcommands" lists their names in the order Redis's COMMAND DOCS gave once and the file
keeps). What Redis declares but 7.0's COMMAND INFO hides is added here (HIDDEN_FLAGS).
"""

import json
import os
import re
import sys


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

# The fields a command and an argument may have; anything else is a Redis the tables here do
# not know yet, so it stops the build rather than being dropped.
COMMAND_FIELDS = {"name", "arity", "flags", "first_key", "last_key", "step", "acl_categories",
                  "tips", "key_specs", "summary", "since", "group", "complexity", "doc_flags",
                  "deprecated_since", "replaced_by", "history", "arguments", "subcommands"}
ARG_FIELDS = {"name", "type", "key_spec_index", "token", "summary", "since", "deprecated_since",
              "flags", "arguments"}


def command_flags(name, values):
    names = set(HIDDEN_FLAGS.get(name, []))
    for v in values:
        if v not in COMMAND_FLAGS:
            raise ValueError("unknown command flag %s of %s" % (v, name))
        if COMMAND_FLAGS[v]:
            names.add(COMMAND_FLAGS[v])
    return " | ".join(f for f in FLAG_ORDER if f in names) or "0"


def acl_categories(name, cats):
    for c in cats:
        if not c.startswith("@") or c[1:] not in ACL_CATEGORIES:
            raise ValueError("unknown ACL category %s of %s" % (c, name))
    if [c[1:] for c in cats] != [c for c in ACL_CATEGORIES if "@" + c in cats]:
        raise ValueError("ACL categories of %s not in ACLCommandCategories' order" % name)
    return " | ".join("kCat" + c[1:].capitalize() for c in cats) or "0"


def flags_expr(values, table):
    return " | ".join(table[v] for v in values) or "0"


def key_spec(spec):
    bs, bss = spec["begin_search"], spec["begin_search"]["spec"]
    if bs["type"] == "index":
        begin = "bs_index(%d)" % bss["index"]
    elif bs["type"] == "keyword":
        begin = "bs_keyword(%s, %d)" % (cstr(bss["keyword"]), bss["startfrom"])
    elif bs["type"] == "unknown":
        begin = "bs_unknown()"
    else:
        raise ValueError("begin_search " + bs["type"])
    fk, fks = spec["find_keys"], spec["find_keys"]["spec"]
    if fk["type"] == "range":
        find = "fk_range(%d, %d, %d)" % (fks["lastkey"], fks["keystep"], fks["limit"])
    elif fk["type"] == "keynum":
        find = "fk_keynum(%d, %d, %d)" % (fks["keynumidx"], fks["firstkey"], fks["keystep"])
    elif fk["type"] == "unknown":
        find = "fk_unknown()"
    else:
        raise ValueError("find_keys " + fk["type"])
    notes = (", " + cstr(spec["notes"])) if "notes" in spec else ""
    return "{%s, %s, %s%s}" % (flags_expr(spec["flags"], KEY_FLAGS), begin, find, notes)


class Emitter:
    def __init__(self):
        self.lines = []
        self.defined = set()

    def args(self, base, args):
        """Defines the argument array `base` (children first); returns its name."""
        rows = []
        for i, a in enumerate(args):
            extra = set(a) - ARG_FIELDS
            if extra:
                raise ValueError("unknown argument fields %s in %s" % (extra, base))
            fields = [".name = " + cstr(a["name"]), ".type = ArgType::" + ARG_TYPES[a["type"]]]
            if "key_spec_index" in a:
                fields.append(".key_spec_index = %d" % a["key_spec_index"])
            for f in ("token", "summary", "since", "deprecated_since"):
                if f in a:
                    fields.append(".%s = %s" % (f, cstr(a[f])))
            if "flags" in a:
                fields.append(".flags = " + flags_expr(a["flags"], ARG_FLAGS))
            if "arguments" in a:
                fields.append(".args = " + self.args("%s_%d" % (base, i), a["arguments"]))
            rows.append("    {" + ", ".join(fields) + "},")
        self.lines.append("inline constexpr Arg %s[] = {" % base)
        self.lines += rows
        self.lines.append("};")
        return base

    def command(self, c):
        """Defines the CommandDecl of `c`; its subcommands must be defined already."""
        name = c["name"]
        extra = set(c) - COMMAND_FIELDS
        if extra:
            raise ValueError("unknown command fields %s in %s" % (extra, name))
        i = ident(name)
        fields = [".name = " + cstr(name), ".arity = %d" % c["arity"],
                  ".flags = " + command_flags(name, c["flags"]),
                  ".acl = " + acl_categories(name, c["acl_categories"])]
        for f in ("group", "summary", "since", "complexity"):
            if f in c:
                fields.append(".%s = %s" % (f, cstr(c[f])))
        if c["key_specs"]:
            self.lines.append("inline constexpr KeySpec %s_keys[] = {" % i)
            self.lines += ["    " + key_spec(s) + "," for s in c["key_specs"]]
            self.lines.append("};")
            fields.append(".keys = %s_keys" % i)
        if c["tips"]:
            self.lines.append("inline constexpr Tip %s_tips[] = {%s};" %
                              (i, ", ".join(TIPS[t] for t in c["tips"])))
            fields.append(".tips = %s_tips" % i)
        if "doc_flags" in c:
            fields.append(".doc_flags = " + flags_expr(c["doc_flags"], DOC_FLAGS))
        for f in ("deprecated_since", "replaced_by"):
            if f in c:
                fields.append(".%s = %s" % (f, cstr(c[f])))
        if "history" in c:
            self.lines.append("inline constexpr History %s_history[] = {" % i)
            self.lines += ["    {%s, %s}," % (cstr(v), cstr(t)) for v, t in c["history"]]
            self.lines.append("};")
            fields.append(".history = %s_history" % i)
        if "arguments" in c:
            fields.append(".args = " + self.args(i + "_args", c["arguments"]))
        if c.get("subcommands"):
            subs = [ident(s) for s in c["subcommands"]]
            missing = [s for s in subs if s not in self.defined]
            if missing:
                raise ValueError("%s lists subcommands not defined before it: %s" %
                                 (name, ", ".join(missing)))
            self.lines.append("inline constexpr const CommandDecl* %s_subs[] = {%s};" %
                              (i, ", ".join("&" + s for s in subs)))
            fields.append(".subcommands = %s_subs" % i)
        self.lines.append("inline constexpr CommandDecl %s{%s};" % (i, ", ".join(fields)))
        self.lines.append("")
        self.defined.add(i)


def header(source, data):
    family = os.path.basename(source)[: -len("_decls.json")]
    em = Emitter()
    for c in data["commands"]:
        em.command(c)
    if "redis" in data:
        origin = ("as redis-server %s's COMMAND INFO / COMMAND DOCS say\n"
                  "// (tests/tools/snapshot_command_decls.py)" % data["redis"])
    else:
        origin = "written by hand:\n// " + data["written_by_hand"]
    return ("// Generated by tools/emit_command_decls.py from %s (edit that, not this):\n"
            "// what Redis declares about the commands of the %s family, %s.\n"
            "#pragma once\n\n#include \"worker/engine/command.hpp\"\n\n"
            "namespace ruvio::worker::decl {\n\n%s\n}  // namespace ruvio::worker::decl\n"
            % (os.path.basename(source), family, origin, "\n".join(em.lines)))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: emit_command_decls.py FAMILY_decls.json OUT.hpp")
    source, target = sys.argv[1], sys.argv[2]
    with open(source) as f:
        data = json.load(f)
    try:
        text = header(source, data)
    except (KeyError, ValueError) as e:
        sys.exit("%s: %s" % (source, e))
    with open(target, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
