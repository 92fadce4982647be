"""FUNCTION / FCALL against exact Redis 7.0 replies: every subcommand and its errors, the
`#!lua name=` header, redis.register_function in both forms with every flag, the load-time
sandbox, FCALL_RO's refusals, FUNCTION LIST's shape (the same in RESP2 and RESP3 but for
the map/set/null types). The cases run on redis-server (RedisReference), on Ruvio and
through a 2-worker Ruvio's proxy port (every FUNCTION write reaches both workers there)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

ECHO = ("#!lua name=echo\n"
        "redis.register_function('echo', function(keys, args) "
        "return {#keys, #args, keys[1], args[1]} end)")
ALL_FLAGS = ("#!lua name=flagged\n"
             "local f = function() return 1 end\n"
             "redis.register_function('plain', f)\n"
             "redis.register_function{function_name='ro', callback=f, "
             "flags={'no-writes','allow-oom','allow-stale','no-cluster','allow-cross-slot-keys'},"
             " description='all of them'}\n")
BAD_NAME = ("Library names can only contain letters, numbers, or underscores(_) and must be at "
            "least one character long")


def lib(body, name="t"):
    return "#!lua name=%s\n%s" % (name, body)


# (library code, the exact error FUNCTION LOAD answers)
LOAD_ERRORS = [
    ("return 1", "ERR Missing library metadata"),
    ("#!lua", "ERR Invalid library metadata"),
    ("#!lua\nreturn 1", "ERR Library name was not given"),
    ("#!lua name=a foo=1\n", "ERR Invalid metadata value given: foo=1"),
    ("#!lua name=a name=b\n", "ERR Invalid metadata value, name argument was given multiple times"),
    ("#!luax name=a\n", "ERR Engine 'luax' not found"),
    ("#!lua name=a-b\n", "ERR " + BAD_NAME),
    ("#!lua name=\n", "ERR " + BAD_NAME),
    ('#!lua name="a\n', "ERR Invalid library metadata"),
    (lib("x y z"), "ERR Error compiling function: user_function:2: '=' expected near 'y'"),
    (lib("local function"),
     "ERR Error compiling function: user_function:2: '<name>' expected near '<eof>'"),
    (lib("return 1"), "ERR No functions registered"),
    (lib("redis.log(redis.LOG_WARNING, 'loading')"), "ERR No functions registered"),
    (lib("local s = string.upper('x')"), "ERR Error registering functions: ERR user_function:2: "
     "Script attempted to access nonexistent global variable 'string'"),
    (lib("redis.call('ping')"), "ERR Error registering functions: ERR user_function:2: "
     "Script attempted to access nonexistent global variable 'call'"),
    (lib("local p = redis.pcall"), "ERR Error registering functions: ERR user_function:2: "
     "Script attempted to access nonexistent global variable 'pcall'"),
    (lib("redis.setresp(3)"), "ERR Error registering functions: ERR user_function:2: "
     "Script attempted to access nonexistent global variable 'setresp'"),
    (lib("error('boom')"), "ERR Error registering functions: ERR user_function:2: "
     "Script attempted to access nonexistent global variable 'error'"),
    (lib("x = 1"), "ERR Error registering functions: ERR user_function:2: "
     "Attempt to modify a readonly table"),
    (lib("local x = nil + 1"), "ERR Error registering functions: ERR user_function:2: "
     "attempt to perform arithmetic on a nil value"),
    (lib("redis.log(1)"),
     "ERR Error registering functions: ERR redis.log() requires two arguments or more."),
    (lib("while true do end"), "ERR Error registering functions: ERR FUNCTION LOAD timeout"),
    (lib("redis.register_function()"),
     "ERR Error registering functions: ERR wrong number of arguments to redis.register_function"),
    (lib("redis.register_function('a', function() end, 3)"),
     "ERR Error registering functions: ERR wrong number of arguments to redis.register_function"),
    (lib("redis.register_function('a', 1)"), "ERR Error registering functions: ERR second "
     "argument to redis.register_function must be a function"),
    (lib("redis.register_function({}, function() end)"), "ERR Error registering functions: ERR "
     "first argument to redis.register_function must be a string"),
    (lib("redis.register_function('a b', function() end)"),
     "ERR Error registering functions: ERR " + BAD_NAME),
    (lib("redis.register_function('x', function() end) redis.register_function('x', function() "
         "end)"), "ERR Error registering functions: ERR Function already exists in the library"),
    (lib("redis.register_function(3)"), "ERR Error registering functions: ERR calling "
     "redis.register_function with a single argument is only applicable to Lua table "
     "(representing named arguments)."),
    (lib("redis.register_function{function_name='x'}"), "ERR Error registering functions: ERR "
     "redis.register_function must get a callback argument"),
    (lib("redis.register_function{callback=function() end}"), "ERR Error registering functions: "
     "ERR redis.register_function must get a function name argument"),
    (lib("redis.register_function{function_name='x', callback=function() end, flags={'bad'}}"),
     "ERR Error registering functions: ERR unknown flag given"),
    (lib("redis.register_function{function_name='x', callback=function() end, flags='no-writes'}"),
     "ERR Error registering functions: ERR flags argument to redis.register_function must be a "
     "table representing function flags"),
    (lib("redis.register_function{function_name='x', callback=function() end, foo=1}"),
     "ERR Error registering functions: ERR unknown argument given to redis.register_function"),
    (lib("redis.register_function{function_name={}, callback=function() end}"),
     "ERR Error registering functions: ERR function_name argument given to "
     "redis.register_function must be a string"),
    (lib("redis.register_function{function_name='x', callback=1}"),
     "ERR Error registering functions: ERR callback argument given to redis.register_function "
     "must be a function"),
    (lib("redis.register_function{function_name='x', callback=function() end, description={}}"),
     "ERR Error registering functions: ERR description argument given to "
     "redis.register_function must be a string"),
]


class FunctionCases:
    def setUp(self):
        super().setUp()
        self.assertEqual(self.raw_call("FUNCTION", "FLUSH"), b"+OK\r\n")

    def load(self, code, *opts):
        return self.raw_call("FUNCTION", "LOAD", *opts, code)

    def test_load_errors(self):
        for code, err in LOAD_ERRORS:
            with self.subTest(code=code):
                self.assertEqual(self.load(code), b"-" + err.encode() + b"\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "LIST"), b"*0\r\n")

    def test_load_replace_and_collisions(self):
        self.assertEqual(self.load(ECHO), b"$4\r\necho\r\n")
        self.assertEqual(self.load(ECHO), b"-ERR Library 'echo' already exists\r\n")
        self.assertEqual(self.load(ECHO, "REPLACE"), b"$4\r\necho\r\n")
        self.assertEqual(self.load(ECHO, "replace", "REPLACE"), b"$4\r\necho\r\n")
        self.assertEqual(self.load(ECHO, "foo"), b"-ERR Unknown option given: foo\r\n")
        self.assertEqual(self.load(lib("redis.register_function('ECHO', function() end)", "b")),
                         b"-ERR Function ECHO already exists\r\n")
        # a failed REPLACE keeps the old library
        self.assertEqual(self.load(lib("return 1", "echo"), "REPLACE"),
                         b"-ERR No functions registered\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "0"), b"*2\r\n:0\r\n:0\r\n")
        self.assertEqual(self.load("#!LUA  NAME=spaced  \nredis.register_function('s', "
                                   "function() return 's' end)"), b"$6\r\nspaced\r\n")
        self.assertEqual(self.raw_call("FCALL", "S", "0"), b"$1\r\ns\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "LOAD"),
                         b"-ERR wrong number of arguments for 'function|load' command\r\n")

    def test_fcall(self):
        self.load(ECHO)
        self.assertEqual(self.raw_call("FCALL", "echo", "1", "k", "a", "b"),
                         b"*4\r\n:1\r\n:2\r\n$1\r\nk\r\n$1\r\na\r\n")
        self.assertEqual(self.raw_call("FCALL", "EcHo", "0", "a"), b"*2\r\n:0\r\n:1\r\n")
        self.assertEqual(self.raw_call("FCALL", "nope", "0"), b"-ERR Function not found\r\n")
        self.assertEqual(self.raw_call("FCALL", "nope", "x"), b"-ERR Function not found\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "x"),
                         b"-ERR Bad number of keys provided\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "2", "a"),
                         b"-ERR Number of keys can't be greater than number of args\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "-1"),
                         b"-ERR Number of keys can't be negative\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo"),
                         b"-ERR wrong number of arguments for 'fcall' command\r\n")
        self.assertEqual(self.raw_call("FCALL_RO", "echo", "0"),
                         b"-ERR Can not execute a script with write flag using *_ro command.\r\n")

    def test_function_bodies(self):
        code = lib(
            "redis.register_function('w', function(keys, args) "
            "return redis.call('incrby', keys[1], args[1]) end)\n"
            "redis.register_function{function_name='r', flags={'no-writes'}, "
            "callback=function(keys) return redis.call('get', keys[1]) end}\n"
            "redis.register_function{function_name='bad', flags={'no-writes'}, "
            "callback=function(keys) return redis.call('set', keys[1], 1) end}\n"
            "redis.register_function('map', function(keys) redis.setresp(3) "
            "return redis.call('hgetall', keys[1]) end)\n"
            "redis.register_function('err', function() return redis.error_reply('MY oops') end)\n"
            "redis.register_function('rt', function() return nil + 1 end)\n"
            "redis.register_function('reg', function() "
            "return redis.register_function('y', function() end) end)\n"
            "redis.register_function('ver', function() return redis.REDIS_VERSION end)\n",
            "bodies")
        self.assertEqual(self.load(code), b"$6\r\nbodies\r\n")
        key = self.k("{f}n")
        self.assertEqual(self.raw_call("FCALL", "w", "1", key, "5"), b":5\r\n")
        self.assertEqual(self.raw_call("FCALL_RO", "r", "1", key), b"$1\r\n5\r\n")
        self.assertEqual(self.raw_call("FCALL", "r", "1", key), b"$1\r\n5\r\n")
        self.assertEqual(self.raw_call("FCALL_RO", "bad", "1", key),
                         b"-ERR Write commands are not allowed from read-only scripts. script: "
                         b"bad, on @user_function:4.\r\n")
        self.assertEqual(self.raw_call("FCALL", "err", "0"), b"-MY oops\r\n")
        self.assertEqual(self.raw_call("FCALL", "map", "1", self.k("{f}h")), b"*0\r\n")
        # SCRIPT FLUSH leaves the functions alone
        self.assertEqual(self.raw_call("SCRIPT", "FLUSH"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FCALL", "ver", "0"), b"$6\r\n7.0.15\r\n")
        self.assertEqual(self.raw_call("FCALL", "rt", "0"),
                         b"-ERR user_function:7: attempt to perform arithmetic on a nil value "
                         b"script: rt, on @user_function:7.\r\n")
        self.assertEqual(self.raw_call("FCALL", "reg", "0"),
                         b"-ERR user_function:8: attempt to call field 'register_function' "
                         b"(a nil value) script: reg, on @user_function:8.\r\n")
        self.assertEqual(self.raw_call("FCALL", "ver", "0"), b"$6\r\n7.0.15\r\n")

    def test_list(self):
        self.load(ALL_FLAGS)
        want = (b"*1\r\n*6\r\n$12\r\nlibrary_name\r\n$7\r\nflagged\r\n$6\r\nengine\r\n$3\r\nLUA\r\n"
                b"$9\r\nfunctions\r\n*2\r\n")
        plain = (b"*6\r\n$4\r\nname\r\n$5\r\nplain\r\n$11\r\ndescription\r\n$-1\r\n"
                 b"$5\r\nflags\r\n*0\r\n")
        ro = (b"*6\r\n$4\r\nname\r\n$2\r\nro\r\n$11\r\ndescription\r\n$11\r\nall of them\r\n"
              b"$5\r\nflags\r\n*5\r\n+no-writes\r\n+allow-oom\r\n+allow-stale\r\n+no-cluster\r\n"
              b"+allow-cross-slot-keys\r\n")
        got = self.raw_call("FUNCTION", "LIST")
        # Redis's dict order of the functions is its hash's; either order is Redis's reply.
        self.assertIn(got, (want + plain + ro, want + ro + plain))
        self.assertEqual(self.raw_call("FUNCTION", "LIST", "LIBRARYNAME", "FLAG*"), got)
        self.assertEqual(self.raw_call("FUNCTION", "LIST", "LIBRARYNAME", "x*"), b"*0\r\n")
        with_code = self.raw_call("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "flagged")
        self.assertTrue(with_code.startswith(b"*1\r\n*8\r\n"))
        self.assertTrue(with_code.endswith(b"$12\r\nlibrary_code\r\n$%d\r\n%s\r\n" % (
            len(ALL_FLAGS), ALL_FLAGS.encode())))
        self.assertEqual(self.raw_call("FUNCTION", "LIST", "LIBRARYNAME"),
                         b"-ERR library name argument was not given\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "LIST", "WITHCODE", "WITHCODE"),
                         b"-ERR Unknown argument WITHCODE\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "LIST", "foo"), b"-ERR Unknown argument foo\r\n")
        c = self.raw()
        c.call("HELLO", "3")
        got3 = c.call("FUNCTION", "LIST")
        self.assertTrue(got3.startswith(b"*1\r\n%3\r\n$12\r\nlibrary_name\r\n$7\r\nflagged\r\n"))
        self.assertIn(b"$11\r\ndescription\r\n_\r\n$5\r\nflags\r\n~0\r\n", got3)
        self.assertIn(b"~5\r\n+no-writes\r\n+allow-oom\r\n", got3)

    def test_delete_flush_stats_kill_help(self):
        self.load(ECHO)
        self.assertEqual(self.raw_call("FUNCTION", "DELETE", "nope"), b"-ERR Library not found\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "DELETE", "ECHO"), b"-ERR Library not found\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "DELETE", "echo"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "0"), b"-ERR Function not found\r\n")
        self.load(ECHO)
        self.assertEqual(self.raw_call("FUNCTION", "STATS"),
                         b"*4\r\n$14\r\nrunning_script\r\n$-1\r\n$7\r\nengines\r\n*2\r\n$3\r\nLUA"
                         b"\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count\r\n:1"
                         b"\r\n")
        for mode in ("ASYNC", "sync"):
            self.load(ECHO, "REPLACE")
            self.assertEqual(self.raw_call("FUNCTION", "FLUSH", mode), b"+OK\r\n")
            self.assertEqual(self.raw_call("FUNCTION", "LIST"), b"*0\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "FLUSH", "x"),
                         b"-ERR FUNCTION FLUSH only supports SYNC|ASYNC option\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "FLUSH", "a", "b"),
                         b"-ERR unknown subcommand or wrong number of arguments for 'FLUSH'. "
                         b"Try FUNCTION HELP.\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "KILL"),
                         b"-NOTBUSY No scripts in execution right now.\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "foo"),
                         b"-ERR unknown subcommand 'foo'. Try FUNCTION HELP.\r\n")
        help_reply = self.raw_call("FUNCTION", "HELP")
        self.assertTrue(help_reply.startswith(b"*40\r\n+FUNCTION <subcommand> [<arg> [value] "
                                              b"[opt] ...]. Subcommands are:\r\n"))
        self.assertIn(b"+    * Library description\r\n", help_reply)
        self.assertTrue(help_reply.endswith(b"+HELP\r\n+    Prints this help.\r\n"))

    def test_dump_restore(self):
        self.load(ECHO)
        payload = self.raw_call("FUNCTION", "DUMP")
        body = payload[payload.index(b"\r\n") + 2:-2]
        # the bytes of Redis 7.0's own DUMP of this library (RDB FUNCTION2, LZF, v10, CRC64)
        self.assertEqual(body[:2], b"\xf5\xc3")
        self.assertEqual(body[-10:-8], b"\x0a\x00")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body),
                         b"-ERR Library echo already exists\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "REPLACE"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "FLUSH"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "bad"),
                         b"-ERR Wrong restore policy given, value should be either FLUSH, APPEND"
                         b" or REPLACE.\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "APPEND", "x"),
                         b"-ERR unknown subcommand or wrong number of arguments for 'RESTORE'. "
                         b"Try FUNCTION HELP.\r\n")
        broken = body[:-1] + bytes([body[-1] ^ 1])
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", broken),
                         b"-ERR DUMP payload version or checksum are wrong\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", "short"),
                         b"-ERR DUMP payload version or checksum are wrong\r\n")
        self.raw_call("FUNCTION", "DELETE", "echo")
        self.load(lib("redis.register_function('echo', function() end)", "other"))
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body),
                         b"-ERR Function echo already exists\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "REPLACE"),
                         b"-ERR Function echo already exists\r\n")
        self.assertEqual(self.raw_call("FUNCTION", "RESTORE", body, "FLUSH"), b"+OK\r\n")
        self.assertEqual(self.raw_call("FCALL", "echo", "0"), b"*2\r\n:0\r\n:0\r\n")
        empty = self.raw_call("FUNCTION", "FLUSH") and self.raw_call("FUNCTION", "DUMP")
        self.assertEqual(empty, b"$10\r\n\n\x00]\x9b\\@\x0f\x7f\xa2\xda\r\n")

    def test_function_commands_not_allowed_from_scripts(self):
        self.load(ECHO)
        for cmd in ("'fcall', 'echo', 0", "'function', 'list'", "'fcall_ro', 'echo', 0"):
            self.assertEqual(self.raw_call("EVAL", "return redis.pcall(%s)" % cmd, "0"),
                             b"-ERR This Redis command is not allowed from script\r\n")

    def test_info_figures(self):
        self.load(ALL_FLAGS)
        info = self.r.info("memory")
        self.assertEqual(info["number_of_functions"], 2)
        self.assertEqual(info["number_of_libraries"], 1)
        self.assertGreater(info["used_memory_vm_functions"], 0)
        self.assertGreater(info["used_memory_functions"], 0)
        self.assertEqual(info["used_memory_vm_total"],
                         info["used_memory_vm_eval"] + info["used_memory_vm_functions"])


itest.bind(FunctionCases, globals())

if __name__ == "__main__":
    unittest.main()
