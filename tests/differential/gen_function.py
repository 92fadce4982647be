"""Seeded corpus for the functions differential test: libraries (valid ones built from
gen_script's random redis.call / pcall bodies, each function registered in the positional
or the table form with random flags and descriptions, and broken ones: bad headers, bad
register_function calls, sandbox violations) and the commands that exercise them: FUNCTION
LOAD [REPLACE], FCALL / FCALL_RO with the body's keys and arguments, DELETE, LIST, STATS,
DUMP/RESTORE round trips."""

import random

import gen_script

FLAGS = ["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"]
LOAD_GLOBALS = ["string", "math", "table", "cjson", "bit", "struct", "cmsgpack", "error",
                "pcall", "tostring", "type", "KEYS", "ARGV", "_G", "loadstring", "print"]
BAD_REGISTER = [
    "redis.register_function()",
    "redis.register_function('{n}', 1)",
    "redis.register_function({{}}, function() end)",
    "redis.register_function('{n}', function() end, 1)",
    "redis.register_function('bad name', function() end)",
    "redis.register_function('', function() end)",
    "redis.register_function{{function_name='{n}'}}",
    "redis.register_function{{callback=function() end}}",
    "redis.register_function{{function_name='{n}', callback=function() end, flags={{'nope'}}}}",
    "redis.register_function{{function_name='{n}', callback=function() end, flags=1}}",
    "redis.register_function{{function_name='{n}', callback=function() end, extra=1}}",
    "redis.register_function{{function_name='{n}', callback=function() end, description={{}}}}",
    "redis.register_function('{n}', function() end) redis.register_function('{n}', function() end)",
    "redis.register_function(7)",
]
BAD_HEADERS = [
    "", "#!lua", "#!lua\n", "#!lua name={l} x=1\n", "#!lua name={l} name={l}\n",
    "#!js name={l}\n", "#!lua name={l}!\n", "#!lua name=\n", "#!lua name=\"{l}\n",
    "#!lua name='{l}'\n", "#!LUA NAME={l}\n", "#!lua   name={l}   \n",
]


class FunctionGenerator:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.scripts = gen_script.ScriptGenerator(seed + 7)
        self.n = 0
        self.libs = {}  # library name -> [(function name, nkeys, keys, argv)]

    def _register(self, fname, body):
        rnd = self.rnd
        callback = "function(KEYS, ARGV)\n%s\nend" % body
        if rnd.random() < 0.4:
            return "redis.register_function('%s', %s)" % (fname, callback)
        parts = ["function_name='%s'" % fname, "callback=%s" % callback]
        if rnd.random() < 0.5:
            parts.append("flags={%s}" % ", ".join(
                "'%s'" % f for f in rnd.sample(FLAGS, rnd.randint(0, 3))))
        if rnd.random() < 0.4:
            parts.append("description='d%d'" % rnd.randint(0, 99))
        rnd.shuffle(parts)
        return "redis.register_function{%s}" % ", ".join(parts)

    def library(self):
        """A valid library: (name, code, functions)."""
        self.n += 1
        name = "lib%d" % self.n
        funcs, lines = [], []
        for j in range(self.rnd.randint(1, 3)):
            body, nk, keys, argv = self.scripts.next()
            fname = "f%d_%d" % (self.n, j)
            lines.append(self._register(fname, body))
            funcs.append((fname, nk, keys, argv))
        header = "#!lua name=%s" % name
        if self.rnd.random() < 0.1:
            header = "#!LUA   Name=%s  " % name
        return name, header + "\n" + "\n".join(lines) + "\n", funcs

    def broken(self):
        """A library FUNCTION LOAD refuses."""
        rnd = self.rnd
        name = "bad%d" % rnd.randint(0, 5)
        kind = rnd.randrange(4)
        if kind == 0:
            return rnd.choice(BAD_HEADERS).format(l=name) + "redis.register_function('x', function() end)"
        if kind == 1:
            return "#!lua name=%s\n%s" % (name, rnd.choice(BAD_REGISTER).format(n="g%d" % rnd.randint(0, 3)))
        if kind == 2:
            g = rnd.choice(LOAD_GLOBALS)
            return "#!lua name=%s\nlocal x = %s\nredis.register_function('x', function() end)" % (name, g)
        return "#!lua name=%s\n%s" % (name, rnd.choice(["return 1", "x = 1", "local t = {} t.a = 1",
                                                      "redis.log(redis.LOG_DEBUG, 'x')",
                                                      "local a, b = 1", "(", "redis.call('ping')"]))

    def commands(self):
        """The next step: a list of commands to send to both servers (replies compared
        byte for byte unless the first element is 'LIST' / 'DUMP', compared normalized)."""
        rnd = self.rnd
        r = rnd.random()
        if r < 0.25 or not self.libs:
            name, code, funcs = self.library()
            cmds = [["FUNCTION", "LOAD", code]]
            self.libs[name] = funcs
            if rnd.random() < 0.2:
                cmds.append(["FUNCTION", "LOAD", code])  # already exists
                cmds.append(["FUNCTION", "LOAD", "REPLACE", code])
            return cmds
        if r < 0.35:
            return [["FUNCTION", "LOAD", self.broken()]]
        name = rnd.choice(sorted(self.libs))
        if r < 0.8:
            fname, nk, keys, argv = rnd.choice(self.libs[name])
            verb = "FCALL_RO" if rnd.random() < 0.3 else "FCALL"
            if rnd.random() < 0.2:
                fname = fname.upper()
            return [[verb, fname, str(nk), *keys, *argv]]
        if r < 0.87:
            del self.libs[name]
            return [["FUNCTION", "DELETE", name], ["FUNCTION", "DELETE", name]]
        if r < 0.95:
            return [["LIST", "FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", name]]
        return [["FUNCTION", "STATS"]]
