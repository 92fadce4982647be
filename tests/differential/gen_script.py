"""Seeded random Lua scripts for the scripting differential test
(test_script_differential.py): each script is a random sequence of redis.call / redis.pcall
over strings, lists, hashes, sets and sorted sets on its declared keys, with Lua's pcall
around some calls, conversions of the replies (type(), field access of {ok=}/{err=}/{map=},
numbers, cjson of arrays, #t) and a return value of a random shape; some scripts switch to
RESP3 with redis.setresp(3), some end in an error on purpose. Everything depends only on the
seed, never on replies.

All the keys of one script share a {hash tag} (one of two, so a 2-worker proxy port runs
scripts on both workers) and replies whose order is not defined (SMEMBERS, SINTER) are
sorted inside the script (in RESP3 the {set=} table's members too).
"""

import random

LIBRARY = "diff"
FUNCTION = "f"

TAGS = ["{s1}", "{s2}"]
NAMES = ["a", "b", "c", "d"]
VALUES = ["1", "2", "10", "-3", "x", "hello", "", "3.5", "007", "9223372036854775807",
          "abc def"]
MEMBERS = ["m1", "m2", "m3", "1", "2", "x", "y"]
SCORES = ["0", "1", "2.5", "-1", "10", "inf", "-inf"]
NUMS = ["0", "1", "-1", "2", "5", "-2", "100"]


def q(s):
    """A Lua string literal."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


class ScriptGenerator:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def key(self):
        return "KEYS[%d]" % (self.r.randrange(len(NAMES)) + 1)

    def val(self):
        if self.r.random() < 0.2:
            return "ARGV[%d]" % (self.r.randrange(2) + 1)
        if self.r.random() < 0.1:
            return self.pick(["1", "2.5", "-7", "1e3"])  # a Lua number argument
        return q(self.pick(VALUES))

    def call_args(self):
        k, v, m = self.key(), self.val(), q(self.pick(MEMBERS))
        n, s = q(self.pick(NUMS)), q(self.pick(SCORES))
        return self.pick([
            # strings
            f"'SET', {k}, {v}", f"'GET', {k}", f"'INCR', {k}", f"'INCRBY', {k}, {n}",
            f"'APPEND', {k}, {v}", f"'STRLEN', {k}", f"'GETRANGE', {k}, 0, 2",
            f"'SETNX', {k}, {v}", f"'MSET', {k}, {v}, {self.key()}, {self.val()}",
            f"'MGET', {k}, {self.key()}", f"'DEL', {k}", f"'EXISTS', {k}, {self.key()}",
            f"'TYPE', {k}", f"'INCRBYFLOAT', {k}, '1.5'", f"'GETDEL', {k}",
            f"'SET', {k}, {v}, 'GET'", f"'DECR', {k}",
            # lists
            f"'RPUSH', {k}, {v}, {self.val()}", f"'LPUSH', {k}, {v}", f"'LRANGE', {k}, 0, -1",
            f"'LPOP', {k}", f"'RPOP', {k}, 2", f"'LLEN', {k}", f"'LINDEX', {k}, {n}",
            f"'LSET', {k}, 0, {v}", f"'LREM', {k}, 0, {v}", f"'LINSERT', {k}, 'BEFORE', {v}, 'z'",
            f"'LPOS', {k}, {v}", f"'LTRIM', {k}, 0, 3",
            # hashes
            f"'HSET', {k}, {m}, {v}", f"'HGET', {k}, {m}", f"'HGETALL', {k}", f"'HDEL', {k}, {m}",
            f"'HINCRBY', {k}, {m}, {n}", f"'HLEN', {k}", f"'HEXISTS', {k}, {m}",
            f"'HMGET', {k}, {m}, 'nofield'", f"'HKEYS', {k}", f"'HSETNX', {k}, {m}, {v}",
            f"'HINCRBYFLOAT', {k}, {m}, '0.25'",
            # sets
            f"'SADD', {k}, {m}, {q(self.pick(MEMBERS))}", f"'SREM', {k}, {m}",
            f"'SISMEMBER', {k}, {m}", f"'SCARD', {k}", f"'SMISMEMBER', {k}, {m}, 'zz'",
            f"'SINTERCARD', 2, {k}, {self.key()}", f"'SMOVE', {k}, {self.key()}, {m}",
            # sorted sets
            f"'ZADD', {k}, {s}, {m}", f"'ZSCORE', {k}, {m}", f"'ZRANGE', {k}, 0, -1, 'WITHSCORES'",
            f"'ZINCRBY', {k}, {n}, {m}", f"'ZRANK', {k}, {m}", f"'ZREM', {k}, {m}",
            f"'ZCARD', {k}", f"'ZRANGEBYSCORE', {k}, '-inf', '+inf'", f"'ZPOPMIN', {k}",
            f"'ZCOUNT', {k}, 0, 10", f"'ZMSCORE', {k}, {m}, 'nom'",
            # keyspace
            f"'EXPIRE', {k}, 100", f"'TTL', {k}", f"'PERSIST', {k}", f"'RENAME', {k}, {self.key()}",
            "'PING'", f"'ECHO', {v}", "'NOSUCHCMD'",
            f"'GET', {k}, 'extra'",
        ])

    def sorted_call(self):
        k = self.key()
        cmd = self.pick([f"'SMEMBERS', {k}", f"'SINTER', {k}, {self.key()}",
                         f"'SUNION', {k}, {self.key()}"])
        return (f"(function() local t = redis.pcall({cmd}) "
                f"if t.err then return t end if t.set then local a = {{}} for m in pairs(t.set) "
                f"do a[#a+1] = m end t = a end table.sort(t) return t end)()")

    def expr(self):
        roll = self.r.random()
        fn = "redis.call" if self.r.random() < 0.08 else "redis.pcall"
        if roll < 0.1:
            return self.sorted_call()
        call = f"{fn}({self.call_args()})"
        if roll < 0.55:
            return call
        return self.pick([
            f"type({call})",
            f"(function() local x = {call} if type(x) == 'table' then return x.ok or x.err "
            f"or #x end return x end)()",
            f"(function() local ok, e = pcall(redis.call, {self.call_args()}) "
            f"return {{tostring(ok), type(e) == 'table' and 'tbl' or e}} end)()",
            f"(function() local x = {call} if type(x) == 'number' then return x * 2 + 0.5 end "
            f"return x end)()",
            f"(function() local x = redis.pcall('LRANGE', {self.key()}, 0, -1) "
            f"if x.err then return x end return cjson.encode(x) end)()",
            f"(function() local x = {call} if type(x) == 'table' and x.map then local n = 0 "
            f"for _ in pairs(x.map) do n = n + 1 end return n end return x end)()",
            f"(function() local x = {call} if type(x) == 'table' and x.double then "
            f"return tostring(x.double) end return x end)()",
            f"{call} == false",
        ])

    def script(self):
        lines = []
        if self.r.random() < 0.3:
            lines.append("redis.setresp(3)")
        lines.append("local r = {}")
        for _ in range(self.r.randint(1, 8)):
            lines.append(f"r[#r+1] = {self.expr()}")
        ret = self.r.random()
        if ret < 0.55:
            lines.append("return r")
        elif ret < 0.7:
            lines.append("return r[1]")
        elif ret < 0.8:
            lines.append(f"return redis.call({self.call_args()})")
        elif ret < 0.85:
            lines.append("return {ok='done'}")
        elif ret < 0.9:
            lines.append("return redis.error_reply('SCRIPTERR custom ' .. #r)")
        elif ret < 0.95:
            lines.append("return {#r, {map={a=#r}}, {set={x=true}}, {double=1.25}}")
        else:
            lines.append("error('failed after ' .. #r)")
        return "\n".join(lines)

    def next(self):
        """(script, numkeys, keys, argv)"""
        tag = self.pick(TAGS)
        keys = [tag + n for n in NAMES]
        argv = [self.pick(VALUES), self.pick(MEMBERS)]
        return self.script(), len(keys), keys, argv


def as_library(script):
    """`script` as function f of library `diff`: KEYS and ARGV become its parameters, so the
    same body runs by FCALL with the same keys and arguments (its line 1 is the library's
    line 3)."""
    return (f"#!lua name={LIBRARY}\nredis.register_function('{FUNCTION}', "
            f"function(KEYS, ARGV)\n{script}\nend)")
