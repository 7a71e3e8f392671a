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
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.expanduser("~/.cache/skipstone-spark-versions")
DOC = os.path.join(ROOT, "docs", "spark-versions.md")
SKIPPING_TESTS = [
    "tests/test_minmax_predicates.py", "tests/test_bloom_hybrid.py", "tests/test_value_list.py",
    "tests/test_prefix_suffix_gaplist.py", "tests/test_freshness.py", "tests/test_rule_index.py",
    "tests/test_scale_cache.py", "tests/test_scale_distributed.py", "tests/test_scale_planning.py",
    # SQL statements and parameterized queries: the parser is what differs per minor (jvm/src/main/spark-X.Y)
    "tests/sql/test_sql_parsing.py",
]
# What of the checkout goes into the copy the tests run on: benchmarks/ too, since
# tests/test_scale_planning.py imports benchmarks.scale_metadata (found through the working
# directory, which `python -m pytest` puts on sys.path); pyproject.toml for pytest's options.
COPIED = ["jvm", "python", "tests", "benchmarks", "pyproject.toml"]
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


@dataclass
class Result:
    version: str
    verdict: str = "passed"          # passed | tests failed | jar does not compile | install failed
    counts: dict[str, int] = field(default_factory=dict)   # pytest's closing line: {"passed": 229, ...}
    seconds: dict[str, float] = field(default_factory=dict)  # install, jar, tests
    detail: str = ""                 # what failed: compiler errors, or pytest's failures

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"


def run(cmd: list[str], cwd: str | None = None) -> tuple[int, str]:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def timed(result: Result, step: str, cmd: list[str], cwd: str | None = None) -> tuple[int, str]:
    start = time.time()
    code, out = run(cmd, cwd)
    result.seconds[step] = time.time() - start
    return code, out


def compiler_errors(out: str) -> str:
    """scalac's errors, each with the line it quotes, paths from the copy's root."""
    lines = out.splitlines()
    picked = [ln for i, ln in enumerate(lines) if "error:" in ln or (i and "error:" in lines[i - 1])]
    return re.sub(r"/\S*?/skipstone-spark-[^/]+/", "", "\n".join(picked or lines[-40:]))


def pytest_counts(out: str) -> dict[str, int]:
    closing = out.strip().splitlines()[-1] if out.strip() else ""
    return {word.rstrip("s") if word == "errors" else word: int(n)
            for n, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", closing)}


def venv_python(venv: str) -> str:
    """The interpreter of the venv at ``venv``, which is created when missing."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    return python


def install_command(python: str, version: str, extra: tuple[str, ...] = ()) -> list[str]:
    """pip's command that puts ``pyspark==version``, what the tests import and ``extra`` into the venv."""
    return [python, "-m", "pip", "install", "-q", f"pyspark=={version}", *DEPENDENCIES, *extra]


def check(version: str, tests: list[str]) -> Result:
    """Install pyspark==version in its own venv, build the jar with it, run the tests on a copy."""
    result = Result(version)
    python = venv_python(os.path.join(CACHE, version))
    code, out = timed(result, "install", install_command(python, version))
    if code:
        result.verdict, result.detail = "install failed", out[-2000:]
        return result
    with tempfile.TemporaryDirectory(prefix=f"skipstone-spark-{version}-") as copy:
        for part in COPIED:
            src, dst = os.path.join(ROOT, part), os.path.join(copy, part)
            if os.path.isdir(src):
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
                    "*.jar", "__pycache__", "*.egg-info", ".pytest_cache", "spark-warehouse"))
            else:
                shutil.copy2(src, dst)
        code, out = timed(result, "jar", [python, "jvm/build_jar.py"], cwd=copy)
        if code:
            result.verdict, result.detail = "jar does not compile", compiler_errors(out)
            return result
        code, out = timed(result, "tests", [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=copy)
        result.counts = pytest_counts(out)
        if code:
            failures = [ln for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
            result.verdict, result.detail = "tests failed", "\n".join(failures) or out[-3000:]
    return result


def write_doc(results: list[Result], tests: list[str], command: str, started: float) -> None:
    def count(r: Result, key: str) -> str:
        return str(r.counts.get(key, 0)) if r.counts else "-"

    def secs(r: Result, key: str) -> str:
        return f"{r.seconds[key]:.0f}" if key in r.seconds else "-"

    java = run(["java", "-version"])[1].splitlines()[0] if shutil.which("java") else "no java"
    rows = [f"| {r.version[:r.version.rindex('.')]} | {r.version} | {r.verdict} | {count(r, 'passed')} | "
            f"{count(r, 'failed')} | {count(r, 'error')} | {count(r, 'skipped')} | {secs(r, 'install')} | "
            f"{secs(r, 'jar')} | {secs(r, 'tests')} |" for r in results]
    failures = "".join(f"\n### pyspark {r.version}: {r.verdict}\n\n```\n{r.detail.strip()}\n```\n"
                       for r in results if not r.passed)
    text = f"""# Spark versions

Skipstone's sources on every pyspark 4.x minor release on PyPI (the newest patch release of
each): a venv per release, the jar built by that pyspark's own Scala compiler
(`jvm/build_jar.py`), then the skipping tests on a copy of the sources. `make test` and CI pin
one release (4.3, setup.py). This page is written by

    {command}

which last ran on {dt.date.today().isoformat()} and took {(time.time() - started) / 60:.0f} min in all (wall clock on
2 shared cores; Python {platform.python_version()}; {java}). It downloads each pyspark (~400 MB,
"install s" below; a release already in {CACHE.replace(os.path.expanduser("~"), "~")} takes a second),
so it is not part of CI's run.

| minor | pyspark | result | passed | failed | errors | skipped | install s | jar s | tests s |
|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Tests run: {", ".join(f"`{t}`" for t in tests)}.

What differs between Spark minors lives in `jvm/src/main/spark-X.Y/`, and a build takes the
newest folder not after its pyspark's minor: today only Spark's `ParserInterface`, which gains
`parsePlanWithParameters` (and `ParameterContext`) in 4.1 and `parseTemporalTableIdentifier`
and `splitStatements` (with `TemporalIdentifier` and `SqlStatementSplitResult`) in 4.3, so
`SkipstoneSqlParser` has a folder for 4.0, for 4.1 and 4.2, and for 4.3 on. So the jar is built
per minor, with the pyspark it runs on: one built with 4.3 stops on 4.0 at the first session
(`NoSuchMethodError: ParserInterface.$init$`, a method 4.0's trait does not have), and its
parser names classes only 4.3 has.
{failures}"""
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minors", nargs="+", help="only these minors, e.g. 4.0 4.2")
    parser.add_argument("--tests", nargs="+", default=SKIPPING_TESTS)
    args = parser.parse_args()
    started = time.time()
    versions = {m: v for m, v in newest_per_minor().items() if not args.minors or m in args.minors}
    results = []
    for version in versions.values():
        print(f"== pyspark {version}", flush=True)
        result = check(version, args.tests)
        took = ", ".join(f"{k} {v:.0f} s" for k, v in result.seconds.items())
        print(f"   {result.verdict} {result.counts} ({took})", flush=True)
        if not result.passed:
            print(result.detail, flush=True)
        results.append(result)
    command = "make test-spark-versions" if sys.argv[1:] == [] else \
        " ".join(["python .ci/spark_versions.py", *sys.argv[1:]])
    write_doc(results, args.tests, command, started)
    print(f"wrote {os.path.relpath(DOC, ROOT)}")
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
