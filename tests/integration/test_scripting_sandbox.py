"""The Lua sandbox and the script surface, side by side with redis-server 7.0.15, at 1 worker
and through the proxy port of a 2-worker Ruvio: every snippet runs as EVAL and as a function
(FUNCTION LOAD REPLACE + FCALL), the replies byte for byte.

- Binary chunks never load: loadstring(string.dump(f)) and load() of a dump fail as Redis's
  Lua fails them (its parser never undumps: "unexpected symbol near 'char(27)'"), so calling
  the result is "attempt to call a nil value".
- Each name Redis leaves out of a script's globals (getfenv, setfenv, newproxy, debug,
  print, dofile, loadfile, os, io, require, module, package) is a nonexistent global in
  EVAL, in a function and in a loadstring'd chunk; FUNCTION LOAD's own environment has only
  `redis` (register_function, log, the LOG_ and version fields).
- Globals and library tables are read-only (every write path: assignment, rawset,
  setmetatable, table.insert, the metatables getmetatable shows) and read as Redis's
  (pairs(_G), rawget, next); nothing one script does to them reaches the next.
- redis.acl_check_cmd answers false for what the caller may not run; XREAD/XREADGROUP with
  BLOCK, CLUSTER RESET and every other Redis no-script command (COMMAND's noscript flag)
  answer Redis's refusals; redis.call with 8,001 arguments (unpack of 7,999) runs.
"""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "differential"))
import itest  # noqa: E402
import sidebyside  # noqa: E402
from resp_raw import parse  # noqa: E402

DUMP = "string.dump(function() return 1 end)"
# load()'s reader handing out `s` in one piece.
ONE_PIECE = "local done = false local function rd() if done then return nil end done = true " \
            "return s end "

BINARY = [
    f"return loadstring({DUMP})()",
    f"local f, e = loadstring({DUMP}) return {{type(f), e}}",
    f"local f, e = loadstring({DUMP}, 'dumped') return {{type(f), e}}",
    f"local f, e = loadstring({DUMP}, '=dumped') return {{type(f), e}}",
    f"local s = {DUMP} {ONE_PIECE} local f, e = load(rd) return {{type(f), e}}",
    f"local s = {DUMP} {ONE_PIECE} return load(rd)()",
    f"local s = {DUMP} local i = 0 local f, e = load(function() i = i + 1 "
    "return s:sub(i, i) end, 'bytes') return {type(f), e}",
    "return {loadstring('\\27')}",
    "return {loadstring('\\27Lua')}",
    "return {loadstring(' \\27Lua')}",
    "return {loadstring('\\n\\27Lua')}",
    "return {loadstring('')}",
    "return type(string.dump(function() end))",
    "return {pcall(string.dump, tostring)}",
    "return loadstring('return ...')(1, 2)",
    "return {loadstring('syntax error here', 'named')}",
    "return {pcall(loadstring, nil)}",
    "return {pcall(load, 'return 1')}",
    "return {pcall(load)}",
    "return {load(function() return nil end)}",
    "return {pcall(load, function() return {} end)}",
    "return {load(function() error('in reader') end)}",
]

# The names Redis 7.0.15 does not give a script (its deny list, and what its Lua fixes took
# out), each refused in every environment.
REFUSED = ["getfenv", "setfenv", "newproxy", "debug", "print", "dofile", "loadfile", "os",
           "io", "require", "module", "package"]

READONLY = [
    "x = 1", "_G.x = 1", "rawset(_G, 'x', 1)", "setmetatable(_G, nil)", "KEYS = {}",
    "__redis__err__handler = nil",
    "local m = getmetatable(_G) m.__index = nil return 1",
    "local m = getmetatable(_G) m.__newindex = nil return 1",
    "string.foo = 1", "string.rep = nil", "redis.call = nil", "redis.x = 1",
    "cjson.encode = nil", "math.random = nil", "bit.x = 1", "struct.x = 1", "cmsgpack.x = 1",
    "table.x = 1", "coroutine.x = 1",
    "rawset(string, 'x', 1)", "rawset(redis, 'x', 1)", "setmetatable(string, nil)",
    "getmetatable('').__index = {}", "getmetatable('').__index.upper = nil",
    "getmetatable('').x = 1", "table.insert(_G, 'x')", "return {pcall(table.insert, string, 1)}",
    "getmetatable(redis).__index.evil = 1", "getmetatable(_G).__index.evil = 1",
    "return {pcall(setmetatable, _G, {})}", "return {pcall(rawset, _G, 'y', 2)}",
    "local ok, e = pcall(function() z = 3 end) return {ok, e}",
    "return {pcall(loadstring('x = 1'))}",
    "setfenv(0, {})",
]

# What scripts read of the globals, libraries and metatables (key lists sorted: the order is
# a hash order).
KEYS_OF = "local t = {{}} for k in pairs({}) do t[#t+1] = k end table.sort(t) return t"
READS = [KEYS_OF.format(t) for t in
         ("_G", "redis", "string", "math", "table", "coroutine", "cjson", "bit", "struct",
          "cmsgpack", "getmetatable(_G)", "getmetatable('')")] + [
    "return type(getmetatable(_G))", "return getmetatable(redis)",
    "return getmetatable(getmetatable(''))", "return type(getmetatable(''))",
    "return getmetatable('').__index == string", "return ('x'):rep(3)",
    "return undeclared_var", "return _G.undeclared_var", "return rawget(_G, 'undeclared_var')",
    "return rawget(_G, 'string') == string", "return type(rawget(_G, 'loadstring'))",
    "return _G._G == _G", "return next(_G) ~= nil", "return {pcall(next, _G, 'nosuchkey')}",
    "local f, s = pairs(_G) return rawequal(s, _G)", "return {pcall(pairs)}",
    "return {pcall(getmetatable)}", "return {pcall(table.remove, string)}",
    "return {pcall(table.sort, _G)}",
    "local n = 0 table.foreach(string, function() n = n + 1 end) return n",
    "return __redis__err__handler('x').err", "return type(__redis__err__handler)",
    "return {type(coroutine.create), type(coroutine.wrap), coroutine.running()}",
    "local co = coroutine.create(function() return redis.call('ping') end) "
    "return {coroutine.resume(co)}",
    "return {pcall(redis.setresp, 4)}", "KEYS[1] = 'x' return KEYS[1]",
    "return {pcall(unpack, {}, 1, 1e8)}", "return type(collectgarbage('count'))",
    "return gcinfo() > 0", "return _VERSION", "return redis.REDIS_VERSION",
    "return {pcall(error, setmetatable({}, {__tostring=function() return 'E' end}))}",
    "return tostring(setmetatable({}, {__tostring=function() return 'mt' end}))",
]

# Names FUNCTION LOAD's environment answers (the rest of the globals are refused there).
LOAD_ENV = ["redis", "redis.register_function", "redis.log", "redis.LOG_DEBUG",
            "redis.LOG_WARNING", "redis.REDIS_VERSION", "redis.REDIS_VERSION_NUM"]
LOAD_REFUSED = REFUSED + ["type", "pairs", "string", "table", "math", "loadstring", "load",
                          "pcall", "_G", "KEYS", "__redis__err__handler", "cjson",
                          "redis.call", "redis.pcall", "redis.setresp", "redis.sha1hex",
                          "redis.acl_check_cmd", "redis.error_reply", "redis.breakpoint"]

# Unpack of 7,999 numbers into one call: 8,001 arguments, all the Lua C stack holds.
MANY = "local a = {} for i = 1, 7999 do a[i] = i end "

SURFACE = [
    "return redis.call('XREAD', 'BLOCK', 'abc', 'streams', KEYS[1], '$')",
    "return redis.pcall('xread', 'block', 0, 'streams', KEYS[1], '$')",
    "return redis.pcall('xread', 'count', 'x', 'block', 0, 'streams', KEYS[1], '$')",
    "return redis.pcall('xread', 'block')",
    "return redis.pcall('xreadgroup', 'group', 'g', 'c', 'count', 1, 'block', 10, 'noack', "
    "'streams', KEYS[1], '>')",
    "return redis.pcall('xread', 'count', 1, 'streams', KEYS[1], '0')",
    "return redis.call('cluster', 'reset')",
    "return redis.pcall('cluster', 'reset', 'hard')",
    "return redis.pcall('sync', 'x')",
    "return redis.pcall('module', 'unload')",
    "return redis.pcall('psync', 'x', 'x')",
    MANY + "return redis.call('lpush', KEYS[1] .. 'l', unpack(a))",
    MANY + "return redis.pcall('nosuch', unpack(a))",
    MANY + "return #redis.call('lrange', KEYS[1] .. 'l', 0, -1)",
    "local a = {} for i = 1, 7997 do a[i] = i end "
    "return redis.pcall('lpush', KEYS[1] .. 'l', 'a', {}, unpack(a))",
    "return {pcall(redis.acl_check_cmd)}",
    "return redis.acl_check_cmd('get', 'x')",
    "return redis.acl_check_cmd('get')",
    "return {pcall(redis.acl_check_cmd, 'nosuch')}",
    "return {pcall(redis.acl_check_cmd, 'config', 'nosuch')}",
    "return {pcall(redis.acl_check_cmd, {})}",
]

# ACL users for redis.acl_check_cmd: what each may run, and the checks a script makes.
USERS = {"nogetter": ["on", "nopass", "+@all", "-get", "~*", "&*"],
         "aonly": ["on", "nopass", "+@all", "~a*", "&*"]}
ACL_CHECKS = [
    ("nogetter", "return redis.acl_check_cmd('get', 'x')", b"$-1\r\n"),
    ("nogetter", "return type(redis.acl_check_cmd('get', 'x'))", b"$7\r\nboolean\r\n"),
    ("nogetter", "return redis.acl_check_cmd('set', 'x', 1)", b":1\r\n"),
    ("nogetter", "return redis.acl_check_cmd('GET')", b"$-1\r\n"),
    ("aonly", "return redis.acl_check_cmd('set', 'b', 1)", b"$-1\r\n"),
    ("aonly", "return redis.acl_check_cmd('set', 'a', 1)", b":1\r\n"),
    ("aonly", "return redis.acl_check_cmd('get')", b":1\r\n"),
    ("aonly", "return redis.acl_check_cmd('mset', 'a1', 1, 'b1', 2)", b"$-1\r\n"),
    ("aonly", "return redis.acl_check_cmd('config', 'get', 'x')", b":1\r\n"),
]


def function_lib(body):
    """`body` as the function `f` of library `sbx` (its line 1 is the library's line 3)."""
    return ("#!lua name=sbx\nredis.register_function('f', function(KEYS, ARGV)\n" + body +
            "\nend)")


def sha(body):
    return hashlib.sha1(body.encode()).hexdigest()


def nonexistent(name, where):
    """Redis's reply to reading global `name` on line 1 of an EVAL (where = its sha) or of
    the test function (where = None: line 3 of the library)."""
    if where is None:
        return (f"-ERR user_function:3: Script attempted to access nonexistent global "
                f"variable '{name}' script: f, on @user_function:3.\r\n").encode()
    return (f"-ERR user_script:1: Script attempted to access nonexistent global variable "
            f"'{name}' script: {where}, on @user_script:1.\r\n").encode()


class SandboxCases:
    """Mixin over sidebyside.SideBySideCase: self.ref (redis-server), self.cand (Ruvio)."""

    def setUp(self):
        super().setUp()
        self.conns = []
        for port in (self.ref.port, self.cand.port):
            c = itest.Raw(port)
            self.addCleanup(c.close)
            self.conns.append(c)
        self.both("FLUSHALL")
        self.both("FUNCTION", "FLUSH")

    def both(self, *cmd):
        """cmd's reply, the same bytes from both servers."""
        want, got = (c.call(*cmd) for c in self.conns)
        self.assertEqual(got, want, f"{cmd!r}")
        return want

    def eval_and_fcall(self, body, keys=("{sb}k",)):
        """(EVAL's reply, FCALL's reply) of `body`, each the same bytes from both servers."""
        ev = self.both("EVAL", body, str(len(keys)), *keys)
        self.assertEqual(self.both("FUNCTION", "LOAD", "REPLACE", function_lib(body)),
                         b"$3\r\nsbx\r\n")
        fc = self.both("FCALL", "f", str(len(keys)), *keys)
        return ev, fc

    def test_binary_chunks_never_load(self):
        for body in BINARY:
            with self.subTest(body=body):
                self.eval_and_fcall(body)
        # The central texts, literally (the reference run proves them Redis's).
        ev, fc = self.eval_and_fcall(BINARY[0])
        self.assertEqual(ev, b"-ERR user_script:1: attempt to call a nil value script: " +
                         sha(BINARY[0]).encode() + b", on @user_script:1.\r\n")
        self.assertEqual(fc, b"-ERR user_function:3: attempt to call a nil value script: f, "
                         b"on @user_function:3.\r\n")
        ev, fc = self.eval_and_fcall(BINARY[1])
        self.assertEqual(ev, b"*2\r\n$3\r\nnil\r\n$53\r\n[string \"\x1bLuaQ\"]:1: unexpected "
                         b"symbol near 'char(27)'\r\n")
        self.assertEqual(fc, ev)
        ev, _ = self.eval_and_fcall(BINARY[4])
        self.assertEqual(ev, b"*2\r\n$3\r\nnil\r\n$43\r\n(load):1: unexpected symbol near "
                         b"'char(27)'\r\n")

    def check_refused(self, name):
        body = f"return type({name})"
        ev, fc = self.eval_and_fcall(body)
        self.assertEqual(ev, nonexistent(name, sha(body)))
        self.assertEqual(fc, nonexistent(name, None))
        self.assertEqual(self.eval_and_fcall(f"return rawget(_G, '{name}')"),
                         (b"$-1\r\n", b"$-1\r\n"))
        body = f"return {{pcall(loadstring('return {name}'))}}"
        text = (f"[string \"return {name}\"]:1: Script attempted to access nonexistent global "
                f"variable '{name}'")
        want = b"*2\r\n$-1\r\n$%d\r\n%s\r\n" % (len(text), text.encode())
        self.assertEqual(self.eval_and_fcall(body), (want, want))
        self.check_load_refused(name)

    def check_load_refused(self, name):
        lib = (f"#!lua name=sbx\nlocal x = {name}\n"
               "redis.register_function('f', function() return 1 end)")
        short = name.split(".")[-1]
        self.assertEqual(self.both("FUNCTION", "LOAD", "REPLACE", lib),
                         b"-ERR Error registering functions: ERR user_function:2: Script "
                         b"attempted to access nonexistent global variable '" + short.encode() +
                         b"'\r\n")

    def test_load_environment(self):
        for name in LOAD_ENV:
            with self.subTest(name=name):
                lib = (f"#!lua name=sbx\nlocal x = {name}\n"
                       "redis.register_function('f', function() return type(x) end)")
                self.assertEqual(self.both("FUNCTION", "LOAD", "REPLACE", lib),
                                 b"$3\r\nsbx\r\n")
                self.assertNotEqual(self.both("FCALL", "f", "0"), b"$3\r\nnil\r\n")
        for name in LOAD_REFUSED:
            with self.subTest(name=name):
                self.check_load_refused(name)

    def test_globals_are_read_only(self):
        for body in READONLY:
            with self.subTest(body=body):
                self.eval_and_fcall(body)
        ev, fc = self.eval_and_fcall("x = 1")
        self.assertEqual(ev, b"-ERR user_script:1: Attempt to modify a readonly table script: " +
                         sha("x = 1").encode() + b", on @user_script:1.\r\n")
        self.assertEqual(fc, b"-ERR user_function:3: Attempt to modify a readonly table "
                         b"script: f, on @user_function:3.\r\n")
        ev, fc = self.eval_and_fcall("rawset(string, 'x', 1)")
        self.assertEqual(fc, b"-ERR Attempt to modify a readonly table script: f, "
                         b"on @user_function:3.\r\n")
        # Nothing a script tried is left for the next one.
        for body in ("return redis.evil", "return evil", "return string.x",
                     "return ('x'):upper()", "return redis.call('ping')"):
            with self.subTest(after=body):
                self.eval_and_fcall(body)
        self.assertEqual(self.eval_and_fcall("return ('x'):upper()"),
                         (b"$1\r\nX\r\n", b"$1\r\nX\r\n"))

    def test_reads(self):
        for body in READS:
            with self.subTest(body=body):
                self.eval_and_fcall(body)
        ev, fc = self.eval_and_fcall(READS[0])
        names = parse(ev)
        self.assertIn(b"loadstring", names)
        self.assertIn(b"__redis__err__handler", names)
        self.assertNotIn(b"__redis__err__handler", parse(fc))
        for name in REFUSED:
            self.assertNotIn(name.encode(), names)

    def test_script_surface(self):
        for body in SURFACE:
            with self.subTest(body=body):
                self.eval_and_fcall(body)
        body = SURFACE[0]
        self.assertEqual(self.eval_and_fcall(body)[0],
                         b"-ERR XREAD command is not allowed with BLOCK option from scripts "
                         b"script: " + sha(body).encode() + b", on @user_script:1.\r\n")
        self.assertEqual(self.eval_and_fcall(SURFACE[4])[1],
                         b"-ERR xreadgroup command is not allowed with BLOCK option from "
                         b"scripts\r\n")
        self.assertEqual(self.eval_and_fcall(SURFACE[6])[1],
                         b"-ERR This Redis command is not allowed from script script: f, "
                         b"on @user_function:3.\r\n")
        self.both("DEL", "{sb}kl")
        self.assertEqual(self.eval_and_fcall(SURFACE[11]), (b":7999\r\n", b":15998\r\n"))

    def test_noscript_commands(self):
        """Every command and subcommand COMMAND flags noscript on redis-server answers the
        no-script refusal (its arguments enough for the arity check, which comes first)."""
        def walk(row):
            name, arity, flags = row[0].decode(), row[1], row[2]
            subs = row[9] if len(row) > 9 else []
            for s in subs:
                yield from walk(s)
            if not subs and b"noscript" in flags:
                parts = name.split("|")
                yield parts + ["x"] * max(abs(arity) - len(parts), 0)
        calls = sorted(c for row in parse(self.conns[0].call("COMMAND")) for c in walk(row))
        self.assertGreater(len(calls), 90)
        for call in calls:
            with self.subTest(call=call):
                self.assertEqual(self.both("EVAL", "return redis.pcall(unpack(ARGV))", "0",
                                           *call),
                                 b"-ERR This Redis command is not allowed from script\r\n")

    def test_acl_check_cmd(self):
        self.both("ACL", "LOG", "RESET")
        for user, rules in USERS.items():
            self.both("ACL", "SETUSER", user, "reset", *rules)
            self.addCleanup(lambda u=user: [c.call("ACL", "DELUSER", u) for c in self.conns])
        for user, body, want in ACL_CHECKS:
            with self.subTest(user=user, body=body):
                self.both("AUTH", user, "x")
                self.assertEqual(self.eval_and_fcall(body, keys=("a{sb}",)), (want, want))
        self.both("AUTH", "default", "x")
        # A check is not a refusal: nothing was logged.
        self.assertEqual(self.both("ACL", "LOG"), b"*0\r\n")


def _add_refused_tests(cls):
    for name in REFUSED:
        setattr(cls, f"test_refused_{name}", lambda self, n=name: self.check_refused(n))
    return cls


@_add_refused_tests
class Sandbox(SandboxCases, sidebyside.SideBySideCase):
    pass


@_add_refused_tests
class SandboxProxy(SandboxCases, sidebyside.SideBySideCase):
    workers = 2


if __name__ == "__main__":
    unittest.main()
