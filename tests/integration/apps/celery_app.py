"""The Celery app of tests/integration/test_apps_celery.py: broker and result backend both on
one server. The worker subprocess loads `celery_app` (port from CELERY_TEST_PORT); the test
process builds its own client app per server with make_app(port)."""

import json
import os
import time

from celery import Celery


def make_app(port, transport_options=None):
    url = f"redis://127.0.0.1:{port}/0"
    app = Celery("celery_app", broker=url, backend=url)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=600,
        broker_connection_retry_on_startup=False,
        broker_connection_max_retries=0,
        # 1 makes kombu's solo-pool worker take one message per 2 s; 4 takes them at once
        worker_prefetch_multiplier=4,
        # a countdown/eta task waits unacked in the worker: the broker must never hand it
        # out twice while the test runs
        broker_transport_options={"visibility_timeout": 3600, **(transport_options or {})},
    )

    @app.task(name="apps.add")
    def add(a, b):
        return a + b

    @app.task(name="apps.mul")
    def mul(a, b):
        return a * b

    @app.task(name="apps.xsum")
    def xsum(values):
        return sum(values)

    @app.task(name="apps.fail")
    def fail(message):
        raise ValueError(message)

    @app.task(name="apps.flaky", bind=True, max_retries=5)
    def flaky(self, key, succeed_on):
        """Fails (and retries at once) until its succeed_on-th run, counted in the broker's
        server: the result is the number of runs it took."""
        import redis
        n = redis.Redis.from_url(self.app.conf.broker_url).incr(key)
        if n < succeed_on:
            raise self.retry(countdown=0)
        return n

    @app.task(name="apps.stamp")
    def stamp():
        return time.time()

    return app


app = make_app(int(os.environ.get("CELERY_TEST_PORT", "6379")),
               json.loads(os.environ.get("CELERY_TEST_TRANSPORT", "{}")))
