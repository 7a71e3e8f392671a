"""A local S3 store for the store tests and the S3 benchmark: S3A's jars and its settings.

Spark reaches S3 through Hadoop's S3A connector (`hadoop-aws`), which must be the exact Hadoop
version of Spark's own `hadoop-client-api` jar, plus the AWS SDK v2 modules it calls. They are
fetched once from Maven Central into `.cache/s3-jars` (the Makefile's) and handed to Spark as
`spark.jars`; Skipstone itself never depends on them.

    python tests/stores/s3_store.py conf   # fetches the jars, prints SKIPSTONE_TEST_CONF (JSON)

The printed settings point S3A at a server on a free port of 127.0.0.1, without SSL, with
path-style addressing and fixed test credentials; `s3_server.py` is that server (the tests'
fixture in `s3_fixtures.py` starts it on the port the settings name).
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import sys
from types import ModuleType

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JARS_CACHE = os.path.join(ROOT, ".cache", "s3-jars")

HADOOP = "3.5.0"  # pyspark 4.3's hadoop-client-api; hadoop-aws must match it exactly
AWS_SDK = "2.35.4"  # the SDK hadoop-aws 3.5.0 is built against (hadoop-project's aws-java-sdk-v2.version)
# The SDK's individual modules that S3A loads, instead of its 600 MB `bundle`: S3 and its
# protocol, signing, retries and checksums; the Apache HTTP client (the synchronous client S3A
# uses) and Netty's (its asynchronous one); the transfer manager (copies and uploads). Netty,
# httpclient, commons-codec and slf4j come with Spark.
SDK_MODULES = [
    "annotations", "apache-client", "arns", "auth", "aws-core", "aws-query-protocol", "aws-xml-protocol",
    "checksums", "checksums-spi", "crt-core", "endpoints-spi", "http-auth", "http-auth-aws",
    "http-auth-aws-eventstream", "http-auth-spi", "http-client-spi", "identity-spi", "json-utils",
    "metrics-spi", "netty-nio-client", "profiles", "protocol-core", "regions", "retries", "retries-spi",
    "s3", "s3-transfer-manager", "sdk-core", "third-party-jackson-core", "utils", "utils-lite",
]
ARTIFACTS = [
    f"org.apache.hadoop:hadoop-aws:{HADOOP}",
    *(f"software.amazon.awssdk:{m}:{AWS_SDK}" for m in SDK_MODULES),
    "software.amazon.eventstream:eventstream:1.0.1",
    "org.reactivestreams:reactive-streams:1.0.4",
    "software.amazon.s3.analyticsaccelerator:analyticsaccelerator-s3:1.3.1",
]

# Credentials the local server accepts (it checks none); never real ones.
ACCESS_KEY = "skipstone-test"
SECRET_KEY = "skipstone-test-secret"


def _run_jvm_tests() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_jvm_tests", os.path.join(ROOT, "jvm", "run_jvm_tests.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def fetch_jars(cache: str = JARS_CACHE, maven_settings: str | None = None) -> list[str]:
    """hadoop-aws and the SDK modules, copied from Maven Central into ``cache`` the first time."""
    return _run_jvm_tests().fetch_maven_jars(ARTIFACTS, cache, "The S3 store tests", maven_settings)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_conf(endpoint: str, jars: list[str]) -> dict[str, str]:
    """Spark settings for S3A against the local server at ``endpoint`` (http://127.0.0.1:PORT)."""
    s3a = {
        "endpoint": endpoint,
        "endpoint.region": "us-east-1",
        "path.style.access": "true",
        "connection.ssl.enabled": "false",
        "access.key": ACCESS_KEY,
        "secret.key": SECRET_KEY,
        "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        # fail fast when the server is down instead of retrying for minutes
        "attempts.maximum": "3",
        "retry.limit": "3",
        "connection.establish.timeout": "5s",
    }
    conf = {f"spark.hadoop.fs.s3a.{k}": v for k, v in s3a.items()}
    conf["spark.jars"] = ",".join(jars)
    return conf


def endpoint_of(conf: dict[str, str]) -> str | None:
    return conf.get("spark.hadoop.fs.s3a.endpoint")


def main(argv: list[str]) -> int:
    if argv[:1] != ["conf"]:
        print(__doc__, file=sys.stderr)
        return 2
    with contextlib.redirect_stdout(sys.stderr):  # Maven's progress; stdout is the JSON alone
        jars = fetch_jars()
    print(json.dumps(spark_conf(f"http://127.0.0.1:{free_port()}", jars)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
