"""Helpers of the operations tests (test_ops*.py): a Ruvio with its admin port, plain HTTP
GETs against it, ruvioctl runs, and waiting for the supervisor's once-a-second figures."""

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import itest
from harness import BUILD, Server

RUVIOCTL = os.path.join(BUILD, "supervisor", "ruvioctl")


def ruvio(args=(), env=None, workers=1):
    """Starts Ruvio with the admin HTTP port on (port+10000); returns the Server."""
    itest.require_ruvio()
    flags = ["--workers", str(workers)] if workers else []
    return Server(args=[*flags, *args], env=env, admin=True)


def get(srv, path, timeout=10):
    """(status, content type, body text) of GET path on the admin port."""
    url = f"http://127.0.0.1:{srv.admin_port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


def get_json(srv, path, timeout=10):
    status, _, body = get(srv, path, timeout)
    return status, json.loads(body)


def raw_http(port, data, timeout=5):
    """Sends raw bytes to the admin port and returns everything it answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out


def ctl(srv, *args, timeout=60):
    """Runs ruvioctl against srv; returns (exit code, stdout, stderr)."""
    p = subprocess.run([RUVIOCTL, "--admin-port", str(srv.admin_port), *args],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def wait_for(predicate, timeout=10.0, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def worker(srv, wid=0):
    status, workers = get_json(srv, "/workers")
    assert status == 200
    return workers[wid]


def fresh_worker(srv, wid=0, timeout=5.0):
    """The worker's figures from a report taken after this call (two sampling ticks)."""
    first = worker(srv, wid)
    t0 = first["uptime_seconds"]
    return wait_for(lambda: (lambda w: w if w["uptime_seconds"] >= t0 + 2.05 else None)(
        worker(srv, wid)), timeout)
