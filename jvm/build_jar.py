"""Compile Skipstone's Scala sources into a jar with the Scala compiler inside pyspark.

Maven Central is not reachable on every machine that installs Skipstone, so sbt cannot be
relied on. pyspark's `jars/` folder already carries scala-compiler, scala-library and
scala-reflect of the Scala version Spark was built with; compiling against that same folder
guarantees binary compatibility with the Spark that will load the jar.

Usage: python jvm/build_jar.py [output.jar]   (default: python/skipstone/jars/skipstone.jar)
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "jvm", "src", "main", "scala")
DEFAULT_JAR = os.path.join(ROOT, "python", "skipstone", "jars", "skipstone.jar")


def pyspark_jars_dir() -> str:
    try:
        import pyspark
    except ImportError as e:  # pragma: no cover - message for people installing by hand
        raise SystemExit(
            "Building Skipstone's jar needs pyspark installed first (it carries the Scala "
            "compiler): pip install 'pyspark>=4.3,<4.4'"
        ) from e
    return os.path.join(os.path.dirname(pyspark.__file__), "jars")


def one_jar(jars: str, prefix: str) -> str:
    found = sorted(glob.glob(os.path.join(jars, prefix + "*.jar")))
    if not found:
        raise SystemExit(f"no {prefix}*.jar in {jars}: is this a full pyspark install?")
    return found[-1]


def scala_sources() -> list[str]:
    return sorted(glob.glob(os.path.join(SOURCES, "**", "*.scala"), recursive=True))


def build(out_jar: str = DEFAULT_JAR) -> str:
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
               "-classpath", os.path.join(jars, "*"), "-d", classes, *scala_sources()]
        if subprocess.run(cmd).returncode != 0:
            raise SystemExit("scalac failed to compile Skipstone's Scala sources (errors above)")
        os.makedirs(os.path.dirname(out_jar), exist_ok=True)
        tmp_jar = out_jar + ".tmp"
        with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: skipstone\n")
            for folder, _, files in os.walk(classes):
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.relpath(full, classes))
        os.replace(tmp_jar, out_jar)
    return out_jar


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_JAR))
