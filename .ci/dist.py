"""The pieces of `make dist` and `make test-dist` (docs/install.md).

    python .ci/dist.py pythons 4.1.4 ...   # an interpreter with each pyspark, made from PyPI once
    python .ci/dist.py check dist          # what the wheel and sdist in dist/ hold
    python .ci/dist.py install dist [4.1.4 ...]   # the wheel into a fresh venv, offline, timed, then
                                                  # used; again beside each pyspark given
"""
from __future__ import annotations

import glob
import importlib.util
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache")
# The wheel's dependencies as wheels, fetched (and pyspark, published only as an sdist, built)
# once from PyPI so that installs after it are offline and build nothing
WHEELS = os.path.join(CACHE, "dist-wheels")


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def spark_python(version: str) -> str:
    """An interpreter with pyspark==version: the peers' venv when it holds it (make
    bench-peers-smoke), else .cache/spark-<version>, made and filled from PyPI the first time."""
    peers = os.path.join(CACHE, "peer-spark", f"venv-{version}", "bin", "python")
    if os.path.exists(peers):
        return peers
    versions = _load("spark_versions", os.path.join(ROOT, ".ci", "spark_versions.py"))
    venv = os.path.join(CACHE, f"spark-{version}")
    python = versions.venv_python(venv)
    marker = os.path.join(venv, ".installed")
    if not os.path.exists(marker):
        print(f"installing pyspark {version} into {venv} (its Scala compiler builds the jar)", file=sys.stderr)
        subprocess.run([python, "-m", "pip", "install", "-q", f"pyspark=={version}"], check=True,
                       stdout=sys.stderr)
        open(marker, "w").close()
    return python


def one(pattern: str) -> str:
    found = glob.glob(pattern)
    if len(found) != 1:
        raise SystemExit(f"expected one {pattern}, found {found}")
    return found[0]


def check(dist: str) -> None:
    """The wheel holds a jar per minor it requires and py.typed; the sdist the sources, no jar."""
    wheel = one(os.path.join(dist, "skipstone-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(one_name(names, r"skipstone-[^/]+\.dist-info/METADATA")).decode()
        entry_points = z.read(one_name(names, r"skipstone-[^/]+\.dist-info/entry_points.txt")).decode()
    jars = sorted(n for n in names if n.endswith(".jar"))
    minors = [re.fullmatch(r"skipstone/jars/spark-(\d+\.\d+)/skipstone\.jar", j) for j in jars]
    problems = [f"unexpected jar {j}" for j, m in zip(jars, minors) if m is None]
    requirement = re.search(r"^Requires-Dist: (pyspark[^;\n]*)$", metadata, re.M)
    if "skipstone/py.typed" not in names:
        problems.append("no skipstone/py.typed")
    if not jars:
        problems.append("no jar")
    if "skipstone = skipstone.__main__:main" not in entry_points:
        problems.append(f"console script: {entry_points}")
    if any(n.startswith(("tests/", "benchmarks/")) for n in names):
        problems.append("tests or benchmarks in the wheel")
    sdist = one(os.path.join(dist, "skipstone-*.tar.gz"))
    with tarfile.open(sdist) as t:
        members = t.getnames()
    if not any(m.endswith("jvm/build_jar.py") for m in members) or not any(m.endswith(".scala") for m in members):
        problems.append("the sdist lacks the Scala sources or jvm/build_jar.py")
    if any(m.endswith(".jar") for m in members):
        problems.append("the sdist holds a jar")
    if problems:
        raise SystemExit(f"{wheel}: " + "; ".join(problems))
    print(f"{os.path.basename(wheel)}: jars for Spark {', '.join(m.group(1) for m in minors if m)}; "
          f"requires {requirement.group(1) if requirement else '?'}; "
          f"{os.path.getsize(wheel) / 1e6:.1f} MB")
    print(f"{os.path.basename(sdist)}: {sum(m.endswith('.scala') for m in members)} Scala sources, no jar")


def one_name(names: list[str], pattern: str) -> str:
    found = [n for n in names if re.fullmatch(pattern, n)]
    if len(found) != 1:
        raise SystemExit(f"expected one {pattern} in the wheel, found {found}")
    return found[0]


# Run by the fresh venv's python: the packaged jar, a session, a skipped file.
USE = """
import os, sys, tempfile
import skipstone
from skipstone import MinMax, Skipstone
from pyspark.sql import SparkSession
import pyspark
print("pyspark", pyspark.__version__, "jar:", skipstone.jar_path())
assert skipstone.jar_path().startswith(os.path.dirname(skipstone.__file__))
assert os.path.basename(os.path.dirname(skipstone.jar_path())) == "spark-" + ".".join(pyspark.__version__.split(".")[:2])
spark = skipstone.configure(SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")).getOrCreate()
root = os.path.join(tempfile.mkdtemp(), "t")
spark.range(0, 400, 1, 4).write.parquet(root)
Skipstone.for_path(spark, root).build(MinMax("id"))
rows = spark.sql(f"SELECT id FROM parquet.`{root}` WHERE id = 7").collect()
stats = skipstone.last_query_stats(spark)
print("query: rows", [r.id for r in rows], "files skipped", stats.files_skipped, "of", stats.files_total)
assert [r.id for r in rows] == [7] and stats.files_skipped == 3
"""


def install(dist: str, other_sparks: list[str]) -> None:
    """Install the wheel into a fresh venv with --no-index (dependencies from WHEELS, made there
    once), time it, then check the console script's hint and a query that skips; then the same
    query in a venv with each of ``other_sparks`` (pyspark versions), on the jar for its minor."""
    wheel = os.path.abspath(one(os.path.join(dist, "skipstone-*.whl")))
    os.makedirs(WHEELS, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "-w", WHEELS, wheel,
                    *(f"pyspark=={v}" for v in other_sparks)], check=True)
    for stale in glob.glob(os.path.join(WHEELS, "skipstone-*")):
        os.remove(stale)
    with tempfile.TemporaryDirectory(prefix="skipstone-wheel-") as venv:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        start = time.time()
        subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links", WHEELS, wheel], check=True)
        took = time.time() - start
        print(f"pip install --no-index --find-links {os.path.relpath(WHEELS, ROOT)} {os.path.relpath(wheel, ROOT)}: "
              f"{took:.1f} s into a fresh venv")
        hint = subprocess.run([os.path.join(venv, "bin", "skipstone"), "--help"], capture_output=True, text=True)
        print("skipstone without the cli extra:", hint.stderr.strip(), f"(exit {hint.returncode})")
        if hint.returncode == 0 or "skipstone[cli]" not in hint.stderr or len(hint.stderr.strip().splitlines()) != 1:
            raise SystemExit("the console script without the cli extra should fail with one line naming skipstone[cli]")
        subprocess.run([python, "-c", USE], check=True, cwd=venv)
    for version in other_sparks:
        with tempfile.TemporaryDirectory(prefix=f"skipstone-wheel-spark-{version}-") as venv:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links", WHEELS, wheel,
                            f"pyspark=={version}"], check=True)
            subprocess.run([python, "-c", USE], check=True, cwd=venv)


def main(argv: list[str]) -> int:
    if argv[:1] == ["pythons"]:
        print(" ".join(spark_python(v) for v in argv[1:]))
    elif argv[:1] == ["check"] and len(argv) == 2:
        check(argv[1])
    elif argv[:1] == ["install"] and len(argv) >= 2:
        install(argv[1], argv[2:])
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
