"""Run the skipping tests against every pyspark 4.x minor release on PyPI (`make test-spark-versions`).

For each minor (its newest patch release, found with `pip index versions pyspark`): a venv of
its own under ~/.cache/skipstone-spark-versions, the jar built with that pyspark's own Scala
compiler, and the skipping tests run on a copy of the sources (the checkout's jar is left
alone). Results go to docs/spark-versions.md. It downloads each pyspark (~400 MB): not in CI.

    python .ci/spark_versions.py [--minors 4.0 4.1] [--tests tests/test_minmax_predicates.py ...]
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.expanduser("~/.cache/skipstone-spark-versions")
DOC = os.path.join(ROOT, "docs", "spark-versions.md")
SKIPPING_TESTS = [
    "tests/test_minmax_predicates.py", "tests/test_bloom_hybrid.py", "tests/test_value_list.py",
    "tests/test_prefix_suffix_gaplist.py", "tests/test_freshness.py", "tests/test_rule_index.py",
    "tests/test_scale_cache.py", "tests/test_scale_distributed.py", "tests/test_scale_planning.py",
]
# What the tests above import besides pyspark (setup.py's install_requires and the dev extras they use).
DEPENDENCIES = ["py4j>=0.10.9.7", "pyarrow>=14", "pandas>=2,<3", "numpy>=1.24", "pytest>=8", "hypothesis>=6"]


def newest_per_minor() -> dict[str, str]:
    """{"4.0": "4.0.5", ...}: final releases only."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "pyspark"],
                         capture_output=True, text=True, check=True).stdout
    listed = re.search(r"Available versions: (.*)", out)
    if not listed:
        raise SystemExit(f"pip index versions pyspark said:\n{out}")
    newest: dict[str, tuple[int, ...]] = {}
    for v in (s.strip() for s in listed.group(1).split(",")):
        if re.fullmatch(r"4\.\d+\.\d+", v):
            parts = tuple(int(p) for p in v.split("."))
            minor = f"{parts[0]}.{parts[1]}"
            newest[minor] = max(newest.get(minor, parts), parts)
    return {m: ".".join(map(str, p)) for m, p in sorted(newest.items())}


def run(cmd: list[str], cwd: str | None = None) -> tuple[int, str]:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check(version: str, tests: list[str]) -> tuple[str, str, float]:
    """(verdict, last lines of output, seconds) for one pyspark version."""
    start = time.time()
    venv = os.path.join(CACHE, version)
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    code, out = run([python, "-m", "pip", "install", "-q", f"pyspark=={version}", *DEPENDENCIES])
    if code:
        return "install failed", out[-2000:], time.time() - start
    with tempfile.TemporaryDirectory(prefix=f"skipstone-spark-{version}-") as copy:
        for part in ("jvm", "python", "tests"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(copy, part),
                            ignore=shutil.ignore_patterns("*.jar", "__pycache__"))
        code, out = run([python, "jvm/build_jar.py"], cwd=copy)
        if code:
            return "jar does not compile", out[-2000:], time.time() - start
        code, out = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=copy)
        summary = out.strip().splitlines()[-1] if out.strip() else ""
        return ("passed" if code == 0 else "FAILED") + f" ({summary})", out[-3000:], time.time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minors", nargs="+", help="only these minors, e.g. 4.0 4.2")
    parser.add_argument("--tests", nargs="+", default=SKIPPING_TESTS)
    args = parser.parse_args()
    versions = {m: v for m, v in newest_per_minor().items() if not args.minors or m in args.minors}
    rows = []
    for minor, version in versions.items():
        print(f"== pyspark {version}", flush=True)
        verdict, tail, seconds = check(version, args.tests)
        print(f"   {verdict} in {seconds:.0f} s", flush=True)
        if not verdict.startswith("passed"):
            print(tail)
        rows.append(f"| {version} | {verdict} | {seconds:.0f} |")
    with open(DOC, "w", encoding="utf-8") as f:
        f.write("# Spark versions\n\nThe same sources, with the jar built by each pyspark's own compiler, against "
                "the skipping tests (`make test-spark-versions`, run "
                f"{dt.date.today().isoformat()}; wall clock under load on 2 shared cores).\n\n"
                "| pyspark | skipping tests | seconds |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    return 0 if all("| passed" in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
