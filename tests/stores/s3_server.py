"""The local S3 server the store tests and the S3 benchmark run against: moto's S3 in a process
of its own, speaking HTTP on 127.0.0.1.

    python tests/stores/s3_server.py --port 9000

Three things are added to moto's server, each to make it behave as S3 does or to reach a case
S3 reaches only by chance:

- **Requests are served one at a time.** moto checks a conditional PUT's `If-None-Match: *`
  and stores the object in two steps, so two racing PUTs can both pass the check; S3 decides
  them atomically (one gets 412). Serving one request at a time gives moto S3's atomicity.
- **A clock that can stand still** (`PUT /_skipstone/clock` stops it at the current time,
  `DELETE` lets it run): S3 keeps an object's modification time to the second, so an object
  rewritten within the second keeps its size and modification time; a stopped clock makes that
  happen on purpose.
- **Buckets named `ignores-conditions-*`** drop the `If-None-Match` header, as some
  S3-compatible servers do: a conditional PUT there overwrites.
"""
from __future__ import annotations

import argparse
import datetime
import threading
from typing import Any, Callable, Iterable

CLOCK_PATH = "/_skipstone/clock"
IGNORES_CONDITIONS = "ignores-conditions-"


class TestServer:
    """A WSGI application around moto's: one request at a time, a clock that can stop."""

    def __init__(self, moto_app: Any) -> None:
        import moto.s3.models as s3_models

        self._moto = moto_app
        self._lock = threading.Lock()
        self._stopped_at: datetime.datetime | None = None
        real_now = s3_models.utcnow
        s3_models.utcnow = lambda: self._stopped_at or real_now()
        self._real_now = real_now

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == CLOCK_PATH:
            return self._clock(environ, start_response)
        if path.lstrip("/").startswith(IGNORES_CONDITIONS):
            environ.pop("HTTP_IF_NONE_MATCH", None)
        with self._lock:
            # the whole response is produced under the lock: moto's work happens while iterating too
            return [b"".join(self._moto(environ, start_response))]

    def _clock(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"]
        with self._lock:
            self._stopped_at = self._real_now() if method == "PUT" else None
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"stopped" if self._stopped_at else b"running"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import run_simple

    app = TestServer(DomainDispatcherApplication(create_backend_app))
    run_simple("127.0.0.1", args.port, app, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
