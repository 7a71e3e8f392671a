"""What users get in the product jar: Skipstone's classes, no benchmark code.

The benchmarks' JVM side lives in jvm/src/bench and its own jar (jvm/build_jar.py --bench);
a benchmark class in the product jar would be dead weight on every cluster that loads it.
"""
from __future__ import annotations

import os
import zipfile

from skipstone import jar_path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_product_jar_holds_no_benchmark_class():
    with zipfile.ZipFile(jar_path()) as jar:
        benchmarks = [name for name in jar.namelist() if "Benchmark" in os.path.basename(name)]
    assert benchmarks == []


def test_no_benchmark_source_among_the_product_sources():
    main = os.path.join(ROOT, "jvm", "src", "main")
    benchmarks = [os.path.relpath(os.path.join(folder, name), ROOT)
                  for folder, _, names in os.walk(main) for name in names if "Benchmark" in name]
    assert benchmarks == [], "benchmark code belongs in jvm/src/bench"
