"""Fixtures of the S3 store tests (`from stores.s3_fixtures import *` in tests/stores/test_s3_*.py;
no conftest.py lives below tests/).

`make test-s3` starts pytest with SKIPSTONE_TEST_CONF holding S3A's jars and settings
(`s3_store.py`); without them, as in `make test`, every S3 test is skipped. The session's
fixture starts the local S3 server (`s3_server.py`) on the port those settings name.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import pytest

from stores import s3_store

HERE = os.path.dirname(os.path.abspath(__file__))
_CONF = json.loads(os.environ.get("SKIPSTONE_TEST_CONF", "{}"))
ENDPOINT = s3_store.endpoint_of(_CONF)

requires_s3 = pytest.mark.skipif(
    ENDPOINT is None, reason="S3 store tests run with `make test-s3` (S3A's jars and settings in SKIPSTONE_TEST_CONF)")


@dataclass(frozen=True)
class S3Server:
    """The local S3 server: its endpoint, a boto3 client on it, and its test clock."""
    endpoint: str
    client: Any

    def new_bucket(self, prefix: str = "skipstone") -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.client.create_bucket(Bucket=name)
        return name

    def stop_clock(self) -> None:
        """Objects written until `run_clock` get the modification time of this moment."""
        self._clock("PUT")

    def run_clock(self) -> None:
        self._clock("DELETE")

    def _clock(self, method: str) -> None:
        request = urllib.request.Request(self.endpoint + "/_skipstone/clock", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the local S3 server exited with status {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the local S3 server did not listen on port {port} within {timeout} s")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    import boto3
    from botocore.config import Config

    assert ENDPOINT is not None
    port = urllib.parse.urlparse(ENDPOINT).port
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "s3_server.py"), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_for_port(port, process)
        client = boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1",
                              aws_access_key_id=s3_store.ACCESS_KEY, aws_secret_access_key=s3_store.SECRET_KEY,
                              config=Config(s3={"addressing_style": "path"}))
        yield S3Server(ENDPOINT, client)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def bucket(s3_server: S3Server) -> str:
    """A bucket of the module's own."""
    return s3_server.new_bucket()


@pytest.fixture(scope="module")
def store_root(bucket: str) -> Callable[[str], str]:
    """A fresh absolute URI for a name: `store_root("t")` -> s3a://<bucket>/t-<unique>."""
    return lambda name: f"s3a://{bucket}/{name}-{uuid.uuid4().hex[:8]}"


def s3_requests(spark: Any, uri: str) -> dict[str, int]:
    """S3A's request counters of the store holding `uri` (the driver's one FileSystem per bucket,
    which local Spark's tasks share): object_list_request, object_metadata_request (HEAD),
    action_http_get_request (GET), object_put_request, object_delete_request, ..."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    fs = path.getFileSystem(spark._jsc.hadoopConfiguration())
    counters = fs.getIOStatistics().counters()
    return {str(k): int(counters.get(k)) for k in counters.keySet()}


def requests_during(spark: Any, uri: str, action: Callable[[], Any]) -> tuple[Any, dict[str, int]]:
    """`action()`'s result and the S3 requests it made, by counter."""
    before = s3_requests(spark, uri)
    result = action()
    after = s3_requests(spark, uri)
    return result, {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
