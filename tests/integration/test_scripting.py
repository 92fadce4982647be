"""Lua scripting (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT) side by side with
redis-server 7.0.15: a corpus of scripts — error texts (`ERR user_script:1: …`,
`@user_script`), pcall, cjson/cmsgpack/bit/struct, shebang flags, read-only refusals, bad
input (syntax and runtime errors, deep recursion, huge and deeply nested returns, numkeys
negative or too large) — goes to both servers and every reply must be the same bytes, in
RESP2 and in RESP3; the conversions both ways run in both protocols. A second part asserts
the central texts literally on both servers (the reference run proves them Redis's own)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.setrecursionlimit(100000)  # the deeply nested replies below
import itest  # noqa: E402
import sidebyside  # noqa: E402

CASES = [
 ["EVAL", "local function f() return 1 + f() end return f()", "0"],
 ["EVAL", "local t = {} local c = t for i=1,5000 do c[1] = {} c = c[1] end return t", "0"],
 ["EVAL", "local t = {} for i=1,100000 do t[i] = i end return t", "0"],
 ["EVAL", "return string.rep('x', 1000000)", "0"],
 ["EVAL", "return nil + 1", "0"],
 ["EVAL", "local a = {} return a.b.c", "0"],
 ["EVAL", "return redis.call('get', KEYS[1], 'x')", "1", "k"],
 ["EVAL", "return coroutine.wrap(function() coroutine.yield(redis.call('ping')) end)()", "0"],
 ["EVAL", "return", "0"],
 ["EVAL", "", "0"],
 ["EVAL", "#!lua", "0"],
 ["EVAL", "#!lua\nreturn 1", "0"],
 ["EVAL", "#!lua flags=\nreturn 1", "0"],
 ["EVAL", "#!lua  flags=no-writes\nreturn 1", "0"],
 ["EVAL", "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn redis.call('get','x')", "0"],
 ["EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get','x')", "0"],
 ["EVAL_RO", "#!lua\nreturn 1", "0"],
 ["EVAL", "return redis.call('shutdown')", "0"],
 ["EVAL", "return redis.call('subscribe', 'x')", "0"],
 ["EVAL", "return redis.call('client', 'list')", "0"],
 ["EVAL", "return cmsgpack.unpack(cmsgpack.pack({a={b={c={1,2,3}}}, [1]='x'}))", "0"],
 ["EVAL", "local t = {} t[1]=1 t[3]=3 return cmsgpack.pack(t)", "0"],
 ["EVAL", "local t={} local c=t for i=1,20 do c[1]={} c=c[1] end return cmsgpack.pack(t)", "0"],
 ["EVAL", "return cmsgpack.pack(1e300, -1e300, 2^53, -2^63, 2^64, 0.5, -0.0)", "0"],
 ["EVAL", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}", "0"],
 ["EVAL", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 1)}", "0"],
 ["EVAL", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}", "0"],
 ["EVAL", "return {cmsgpack.unpack_one(cmsgpack.pack(1), 1)}", "0"],
 ["EVAL", "return {cmsgpack.unpack_one('', 0)}", "0"],
 ["EVAL", "return {struct.unpack('<hHbBlLTiI3dfs', struct.pack('<hHbBlLTiI3dfs', -2, 65535, -1, 255, -7, 7, 9, -5, 70000, 1.5, 0.25, 'abc'))}", "0"],
 ["EVAL", "return {struct.unpack('>c3c0', struct.pack('>c3i1', 'xyz', 2) .. 'ab')}", "0"],
 ["EVAL", "return struct.pack('!4bi', 1, 2)", "0"],
 ["EVAL", "return struct.pack('q', 1)", "0"],
 ["EVAL", "return struct.unpack('i', 'ab')", "0"],
 ["EVAL", "return struct.pack('!3i', 1)", "0"],
 ["EVAL", "return bit.tobit(2^32+5)", "0"],
 ["EVAL", "return {bit.bor(1,2,4), bit.bxor(5,3), bit.lshift(1,31), bit.rshift(-1,28), bit.arshift(-16,2), bit.bnot(0), bit.rol(1,33), bit.bswap(1)}", "0"],
 ["EVAL", "return cjson.encode({a=1/0})", "0"],
 ["EVAL", "return cjson.encode(function() end)", "0"],
 ["EVAL", "return cjson.decode('{\"a\":')", "0"],
 ["EVAL", "return cjson.encode({[1]=1,[3]=3})", "0"],
 ["EVAL", "return cjson.encode({1,2,nil,4})", "0"],
 ["EVAL", "return cjson.encode('\\0x\\n\"/')", "0"],
 ["EVAL", "return cjson.decode('\"\\\\u00e9\"')", "0"],
 ["EVAL", "return cjson.encode(cjson.decode('[1e5, 0.1, -0, 123456789012345678]'))", "0"],
 ["EVAL", "return type(cjson.decode('null'))", "0"],
 ["EVAL", "return cjson.decode('null') == cjson.null", "0"],
 ["EVAL", "return getmetatable('').__index == string", "0"],
 ["EVAL", "return type(_G)", "0"],
 ["EVAL", "return type(KEYS)", "0"],
 ["EVAL", "KEYS[1] = 'x' return KEYS[1]", "0"],
 ["EVAL", "return #ARGV", "0", "a", "b"],
 ["EVAL", "return {KEYS[1], ARGV[1]}", "1", "k", "a"],
 ["EVAL", "return redis.pcall('incr', KEYS[1])", "1", "str"],
 ["EVAL", "local r = redis.pcall('incr', KEYS[1]) return r.err", "1", "str"],
 ["EVAL", "return redis.error_reply('NOCODE')", "0"],
 ["EVAL", "return redis.error_reply('')", "0"],
 ["EVAL", "return redis.error_reply(5)", "0"],
 ["EVAL", "return redis.status_reply()", "0"],
 ["EVAL", "return {err=5}", "0"],
 ["EVAL", "return {ok=5}", "0"],
 ["EVAL", "return redis.sha1hex('abc')", "0"],
 ["EVAL", "return redis.sha1hex()", "0"],
 ["EVAL", "return redis.sha1hex(5)", "0"],
 ["EVAL", "return redis.log(redis.LOG_WARNING, 'hello', 'world')", "0"],
 ["EVAL", "return redis.log(9, 'x')", "0"],
 ["EVAL", "return redis.log('a', 'x')", "0"],
 ["EVAL", "return redis.set_repl(9)", "0"],
 ["EVAL", "return redis.set_repl()", "0"],
 ["EVAL", "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL, redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", "0"],
 ["EVAL", "return redis.acl_check_cmd('get', 'x')", "0"],
 ["EVAL", "return redis.acl_check_cmd('nosuch')", "0"],
 ["EVAL", "return math.randomseed(5)", "0"],
 ["EVAL", "math.randomseed(7) return {math.random(10), math.random(5, 9), tostring(math.random())}", "0"],
 ["EVAL", "return math.random(0)", "0"],
 ["EVAL", "return math.random(1,2,3)", "0"],
 ["EVAL", "return pcall()", "0"],
 ["EVAL", "return {pcall(error, {err='E x'})}", "0"],
 ["EVAL", "return {pcall(error, {})}", "0"],
 ["EVAL", "return {xpcall(function() error('a') end, function(e) return 'h:' .. e end)}", "0"],
 ["EVAL", "return loadstring('return 5')()", "0"],
 ["EVAL", "return unpack({1,2,3})", "0"],
 ["EVAL", "return select('#', 1, 2)", "0"],
 ["EVAL", "return _VERSION", "0"],
 ["EVAL", "return type(newproxy)", "0"],
 ["EVAL", "return type(gcinfo())", "0"],
 ["EVAL", "return type(io)", "0"],
 ["EVAL", "return type(require)", "0"],
 ["EVAL", "return type(package)", "0"],
 ["EVAL", "return type(debug)", "0"],
 ["EVAL", "return type(__redis__err__handler)", "0"],
 ["EVAL", "return tostring(1e15)", "0"],
 ["EVAL", "return redis.call('set', KEYS[1], 0.1)", "1", "fk"],
 ["EVAL", "return redis.call('get', KEYS[1])", "1", "fk"],
 ["EVAL", "return redis.call('set', KEYS[1], 1/0)", "1", "fk"],
 ["EVAL", "return redis.call('get', KEYS[1])", "1", "fk"],
 ["EVAL", "return redis.call('set', KEYS[1], true)", "1", "fk"],
 ["EVAL", "return redis.call('select', 100)", "0"],
 ["EVAL", "return redis.call('mget', 'a', 'b')", "0"],
 ["EVAL", "redis.call('select', 3) redis.call('set', 'indb3', 1) return redis.call('get', 'indb3')", "0"],
 ["GET", "indb3"],
 ["EVAL", "return redis.call('exists', 'indb3')", "0"],
 ["EVAL", "return redis.call('blpop', 'x', 0)", "0"],
 ["EVAL", "return redis.call('watch', 'x')", "0"],
 ["EVAL", "return redis.call('script', 'load', 'return 1')", "0"],
 ["EVAL", "return redis.call('client', 'id') > 0", "0"],
 ["EVAL", "return redis.call('echo', 'x', 'y')", "0"],
 ["EVAL", "return redis.call('ECHO', 'x')", "0"],
 ["EVAL", "return redis.call('sort', 'nol')", "0"],
 ["EVAL", "return redis.call('spop', 'nos')", "0"],
 ["EVAL", "return redis.call('time')[1] ~= nil", "0"],
 ["EVAL", "return redis.call('publish', 'ch', 'm')", "0"],
 ["EVAL", "return redis.call('info', 'nosuch')", "0"],
 ["EVAL", "return redis.call('flushall')", "0"],
]


CONVERSIONS = [
    ["EVAL", "redis.setresp(3) return redis.call('hgetall', KEYS[1])", "1", "h"],
    ["EVAL", "redis.setresp(3) return redis.call('smembers', KEYS[1])", "1", "st"],
    ["EVAL", "redis.setresp(3) local r = redis.call('hgetall', KEYS[1]) return r.map", "1", "h"],
    ["EVAL", "local r = redis.call('hgetall', KEYS[1]) return r", "1", "h"],
    ["EVAL", "redis.setresp(3) return {double=3.25}", "0"],
    ["EVAL", "return {double=3.25}", "0"],
    ["EVAL", "redis.setresp(3) return true", "0"],
    ["EVAL", "redis.setresp(3) return false", "0"],
    ["EVAL", "return true", "0"],
    ["EVAL", "return false", "0"],
    ["EVAL", "return nil", "0"],
    ["EVAL", "return {big_number='12345'}", "0"],
    ["EVAL", "return {big_number='1\\r\\n2'}", "0"],
    ["EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"],
    ["EVAL", "return {verbatim_string={format='txt'}}", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('zscore', KEYS[1], 'a')", "1", "z"],
    ["EVAL", "redis.setresp(3) return redis.call('zscore', KEYS[1], 'a').double", "1", "z"],
    ["EVAL", "return redis.call('zscore', KEYS[1], 'a')", "1", "z"],
    ["EVAL", "redis.setresp(3) return redis.call('get', 'nokey')", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('get', 'nokey') == nil", "0"],
    ["EVAL", "return redis.call('get', 'nokey') == false", "0"],
    ["EVAL", "return redis.call('lrange', 'nokey', 0, -1)", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", "1", "z"],
    ["EVAL", "return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", "1", "z"],
    ["EVAL", "redis.setresp(3) return redis.call('zpopmin', KEYS[1], 0)", "1", "zz"],
    ["EVAL", "return {map={a=1}, set={b=true}}", "0"],
    ["EVAL", "return {set={b=true}}", "0"],
    ["EVAL", "return {1, {err='inner'}, 3}", "0"],
    ["EVAL", "return {1, {ok='inner'}, 3}", "0"],
    ["EVAL", "return {1, 2, {3, {4, {5}}}, 'x', false, true}", "0"],
    ["EVAL", "redis.setresp(3) return {1, false, true, {double=0.5}}", "0"],
    ["EVAL", "return 1e20", "0"],
    ["EVAL", "return -3.9", "0"],
    ["EVAL", "return 3.9", "0"],
    ["EVAL", "return 1/0", "0"],
    ["EVAL", "return -1/0", "0"],
    ["EVAL", "return 2^53", "0"],
    ["EVAL", "return {ok='x\\r\\ny'}", "0"],
    ["EVAL", "return {err='x\\r\\ny'}", "0"],
    ["EVAL", "return redis.call('ping')", "0"],
    ["EVAL", "return redis.call('ping').ok", "0"],
    ["EVAL", "return redis.call('set', 'k', 'v')", "0"],
    ["EVAL", "return type(redis.call('set', 'k', 'v'))", "0"],
    ["EVAL", "return redis.call('incr', 'cnt')", "0"],
    ["EVAL", "return redis.call('type', 'cnt')", "0"],
    ["EVAL", "return redis.call('object', 'encoding', 'cnt')", "0"],
    ["EVAL", "return redis.call('hello')", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('hello')", "0"],
    ["EVAL", "return redis.call('config', 'get', 'maxmemory')", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('config', 'get', 'maxmemory')", "0"],
    ["EVAL", "redis.setresp(3) return redis.call('hrandfield', 'h', -5, 'withvalues') ~= nil", "0"],
    ["EVAL", "return {redis.call('get', 'nokey'), 1}", "0"],
    ["EVAL", "return {1, nil, 2}", "0"],
    ["EVAL", "return {[1]=1, [2]=2, x=3}", "0"],
    ["EVAL", "return {x=3}", "0"],
    ["EVAL", "return function() end", "0"],
    ["EVAL", "return redis.call('lpush', 'l', 'a', 'b') .. ''", "0"],
]


SEED = [["SET", "str", "abc"], ["HSET", "h", "f", "v", "g", "w"], ["SADD", "st", "a", "b"],
        ["ZADD", "z", "1.5", "a", "2", "b"]]


class SideBySide(sidebyside.SideBySideCase):
    """The same scripts to redis-server and Ruvio; the replies must be equal bytes."""

    def run_corpus(self, corpus, proto):
        ref, cand = itest.Raw(self.ref.port), itest.Raw(self.cand.port)
        self.addCleanup(ref.close)
        self.addCleanup(cand.close)
        for c in (ref, cand):
            self.assertEqual(c.call("FLUSHALL"), b"+OK\r\n")
            c.call("SCRIPT", "FLUSH")
            c.call("HELLO", str(proto))
            for cmd in SEED:
                c.call(*cmd)
        for cmd in corpus:
            want = ref.call(*cmd)
            got = cand.call(*cmd)
            self.assertEqual(got, want, f"RESP{proto} {cmd!r}")

    def test_corpus_resp2(self):
        self.run_corpus(CASES, 2)

    def test_corpus_resp3(self):
        self.run_corpus(CASES, 3)

    def test_conversions_resp2(self):
        self.run_corpus(CONVERSIONS, 2)

    def test_conversions_resp3(self):
        self.run_corpus(CONVERSIONS, 3)

    def test_command_info_and_docs(self):
        """SCRIPT's subcommands one by one (the container lists them in Redis's dict order,
        test_server's exception), and the EVAL family, over RESP2 and RESP3."""
        names = ["eval", "evalsha", "eval_ro", "evalsha_ro", "script|debug", "script|exists",
                 "script|flush", "script|help", "script|kill", "script|load"]
        corpus = [[what, sub, n] for n in names for what, sub in
                  (("COMMAND", "INFO"), ("COMMAND", "DOCS"))]
        self.run_corpus(corpus, 2)
        self.run_corpus(corpus, 3)

    def test_info_memory_fields(self):
        cand = itest.Raw(self.cand.port)
        self.addCleanup(cand.close)
        cand.call("SCRIPT", "FLUSH")
        cand.call("SCRIPT", "LOAD", "return 1")
        cand.call("EVAL", "return 2", "0")
        info = cand.call("INFO", "memory").decode()
        fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
        self.assertEqual(fields["number_of_cached_scripts"], "2")
        self.assertGreater(int(fields["used_memory_lua"]), 10000)
        self.assertEqual(fields["used_memory_vm_eval"], fields["used_memory_lua"])
        self.assertGreater(int(fields["used_memory_scripts"]), 2 * 40)
        self.assertEqual(fields["number_of_functions"], "0")
        ref = itest.Raw(self.ref.port)
        self.addCleanup(ref.close)
        ref_info = ref.call("INFO", "memory").decode()
        ref_names = [line.split(":")[0] for line in ref_info.split("\r\n") if "lua" in line or
                     "script" in line or "_vm_" in line or "function" in line]
        mine = [line.split(":")[0] for line in info.split("\r\n") if "lua" in line or
                "script" in line or "_vm_" in line or "function" in line]
        self.assertEqual(mine, ref_names)


RET1 = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"  # sha1("return 1")


class ScriptCases:
    def test_error_texts(self):
        self.assertError("ERR user_script:1: Script attempted to access nonexistent global "
                         "variable 'x' script: 03c387736bb5cc009ff35151572cee04677aa374, "
                         "on @user_script:1.", "EVAL", "return x", "0")
        self.assertError("ERR user_script:1: Attempt to modify a readonly table script: "
                         "7caf6056913504f0508c65faf2dc3f94ff65bcfd, on @user_script:1.",
                         "EVAL", "x=1", "0")
        self.assertError("ERR Unknown Redis command called from script script: "
                         "206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.",
                         "EVAL", "return redis.call('nosuch')", "0")
        self.assertError("ERR Error compiling script (new function): user_script:1: "
                         "unexpected symbol near '<eof>'", "EVAL", "return {", "0")
        self.assertError("ERR user_script:1: boom script: "
                         "82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.",
                         "EVAL", "error('boom')", "0")

    def test_wrongtype_raised_and_caught(self):
        self.r.set("s", "1")
        self.assertError("WRONGTYPE Operation against a key holding the wrong kind of value "
                         "script: c9db597066bf775182928ed96dd47a8e575cbc33, on @user_script:1.",
                         "EVAL", "return redis.call('lpush', KEYS[1], 1)", "1", "s")
        self.assertError("WRONGTYPE Operation against a key holding the wrong kind of value",
                         "EVAL", "return redis.pcall('lpush', KEYS[1], 1)", "1", "s")
        self.assertEqual(self.raw_call("EVAL", "local ok, e = pcall(function() "
                                       "redis.call('nosuch') end) return {tostring(ok), e}", "0"),
                         b"*2\r\n$5\r\nfalse\r\n$44\r\nERR Unknown Redis command called "
                         b"from script\r\n")

    def test_numkeys(self):
        self.assertError("ERR Number of keys can't be negative", "EVAL", "return 1", "-1")
        self.assertError("ERR Number of keys can't be greater than number of args", "EVAL",
                         "return 1", "3", "a")
        self.assertError("ERR value is not an integer or out of range", "EVAL", "return 1", "x")
        self.assertError("ERR wrong number of arguments for 'eval' command", "EVAL", "return 1")

    def test_evalsha_and_cache(self):
        self.assertError("NOSCRIPT No matching script. Please use EVAL.", "EVALSHA", RET1, "0")
        self.assertError("NOSCRIPT No matching script. Please use EVAL.", "EVALSHA", "abc", "0")
        self.assertEqual(self.raw_call("SCRIPT", "EXISTS", RET1), b"*1\r\n:0\r\n")
        self.assertEqual(self.raw_call("EVAL", "return 1", "0"), b":1\r\n")  # EVAL caches
        self.assertEqual(self.raw_call("SCRIPT", "EXISTS", RET1, RET1.upper(), "x"),
                         b"*3\r\n:1\r\n:1\r\n:0\r\n")
        self.assertEqual(self.raw_call("EVALSHA", RET1.upper(), "0"), b":1\r\n")
        self.assertEqual(self.raw_call("SCRIPT", "FLUSH"), b"+OK\r\n")
        self.assertEqual(self.raw_call("SCRIPT", "EXISTS", RET1), b"*1\r\n:0\r\n")
        self.assertEqual(self.raw_call("SCRIPT", "LOAD", "return 1"),
                         b"$40\r\n" + RET1.encode() + b"\r\n")
        self.assertEqual(self.raw_call("EVALSHA_RO", RET1, "0"), b":1\r\n")
        self.assertError("ERR SCRIPT FLUSH only support SYNC|ASYNC option", "SCRIPT", "FLUSH", "x")
        self.assertError("NOTBUSY No scripts in execution right now.", "SCRIPT", "KILL")
        self.assertError("ERR unknown subcommand 'nope'. Try SCRIPT HELP.", "SCRIPT", "nope")
        self.assertError("ERR Error compiling script (new function): user_script:1: "
                         "unexpected symbol near '<eof>'", "SCRIPT", "LOAD", "return {")

    def test_read_only(self):
        self.assertError("ERR Write commands are not allowed from read-only scripts. script: "
                         "119b0beb461d5982ddacc6dda6829882d5e16b4d, on @user_script:1.",
                         "EVAL_RO", "return redis.call('set','a',1)", "0")
        self.assertError("ERR Write commands are not allowed from read-only scripts. script: "
                         "36dfcf40eac5d9221c568698818560e04c0903bd, on @user_script:2.",
                         "EVAL", "#!lua flags=no-writes\nreturn redis.call('set','a',1)", "0")
        self.assertError("ERR Can not execute a script with write flag using *_ro command.",
                         "EVAL_RO", "#!lua\nreturn 1", "0")
        self.assertEqual(self.raw_call("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
                         b":1\r\n")
        self.assertEqual(self.r.exists("a"), 0)

    def test_shebang_errors(self):
        self.assertError("ERR Unexpected flag in script shebang: bad", "EVAL",
                         "#!lua flags=bad\nreturn 1", "0")
        self.assertError("ERR Unexpected engine in script shebang: #!luax", "EVAL",
                         "#!luax\nreturn 1", "0")
        self.assertError("ERR Unknown lua shebang option: foo=1", "EVAL",
                         "#!lua foo=1\nreturn 1", "0")
        self.assertError("ERR Invalid script shebang", "EVAL", "#!lua", "0")

    def test_noscript_commands(self):
        for cmd in ("'multi'", "'eval', 'return 1', 0", "'blpop', 'x', 0", "'subscribe', 'c'"):
            reply = self.raw_call("EVAL", f"return redis.pcall({cmd})", "0")
            self.assertEqual(reply, b"-ERR This Redis command is not allowed from script\r\n")

    def test_writes_land_and_select_stays_in_script(self):
        self.assertEqual(self.raw_call("EVAL", "redis.call('select', 3) redis.call('set', "
                                       "KEYS[1], 'x') return redis.call('get', KEYS[1])", "1",
                                       "k"), b"$1\r\nx\r\n")
        self.assertEqual(self.r.exists("k"), 0)  # the caller stays on db 0
        self.r.execute_command("SELECT", 3)
        self.assertEqual(self.r.get("k"), "x")

    def test_worker_keeps_serving_after_bad_scripts(self):
        for script in ("local function f() return 1 + f() end return f()",
                       "return string.rep('x', 4000000)",
                       "local t = {} for i=1,200000 do t[i] = i end return t",
                       "return nil + 1", "return {"):
            self.raw_call("EVAL", script, "0")
        self.assertEqual(self.raw_call("PING"), b"+PONG\r\n")
        self.assertEqual(len(self.raw_call("EVAL", "return string.rep('x', 4000000)", "0")),
                         4000000 + len(b"$4000000\r\n\r\n"))

    def test_libraries(self):
        self.assertEqual(self.raw_call("EVAL", "return cjson.encode({1,2,{a=1}})", "0"),
                         b'$13\r\n[1,2,{"a":1}]\r\n')
        self.assertEqual(self.raw_call("EVAL", "return cmsgpack.pack({1,2,'abc'})", "0"),
                         b"$7\r\n\x93\x01\x02\xa3abc\r\n")
        self.assertEqual(self.raw_call("EVAL", "return {cmsgpack.unpack(cmsgpack.pack(1, 'x', "
                                       "{1, 2}))}", "0"),
                         b"*3\r\n:1\r\n$1\r\nx\r\n*2\r\n:1\r\n:2\r\n")
        self.assertEqual(self.raw_call("EVAL", "return bit.band(7, 3)", "0"), b":3\r\n")
        self.assertEqual(self.raw_call("EVAL", "return struct.pack('>I2', 258)", "0"),
                         b"$2\r\n\x01\x02\r\n")
        self.assertEqual(self.raw_call("EVAL", "return redis.sha1hex('')", "0"),
                         b"$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n")


class RedisReference(ScriptCases, itest.RedisCase):
    pass


class Ruvio(ScriptCases, itest.RuvioCase):
    def test_error_table_without_text(self):
        # redis-server 7.0.15 crashes on this one (a NULL message); Ruvio answers.
        self.assertError(" script: 367bf7fe449ba40e54d99d9086aa3c2164008136, on @user_script:1.",
                         "EVAL", "error({})", "0")
        self.assertEqual(self.raw_call("PING"), b"+PONG\r\n")


if __name__ == "__main__":
    unittest.main()
