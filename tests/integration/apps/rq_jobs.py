"""Job functions the RQ worker subprocesses import (tests/integration/test_apps_rq.py)."""

import os
import time


def add(a, b):
    return a + b


def fail(message):
    raise ValueError(message)


def stamp(key, label):
    """Appends label to the list `key` of the server the job came from: the order the jobs
    ran in, seen by the test."""
    from rq import get_current_job
    conn = get_current_job().connection
    conn.rpush(key, label)
    return label


def now():
    return time.time()


def pid():
    return os.getpid()
