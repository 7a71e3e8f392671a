"""Compile Skipstone's Scala sources into a jar with the Scala compiler inside pyspark.

Maven Central is not reachable on every machine that installs Skipstone, so sbt cannot be
relied on. pyspark's `jars/` folder already carries scala-compiler, scala-library and
scala-reflect of the Scala version Spark was built with; compiling against that same folder
guarantees binary compatibility with the Spark that will load the jar.

Usage: python jvm/build_jar.py [output.jar]   (default: python/skipstone/jars/spark-X.Y/skipstone.jar,
                                                X.Y the minor of the pyspark that runs it)
       python jvm/build_jar.py --path            (prints that default)
       python jvm/build_jar.py --bench [output.jar]   (default: benchmarks/.jars/skipstone-bench.jar)

`--bench` compiles jvm/src/bench (the JVM side of the benchmarks) against the product jar into
a jar of its own, so that measuring code never ships to users; the benchmarks pass both jars
to Spark.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "jvm", "src", "main", "scala")
# files packed into the jar as they are (the data source registration)
RESOURCES = os.path.join(ROOT, "jvm", "src", "main", "resources")
# jvm/src/main/spark-X.Y/: what differs between Spark minors (Spark's parser interface, which
# gains methods in 4.1 and 4.3); a build takes the newest folder not newer than its pyspark.
PER_SPARK = os.path.join(ROOT, "jvm", "src", "main")
PACKAGE_JAR_MODULE = os.path.join(ROOT, "python", "skipstone", "jar", "__init__.py")
BENCH_SOURCES = os.path.join(ROOT, "jvm", "src", "bench", "scala")
BENCH_JAR = os.path.join(ROOT, "benchmarks", ".jars", "skipstone-bench.jar")


def pyspark_module():
    try:
        import pyspark
    except ImportError as e:  # pragma: no cover - message for people installing by hand
        raise SystemExit(
            "Building Skipstone's jar needs pyspark installed first (it carries the Scala "
            "compiler): pip install 'pyspark>=4.3,<4.4'"
        ) from e
    return pyspark


def pyspark_jars_dir() -> str:
    return os.path.join(os.path.dirname(pyspark_module().__file__), "jars")


def minor(version: str) -> tuple[int, int]:
    """(4, 1) for "4.1.4", "4.1.0.dev0", "spark-4.1"."""
    found = re.search(r"(\d+)\.(\d+)", version)
    if not found:
        raise SystemExit(f"no Spark version in {version!r}")
    return int(found.group(1)), int(found.group(2))


def per_spark_sources(spark_version: str) -> str:
    """The jvm/src/main/spark-X.Y folder for this Spark: the newest X.Y not after its minor."""
    folders = {minor(name): os.path.join(PER_SPARK, name)
               for name in os.listdir(PER_SPARK) if re.fullmatch(r"spark-\d+\.\d+", name)}
    fitting = [m for m in folders if m[0] == minor(spark_version)[0] and m <= minor(spark_version)]
    if not fitting:
        raise SystemExit(f"Skipstone's Scala sources have no folder for Spark {spark_version} "
                         f"(jvm/src/main/spark-X.Y: {sorted(folders)})")
    return folders[max(fitting)]


def package_jar_module():
    """skipstone/jar/, which owns where the package keeps a jar for each Spark minor, loaded on
    its own: the package's dependencies may be absent while building."""
    spec = importlib.util.spec_from_file_location("skipstone_jar_layout", PACKAGE_JAR_MODULE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def package_jar(spark_version: str) -> str:
    """Where the package keeps the jar for this Spark."""
    layout = package_jar_module()
    return layout.jar_for_minor(layout.spark_minor(spark_version))


def default_jar() -> str:
    """The package's jar for the pyspark that runs this build."""
    return package_jar(pyspark_module().__version__)


def one_jar(jars: str, prefix: str) -> str:
    found = sorted(glob.glob(os.path.join(jars, prefix + "*.jar")))
    if not found:
        raise SystemExit(f"no {prefix}*.jar in {jars}: is this a full pyspark install?")
    return found[-1]


def scala_sources(spark_version: str) -> list[str]:
    return sorted(f for folder in (SOURCES, per_spark_sources(spark_version))
                  for f in glob.glob(os.path.join(folder, "**", "*.scala"), recursive=True))


def _compile_jar(sources: list[str], classpath: list[str], out_jar: str, what: str, resources: str | None = None) -> str:
    """Compile `sources` against pyspark's jars and `classpath` into `out_jar`, replaced
    atomically, with the files under `resources` (service registrations) at their relative paths."""
    jars = pyspark_jars_dir()
    java = shutil.which("java")
    if java is None:
        raise SystemExit("Building Skipstone's jar needs Java 17 ('java' is not on PATH)")
    compiler_cp = os.pathsep.join(
        one_jar(jars, p) for p in ("scala-compiler-2.13", "scala-library-2.13", "scala-reflect-2.13")
    )
    with tempfile.TemporaryDirectory(prefix="skipstone-classes-") as classes:
        cmd = [java, "-Xss8m", "-cp", compiler_cp, "scala.tools.nsc.Main",
               "-release", "17", "-deprecation", "-feature",
               # scalac expands the trailing '*' itself; a hand-picked class path misses jars.
               "-classpath", os.pathsep.join([os.path.join(jars, "*"), *classpath]), "-d", classes,
               *sources]
        if subprocess.run(cmd).returncode != 0:
            raise SystemExit(f"scalac failed to compile {what} (errors above)")
        os.makedirs(os.path.dirname(out_jar), exist_ok=True)
        tmp_jar = out_jar + ".tmp"
        with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: skipstone\n")
            for folder, _, files in os.walk(classes):
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.relpath(full, classes))
            for folder, _, files in os.walk(resources or os.devnull):
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.relpath(full, resources))
        os.replace(tmp_jar, out_jar)
    return out_jar


def build(out_jar: str | None = None) -> str:
    out_jar = out_jar or default_jar()
    return _compile_jar(scala_sources(pyspark_module().__version__), [], out_jar, "Skipstone's Scala sources", RESOURCES)


def build_bench(out_jar: str = BENCH_JAR, main_jar: str | None = None) -> str:
    """The benchmarks' jar, compiled against the product jar (built first when missing)."""
    main_jar = main_jar or default_jar()
    if not os.path.exists(main_jar):
        build(main_jar)
    sources = sorted(glob.glob(os.path.join(BENCH_SOURCES, "**", "*.scala"), recursive=True))
    if not sources:
        raise SystemExit(f"no benchmark sources under {BENCH_SOURCES}")
    return _compile_jar(sources, [main_jar], out_jar, "the benchmarks' Scala sources")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--bench"]:
        print(build_bench(args[1] if len(args) > 1 else BENCH_JAR))
    elif args[:1] == ["--path"]:
        print(default_jar())
    else:
        print(build(args[0] if args else None))
