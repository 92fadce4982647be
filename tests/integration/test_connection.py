"""Connection commands: PING, ECHO, QUIT, SELECT, HELLO 2/3 (RESP3 bytes), AUTH with and
without --requirepass, RESET, CLIENT ID/SETNAME/GETNAME/LIST/INFO. Same assertions against
the reference redis-server and against Ruvio."""

import re
import unittest

import itest

# CLIENT LIST / CLIENT INFO fields, in order, as Redis 7.0 prints them.
CLIENT_FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub",
                 "psub", "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs",
                 "rbp", "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir",
                 "resp"]

NOAUTH = b"-NOAUTH Authentication required.\r\n"
WRONGPASS = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"


def hello_re(proto):
    """HELLO's reply: seven fields in Redis 7's order; server/version values are free."""
    head = b"%7\r\n" if proto == 3 else b"\\*14\r\n"
    return re.compile(
        head + rb"\$6\r\nserver\r\n\$\d+\r\n[^\r\n]+\r\n"
        rb"\$7\r\nversion\r\n\$\d+\r\n[0-9.]+\r\n"
        rb"\$5\r\nproto\r\n:" + str(proto).encode() + rb"\r\n"
        rb"\$2\r\nid\r\n:(\d+)\r\n"
        rb"\$4\r\nmode\r\n\$10\r\nstandalone\r\n"
        rb"\$4\r\nrole\r\n\$6\r\nmaster\r\n"
        rb"\$7\r\nmodules\r\n\*0\r\n\Z")


def parse_client_line(line):
    fields = []
    values = {}
    for part in line.split(" "):
        k, _, v = part.partition("=")
        fields.append(k)
        values[k] = v
    return fields, values


def bulk_text(reply):
    """The text of a `$` bulk or `=` verbatim reply."""
    head, _, rest = reply.partition(b"\r\n")
    n = int(head[1:])
    body = rest[:n]
    if reply[:1] == b"=":
        assert body[3:4] == b":", body
        body = body[4:]
    return body.decode()


class ConnectionCases:
    def test_ping_echo(self):
        c = self.raw()
        self.assertEqual(c.call("PING"), b"+PONG\r\n")
        self.assertEqual(c.call("PING", "hello world"), b"$11\r\nhello world\r\n")
        self.assertEqual(c.call("ping", ""), b"$0\r\n\r\n")
        self.assertEqual(c.call("ECHO", "abc"), b"$3\r\nabc\r\n")
        self.assertEqual(c.call("ECHO", ""), b"$0\r\n\r\n")
        self.assertEqual(c.call("PING", "a", "b"),
                         b"-ERR wrong number of arguments for 'ping' command\r\n")
        self.assertEqual(c.call("ECHO"), b"-ERR wrong number of arguments for 'echo' command\r\n")
        self.assertEqual(c.call("ECHO", "a", "b"),
                         b"-ERR wrong number of arguments for 'echo' command\r\n")
        # Inline commands are accepted too.
        c.send(b"PING\r\n")
        self.assertEqual(c.reply(), b"+PONG\r\n")
        c.send(b"ECHO \"two words\"\r\n")
        self.assertEqual(c.reply(), b"$9\r\ntwo words\r\n")
        self.assertEqual(self.cli("PING"), "PONG\n")
        self.assertEqual(self.cli("ECHO", "hi there"), "hi there\n")

    def test_quit(self):
        c = self.raw()
        c.send(itest.encode("QUIT") + itest.encode("PING"))
        self.assertEqual(c.read_until_closed(), b"+OK\r\n")
        self.assertEqual(self.raw().call("PING"), b"+PONG\r\n")

    def test_select(self):
        c = self.raw()
        for db in range(16):
            self.assertEqual(c.call("SELECT", db), b"+OK\r\n")
            self.assertEqual(c.call("SET", "k", f"db{db}"), b"+OK\r\n")
        for db in range(16):
            c.call("SELECT", db)
            self.assertEqual(c.call("GET", "k"), b"$%d\r\ndb%d\r\n" % (len(f"db{db}"), db))
        self.assertEqual(c.call("SELECT", "16"), b"-ERR DB index is out of range\r\n")
        self.assertEqual(c.call("SELECT", "-1"), b"-ERR DB index is out of range\r\n")
        self.assertEqual(c.call("SELECT", "x"),
                         b"-ERR value is not an integer or out of range\r\n")
        self.assertEqual(c.call("SELECT"),
                         b"-ERR wrong number of arguments for 'select' command\r\n")
        self.assertEqual(c.call("GET", "k"), b"$4\r\ndb15\r\n")  # errors left db 15 selected

    def test_hello(self):
        c = self.raw()
        my_id = c.call("CLIENT", "ID")
        m = hello_re(2).match(c.call("HELLO"))
        self.assertTrue(m)
        self.assertEqual(b":%s\r\n" % m.group(1), my_id)
        self.assertTrue(hello_re(2).match(c.call("HELLO", "2")))
        reply = c.call("HELLO", "3")
        m = hello_re(3).match(reply)
        self.assertTrue(m, reply)
        self.assertEqual(b":%s\r\n" % m.group(1), my_id)
        self.assertTrue(hello_re(3).match(c.call("HELLO")))  # no argument: current protocol
        self.assertEqual(c.call("HELLO", "4"), b"-NOPROTO unsupported protocol version\r\n")
        self.assertEqual(c.call("HELLO", "1"), b"-NOPROTO unsupported protocol version\r\n")
        self.assertEqual(c.call("HELLO", "abc"),
                         b"-ERR Protocol version is not an integer or out of range\r\n")
        self.assertEqual(c.call("HELLO", "3", "BOGUS"),
                         b"-ERR Syntax error in HELLO option 'BOGUS'\r\n")
        self.assertEqual(c.call("HELLO", "3", "AUTH", "default"),
                         b"-ERR Syntax error in HELLO option 'AUTH'\r\n")
        self.assertEqual(c.call("HELLO", "3", "SETNAME", "bad name"),
                         b"-ERR Client names cannot contain spaces, newlines or special "
                         b"characters.\r\n")
        self.assertTrue(hello_re(3).match(c.call("HELLO", "3", "SETNAME", "conn1")))
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$5\r\nconn1\r\n")
        # Without requirepass, the default user takes any password.
        self.assertTrue(hello_re(2).match(c.call("HELLO", "2", "AUTH", "default", "x")))

    def test_resp3_replies(self):
        c = self.raw()
        self.assertTrue(hello_re(3).match(c.call("HELLO", "3")))
        self.assertEqual(c.call("GET", "nokey"), b"_\r\n")
        self.assertEqual(c.call("SET", "a", "1"), b"+OK\r\n")
        self.assertEqual(c.call("SET", "a", "2", "NX"), b"_\r\n")
        self.assertEqual(c.call("MGET", "a", "nokey"), b"*2\r\n$1\r\n1\r\n_\r\n")
        self.assertEqual(c.call("INCR", "n"), b":1\r\n")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory"),
                         b"%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n")
        info = c.call("CLIENT", "INFO")
        self.assertTrue(info.startswith(b"="), info)
        self.assertIn(b"\r\ntxt:id=", info)
        self.assertEqual(c.call("OBJECT", "ENCODING", "nokey"), b"_\r\n")
        self.assertEqual(c.call("GET", "x", "y"),
                         b"-ERR wrong number of arguments for 'get' command\r\n")
        # Back to RESP2.
        self.assertTrue(hello_re(2).match(c.call("HELLO", "2")))
        self.assertEqual(c.call("GET", "nokey"), b"$-1\r\n")
        self.assertEqual(c.call("CONFIG", "GET", "maxmemory"),
                         b"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n")

    def test_auth_without_requirepass(self):
        c = self.raw()
        self.assertEqual(c.call("AUTH", "x"),
                         b"-ERR AUTH <password> called without any password configured for "
                         b"the default user. Are you sure your configuration is correct?\r\n")
        self.assertEqual(c.call("AUTH", "default", "x"), b"+OK\r\n")
        self.assertEqual(c.call("AUTH"), b"-ERR wrong number of arguments for 'auth' command\r\n")
        self.assertEqual(c.call("PING"), b"+PONG\r\n")

    def test_reset(self):
        c = self.raw()
        c.call("HELLO", "3")
        c.call("SELECT", "5")
        c.call("SET", "in5", "v")
        c.call("CLIENT", "SETNAME", "before")
        self.assertEqual(c.call("RESET"), b"+RESET\r\n")
        self.assertEqual(c.call("GET", "nokey"), b"$-1\r\n")  # RESP2 again
        self.assertEqual(c.call("EXISTS", "in5"), b":0\r\n")  # db 0 again
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$-1\r\n")  # name cleared
        self.assertEqual(c.call("RESET", "x"),
                         b"-ERR wrong number of arguments for 'reset' command\r\n")

    def test_client_id_name(self):
        # c2 connects after c1 was served: on the proxy port the two may land on different
        # workers, and only a connection accepted later is promised the larger id (two
        # connections waiting in the kernel at once are accepted in no fixed order).
        c1 = self.raw()
        id1 = int(c1.call("CLIENT", "ID")[1:-2])
        c2 = self.raw()
        id2 = int(c2.call("CLIENT", "ID")[1:-2])
        self.assertGreater(id2, id1)
        self.assertEqual(c1.call("CLIENT", "ID"), b":%d\r\n" % id1)
        self.assertEqual(c1.call("CLIENT", "GETNAME"), b"$-1\r\n")
        self.assertEqual(c1.call("CLIENT", "SETNAME", "worker-a"), b"+OK\r\n")
        self.assertEqual(c1.call("CLIENT", "GETNAME"), b"$8\r\nworker-a\r\n")
        self.assertEqual(c2.call("CLIENT", "GETNAME"), b"$-1\r\n")
        self.assertEqual(c1.call("CLIENT", "SETNAME", "a b"),
                         b"-ERR Client names cannot contain spaces, newlines or special "
                         b"characters.\r\n")
        self.assertEqual(c1.call("CLIENT", "GETNAME"), b"$8\r\nworker-a\r\n")
        self.assertEqual(c1.call("CLIENT", "SETNAME", ""), b"+OK\r\n")
        self.assertEqual(c1.call("CLIENT", "GETNAME"), b"$-1\r\n")
        self.assertEqual(c1.call("CLIENT", "SETNAME"),
                         b"-ERR wrong number of arguments for 'client|setname' command\r\n")
        self.assertEqual(c1.call("CLIENT", "ID", "x"),
                         b"-ERR wrong number of arguments for 'client|id' command\r\n")
        self.assertEqual(c1.call("CLIENT"),
                         b"-ERR wrong number of arguments for 'client' command\r\n")
        self.assertEqual(c1.call("CLIENT", "BOGUS"),
                         b"-ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.\r\n")

    def test_client_list_info(self):
        c1, c2 = self.raw(), self.raw()
        id1 = int(c1.call("CLIENT", "ID")[1:-2])
        id2 = int(c2.call("CLIENT", "ID")[1:-2])
        c2.call("CLIENT", "SETNAME", "second")
        c2.call("SELECT", "3")
        reply = c1.call("CLIENT", "LIST")
        self.assertEqual(reply[:1], b"$")
        text = bulk_text(reply)
        self.assertTrue(text.endswith("\n"), text)
        lines = text.rstrip("\n").split("\n")
        by_id = {}
        for line in lines:
            fields, values = parse_client_line(line)
            self.assertEqual(fields, CLIENT_FIELDS, line)
            by_id[int(values["id"])] = values
        self.assertIn(id1, by_id)
        self.assertIn(id2, by_id)
        self.assertEqual(by_id[id1]["cmd"], "client|list")
        self.assertEqual(by_id[id2]["name"], "second")
        self.assertEqual(by_id[id2]["db"], "3")
        self.assertEqual(by_id[id1]["resp"], "2")
        self.assertEqual(by_id[id1]["user"], "default")
        self.assertEqual(by_id[id1]["addr"], "%s:%d" % c1.sock.getsockname())
        self.assertEqual(by_id[id1]["laddr"], f"127.0.0.1:{self.port}")
        # CLIENT LIST ID: only those.
        text = bulk_text(c1.call("CLIENT", "LIST", "ID", id2))
        self.assertEqual(len(text.rstrip("\n").split("\n")), 1)
        self.assertEqual(parse_client_line(text.rstrip("\n"))[1]["id"], str(id2))
        # CLIENT INFO: this connection's line.
        info = bulk_text(c2.call("CLIENT", "INFO"))
        self.assertTrue(info.endswith("\n"))
        fields, values = parse_client_line(info.rstrip("\n"))
        self.assertEqual(fields, CLIENT_FIELDS)
        self.assertEqual(values["id"], str(id2))
        self.assertEqual(values["name"], "second")
        self.assertEqual(values["cmd"], "client|info")
        c2.call("HELLO", "3")
        fields, values = parse_client_line(bulk_text(c2.call("CLIENT", "INFO")).rstrip("\n"))
        self.assertEqual(values["resp"], "3")


class AuthCases:
    """A server started with --requirepass secret."""

    server_args = ("--requirepass", "secret")

    def setUp(self):
        self.r = self.server.client(decode_responses=True, password="secret")
        self.r.flushall()

    def test_noauth(self):
        c = self.raw()
        self.assertEqual(c.call("PING"), NOAUTH)
        self.assertEqual(c.call("GET", "k"), NOAUTH)
        self.assertEqual(c.call("CLIENT", "ID"), NOAUTH)
        self.assertEqual(c.call("SELECT", "1"), NOAUTH)
        # The command lookup comes first: an unknown command is reported as such.
        self.assertEqual(c.call("NOSUCHCOMMAND"),
                         b"-ERR unknown command 'NOSUCHCOMMAND', with args beginning with: \r\n")
        self.assertEqual(c.call("HELLO", "3"),
                         b"-NOAUTH HELLO must be called with the client already authenticated, "
                         b"otherwise the HELLO AUTH <user> <pass> option can be used to "
                         b"authenticate the client and select the RESP protocol version at the "
                         b"same time\r\n")
        self.assertEqual(self.cli("PING"), "NOAUTH Authentication required.\n\n")

    def test_auth(self):
        c = self.raw()
        self.assertEqual(c.call("AUTH", "wrong"), WRONGPASS)
        self.assertEqual(c.call("AUTH", "default", "wrong"), WRONGPASS)
        self.assertEqual(c.call("AUTH", "nouser", "secret"), WRONGPASS)
        self.assertEqual(c.call("AUTH", "a", "b", "c"), b"-ERR syntax error\r\n")
        self.assertEqual(c.call("PING"), NOAUTH)
        self.assertEqual(c.call("AUTH", "secret"), b"+OK\r\n")
        self.assertEqual(c.call("PING"), b"+PONG\r\n")
        self.assertEqual(c.call("SET", "k", "v"), b"+OK\r\n")
        c2 = self.raw()
        self.assertEqual(c2.call("AUTH", "default", "secret"), b"+OK\r\n")
        self.assertEqual(c2.call("GET", "k"), b"$1\r\nv\r\n")
        # RESET logs the connection out again.
        self.assertEqual(c2.call("RESET"), b"+RESET\r\n")
        self.assertEqual(c2.call("GET", "k"), NOAUTH)
        self.assertEqual(self.cli("-a", "secret", "--no-auth-warning", "GET", "k"), "v\n")

    def test_hello_auth(self):
        c = self.raw()
        self.assertEqual(c.call("HELLO", "3", "AUTH", "default", "bad"), WRONGPASS)
        self.assertEqual(c.call("PING"), NOAUTH)
        reply = c.call("HELLO", "3", "AUTH", "default", "secret", "SETNAME", "authed")
        self.assertTrue(hello_re(3).match(reply), reply)
        self.assertEqual(c.call("CLIENT", "GETNAME"), b"$6\r\nauthed\r\n")
        self.assertEqual(c.call("GET", "nokey"), b"_\r\n")

    def test_redis_py_password(self):
        self.assertTrue(self.r.ping())
        self.assertTrue(self.r.set("k", "v"))
        self.assertEqual(self.r.get("k"), "v")


class RedisReference(ConnectionCases, itest.RedisCase):
    pass


class Ruvio(ConnectionCases, itest.RuvioCase):
    pass


class RedisReferenceAuth(AuthCases, itest.RedisCase):
    pass


class RuvioAuth(AuthCases, itest.RuvioCase):
    pass


class RuvioProxy(ConnectionCases, itest.RuvioProxyCase):
    pass


class RuvioProxyAuth(AuthCases, itest.RuvioProxyCase):
    server_args = AuthCases.server_args + itest.RuvioProxyCase.server_args


if __name__ == "__main__":
    unittest.main()
