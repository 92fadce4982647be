"""Keyspace notifications beside redis-server: notify-keyspace-events at start and through
CONFIG SET (CONFIG GET's canonical letters, Redis's error for a bad letter, nothing changed),
which class letters publish what (K only, E only, n, m, x from lazy and active expiry), and,
through a 2-worker proxy port, a subscriber hearing the events of keys owned by either worker.
Every event list is compared with redis-server's for the same commands."""

import time

import redis

import itest


def subscriber_events(port, commands, wait_expiry=0.0, until=None):
    """Runs `commands` on one connection while a second one, PSUBSCRIBEd to every keyspace
    channel, listens; returns the (channel, message) pairs heard up to a marker PUBLISHed
    after the commands (then `wait_expiry` more seconds, or until the event `until`)."""
    sub = redis.Redis(port=port, decode_responses=True).pubsub()
    sub.psubscribe("__key*@*__:*")
    sub.subscribe("notify-test-mark")
    for _ in range(2):
        sub.get_message(timeout=5)
    c = redis.Redis(port=port, decode_responses=True)
    try:
        for cmd in commands:
            if cmd[0] == "SLEEP":
                time.sleep(cmd[1])
                continue
            try:
                c.execute_command(*cmd)
            except redis.ResponseError:
                pass
        c.execute_command("SELECT", "0")
        c.publish("notify-test-mark", "end")
        got, marked = [], False
        deadline = time.monotonic() + 5 + wait_expiry
        quiet_until = None
        while time.monotonic() < deadline:
            m = sub.get_message(timeout=0.05)
            if m is None:
                if marked and (quiet_until is None or time.monotonic() > quiet_until):
                    break
                continue
            if m["type"] == "message":
                marked = True
                quiet_until = time.monotonic() + wait_expiry
            elif m["type"] == "pmessage":
                got.append((m["channel"], m["data"]))
                if until is not None and got[-1] == until:
                    break
        return got
    finally:
        c.close()
        sub.close()


class NotifyCases:
    def config(self, value):
        return self.r.execute_command("CONFIG", "SET", "notify-keyspace-events", value)

    def test_config_canonical_letters(self):
        cases = {"KEA": "AKE", "AKE": "AKE", "Exg": "gxE", "Elg$shzxetdn": "AE", "Km": "Km",
                 "n": "n", "": "", "KA": "AK", "Kg$lshzxet": "g$lshzxetK", "KEAmn": "AKEm",
                 "lsK$": "$lsK", "tdE": "tdE"}
        for given, shown in cases.items():
            self.assertEqual(self.config(given), "OK")
            self.assertEqual(self.r.config_get("notify-keyspace-events"),
                             {"notify-keyspace-events": shown}, given)
        self.config("")

    def test_config_bad_letter_changes_nothing(self):
        self.config("KEl")
        self.assertError("ERR CONFIG SET failed (possibly related to argument "
                         "'notify-keyspace-events') - Invalid event class character. Use "
                         "'Ag$lshzxeKEtmdn'.", "CONFIG", "SET", "notify-keyspace-events", "Kq")
        self.assertEqual(self.r.config_get("notify-keyspace-events"),
                         {"notify-keyspace-events": "lKE"})
        self.config("")

    def events(self, flags, commands, wait_expiry=0.0):
        self.config(flags)
        try:
            return subscriber_events(self.port, commands, wait_expiry)
        finally:
            self.config("")

    def expect(self, flags, commands, want, wait_expiry=0.0):
        self.assertEqual(self.events(flags, commands, wait_expiry), want)

    def test_keyspace_only_and_keyevent_only(self):
        cmds = [("SET", "a", "1"), ("LPUSH", "l", "x"), ("DEL", "a")]
        self.expect("K$", cmds, [("__keyspace@0__:a", "set")])
        self.expect("El", cmds, [("__keyevent@0__:lpush", "l")])
        self.expect("Kg", cmds, [("__keyspace@0__:a", "del")])

    def test_new_class(self):
        self.expect("En", [("SET", "a", "1"), ("SET", "a", "2"), ("HSET", "h", "f", "v")],
                    [("__keyevent@0__:new", "a"), ("__keyevent@0__:new", "h")])

    def test_keymiss(self):
        self.r.set("there", "1")
        self.expect("Em", [("GET", "nope"), ("GET", "there"), ("HGET", "h", "f"),
                           ("SET", "nope", "1")],
                    [("__keyevent@0__:keymiss", "nope"), ("__keyevent@0__:keymiss", "h")])

    def test_lazy_expiry(self):
        # The GET finds the key expired unless active expiry took it first: either way one
        # "expired" event, and the GET's miss is no event of class x.
        self.expect("Ex", [("SET", "e", "1", "PX", "20"), ("SLEEP", 0.06), ("GET", "e"),
                           ("GET", "e")], [("__keyevent@0__:expired", "e")])

    def test_active_expiry(self):
        self.config("Ex")
        try:
            got = subscriber_events(self.port, [("SET", "ae", "1", "PX", "20")], wait_expiry=1.5,
                                    until=("__keyevent@0__:expired", "ae"))
        finally:
            self.config("")
        self.assertEqual(got, [("__keyevent@0__:expired", "ae")])

    def test_expire_in_the_past_is_del(self):
        self.r.set("p", "1")
        self.r.set("q", "1")
        self.expect("KEA", [("EXPIRE", "p", "-1"), ("PEXPIRE", "q", "100000"), ("PERSIST", "q"),
                            ("PERSIST", "q")],
                    [("__keyspace@0__:p", "del"), ("__keyevent@0__:del", "p"),
                     ("__keyspace@0__:q", "expire"), ("__keyevent@0__:expire", "q"),
                     ("__keyspace@0__:q", "persist"), ("__keyevent@0__:persist", "q")])

    def test_other_database(self):
        self.expect("E$", [("SELECT", "3"), ("SET", "a", "1")], [("__keyevent@3__:set", "a")])


class RedisReference(NotifyCases, itest.RedisCase):
    pass


class Ruvio(NotifyCases, itest.RuvioCase):
    def test_flag_at_start(self):
        with itest.start("ruvio", ["--notify-keyspace-events", "KEl"]) as s:
            c = s.client(decode_responses=True)
            self.assertEqual(c.config_get("notify-keyspace-events"),
                             {"notify-keyspace-events": "lKE"})
            self.assertEqual(subscriber_events(s.port, [("RPUSH", "l", "a"), ("SET", "x", "1")]),
                             [("__keyspace@0__:l", "rpush"), ("__keyevent@0__:rpush", "l")])
            c.close()


class RuvioProxy(NotifyCases, itest.RuvioProxyCase):
    def test_events_of_both_workers(self):
        # a is owned by worker 1, b by worker 0 (harness.key_owner); the subscriber sits on
        # whichever worker accepted it and hears both.
        keys = ["a", "b", "c", "d"]
        self.assertEqual({itest.owner(k) for k in keys}, {0, 1})
        cmds = [("SET", k, "1") for k in keys]
        got = self.events("E$", cmds, wait_expiry=0.3)
        self.assertEqual(sorted(got), sorted(("__keyevent@0__:set", k) for k in keys))

    def test_keymiss(self):
        # Per key the order holds; across workers it may not: compare as a set.
        self.r.set("there", "1")
        got = self.events("Em", [("GET", "nope"), ("GET", "there"), ("HGET", "h", "f")], 0.3)
        self.assertEqual(sorted(got), [("__keyevent@0__:keymiss", "h"),
                                       ("__keyevent@0__:keymiss", "nope")])


if __name__ == "__main__":
    import unittest
    unittest.main()
