"""Compile and run Skipstone's ScalaTest suites (jvm/src/test/scala) without sbt.

The same idea as jvm/build_jar.py: pyspark's `jars/` folder carries the Scala compiler and
every Spark jar, so only ScalaTest itself is fetched, once, with Maven (`fetch_maven_jars`)
into a cache the Makefile owns (`.cache/maven-jars/`). The main sources come from the jar
build_jar.py makes (rebuilt here when a main source is newer); test classes go to a scratch
folder and never into that jar.

Usage: python jvm/run_jvm_tests.py [--main-jar JAR] [--cache DIR] [--maven-settings XML] [-- Runner arguments]
       e.g. `-- -s io.skipstone.table.TableLogSuite` runs one suite.
Exit status: 0 when every test passed, else non-zero (a failed test, a compile error, or
ScalaTest that could not be fetched).
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TEST_SOURCES = os.path.join(HERE, "src", "test", "scala")
TEST_RESOURCES = os.path.join(HERE, "src", "test", "resources")
MAIN_SOURCES = os.path.join(HERE, "src", "main")
DEFAULT_CACHE = os.path.join(ROOT, ".cache", "maven-jars")
TEST_CLASSES = os.path.join(ROOT, ".cache", "jvm-test-classes")

SCALATEST = "3.2.19"
# scalatest-funsuite and what it needs at run time; scala-library, scala-reflect and scala-xml
# come with pyspark (binary compatible within Scala 2.13). Keep in step with build.sbt.
ARTIFACTS = [
    f"org.scalatest:scalatest-funsuite_2.13:{SCALATEST}",
    f"org.scalatest:scalatest-core_2.13:{SCALATEST}",
    f"org.scalatest:scalatest-compatible:{SCALATEST}",
    f"org.scalactic:scalactic_2.13:{SCALATEST}",
]

# For all downloads together: a hung download fails the run instead of the CI job's own timeout.
MAVEN_TIMEOUT_SECONDS = 240
TEST_TIMEOUT_SECONDS = 900

# What Spark's launcher passes on Java 17 (org.apache.spark.launcher.JavaModuleOptions):
# Spark's own code reflects into these packages.
JAVA_MODULE_OPTIONS = [
    "-XX:+IgnoreUnrecognizedVMOptions",
    "--add-modules=jdk.incubator.vector",
    *(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
        "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
        "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
        "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar")),
    "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "-Djdk.reflect.useDirectMethodHandle=false",
    "-Dio.netty.tryReflectionSetAccessible=true",
]


def _build_jar_module():
    spec = importlib.util.spec_from_file_location("build_jar", os.path.join(HERE, "build_jar.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def jar_name(coordinate: str) -> str:
    _, artifact, version = coordinate.split(":")
    return f"{artifact}-{version}.jar"


def fetch_scalatest(cache: str, maven_settings: str | None = None) -> list[str]:
    """The ScalaTest jars, copied from Maven Central (or the settings' mirror) into `cache` the first time."""
    return fetch_maven_jars(ARTIFACTS, cache, "JVM tests", maven_settings)


def fetch_maven_jars(coordinates: list[str], cache: str, purpose: str, maven_settings: str | None = None) -> list[str]:
    """The jars of `coordinates` (group:artifact:version, each jar alone, not its dependencies),
    copied from Maven Central into `cache` the first time; `purpose` names who needs them in the
    messages. The missing ones come in one `mvn` run (a POM naming them, each without its
    dependencies, and `dependency:copy-dependencies`): a run costs seconds of Maven's own start,
    which 35 jars one by one paid 35 times."""
    os.makedirs(cache, exist_ok=True)
    missing = [a for a in coordinates if not os.path.exists(os.path.join(cache, jar_name(a)))]
    if missing and shutil.which("mvn") is None:
        raise SystemExit(f"{purpose} need jars fetched once with Maven: 'mvn' is not on PATH "
                         f"(or put {', '.join(jar_name(a) for a in missing)} into {cache})")
    if missing:
        names = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        print(f"fetching {names} into {cache}", flush=True)
        with tempfile.TemporaryDirectory(prefix="skipstone-fetch-") as work:
            pom = os.path.join(work, "pom.xml")
            with open(pom, "w") as f:
                f.write(fetch_pom(missing))
            cmd = ["mvn", "-B", "-q", *(["-s", maven_settings] if maven_settings else []), "-f", pom,
                   "dependency:copy-dependencies", f"-DoutputDirectory={os.path.abspath(cache)}",
                   "-DexcludeTransitive=true",
                   # Maven's own read timeout (ms) and one retry, so a stalled connection fails early.
                   "-Dmaven.wagon.rto=30000", "-Dmaven.wagon.http.retryHandler.count=1"]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=MAVEN_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                raise SystemExit(f"{purpose}: fetching {len(missing)} jars from Maven Central took over "
                                 f"{MAVEN_TIMEOUT_SECONDS} s; is Maven Central reachable? (mvn ... dependency:copy-dependencies)")
        absent = [a for a in missing if not os.path.exists(os.path.join(cache, jar_name(a)))]
        if done.returncode != 0 or absent:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise SystemExit(f"{purpose}: could not fetch {', '.join(absent or missing)} with Maven "
                             f"(is Maven Central reachable?):\n{tail}")
    return [os.path.join(cache, jar_name(a)) for a in coordinates]


def fetch_pom(coordinates: list[str]) -> str:
    """A POM whose dependencies are `coordinates`, each excluding everything it depends on."""
    dependencies = []
    for coordinate in coordinates:
        group, artifact, version = coordinate.split(":")
        dependencies.append(
            f"    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>\n"
            "      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>\n"
            "    </dependency>")
    return ('<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
            "  <modelVersion>4.0.0</modelVersion>\n"
            "  <groupId>io.skipstone</groupId><artifactId>fetch</artifactId><version>0</version>"
            "<packaging>pom</packaging>\n"
            "  <dependencies>\n" + "\n".join(dependencies) + "\n  </dependencies>\n</project>\n")


def newest_mtime(folder: str) -> float:
    return max((os.path.getmtime(f) for f in glob.glob(os.path.join(folder, "**", "*.scala"), recursive=True)),
               default=0.0)


def main_jar(path: str) -> str:
    """The shipped jar of the main sources, rebuilt first when a main source is newer."""
    if not os.path.exists(path) or os.path.getmtime(path) < newest_mtime(MAIN_SOURCES):
        print(f"building {path} (main sources changed)", flush=True)
        _build_jar_module().build(path)
    return path


def compile_tests(java: str, jars: str, classpath: list[str]) -> str:
    build_jar = _build_jar_module()
    compiler_cp = os.pathsep.join(build_jar.one_jar(jars, p)
                                  for p in ("scala-compiler-2.13", "scala-library-2.13", "scala-reflect-2.13"))
    sources = sorted(glob.glob(os.path.join(TEST_SOURCES, "**", "*.scala"), recursive=True))
    if not sources:
        raise SystemExit(f"no test sources under {TEST_SOURCES}")
    # Fresh each time: a class of a deleted or renamed suite must not keep running.
    shutil.rmtree(TEST_CLASSES, ignore_errors=True)
    os.makedirs(TEST_CLASSES)
    cmd = [java, "-Xss8m", "-cp", compiler_cp, "scala.tools.nsc.Main", "-release", "17", "-deprecation",
           "-feature", "-classpath", os.pathsep.join([os.path.join(jars, "*"), *classpath]),
           "-d", TEST_CLASSES, *sources]
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit("scalac failed to compile the JVM tests (errors above)")
    return TEST_CLASSES


def assert_not_shipped(jar: str, classes: str) -> None:
    """Test classes must never reach the jar users get (build_jar.py compiles jvm/src/main only)."""
    with zipfile.ZipFile(jar) as z:
        shipped = set(z.namelist())
    leaked = sorted(os.path.relpath(os.path.join(folder, name), classes).replace(os.sep, "/")
                    for folder, _, names in os.walk(classes) for name in names)
    leaked = [name for name in leaked if name in shipped]
    if leaked:
        raise SystemExit(f"{jar} holds test classes ({', '.join(leaked[:3])}); rebuild it with jvm/build_jar.py")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--main-jar", default=_build_jar_module().default_jar())
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="where ScalaTest's jars are kept")
    parser.add_argument("--maven-settings", help="a settings.xml for mvn (a mirror of Maven Central, a proxy)")
    parser.add_argument("runner_args", nargs="*", help="more arguments for org.scalatest.tools.Runner")
    args = parser.parse_args(argv)

    java = shutil.which("java")
    if java is None:
        raise SystemExit("JVM tests need Java 17 ('java' is not on PATH)")
    started = time.monotonic()
    scalatest = fetch_scalatest(args.cache, args.maven_settings)
    jars = _build_jar_module().pyspark_jars_dir()
    main = main_jar(args.main_jar)
    classes = compile_tests(java, jars, [main, *scalatest])
    assert_not_shipped(main, classes)
    compiled = time.monotonic()
    classpath = os.pathsep.join([os.path.join(jars, "*"), main, *scalatest, classes, TEST_RESOURCES])
    # -oD: results on stdout with durations; Runner exits non-zero when a test fails or aborts.
    cmd = [java, *JAVA_MODULE_OPTIONS, "-Xmx1g", "-cp", classpath, "org.scalatest.tools.Runner",
           "-R", classes, "-oD", *args.runner_args]
    try:
        code = subprocess.run(cmd, timeout=TEST_TIMEOUT_SECONDS).returncode
    except subprocess.TimeoutExpired:
        print(f"JVM tests: still running after {TEST_TIMEOUT_SECONDS} s; stopped", file=sys.stderr)
        return 1
    print(f"JVM tests: compiled in {compiled - started:.0f} s, ran in {time.monotonic() - compiled:.0f} s",
          flush=True)
    return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
