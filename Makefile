# Everything runs inside .venv; a fresh machine needs only Python 3.11 and Java 17.
VENV   := .venv
PY     := $(VENV)/bin/python
# The pinned pyspark's minor (PYSPARK below); its jar is the one `make test` uses (skipstone/jar/)
SPARK_MINOR := 4.3
JAR    := python/skipstone/jars/spark-$(SPARK_MINOR)/skipstone.jar
SCALA  := $(shell find jvm/src/main -name '*.scala' -o -path 'jvm/src/main/resources/*' -type f)
# The JVM side of the benchmarks, in a jar of its own so that it never ships (git-ignored).
BENCH_JAR   := benchmarks/.jars/skipstone-bench.jar
BENCH_SCALA := $(shell find jvm/src/bench -name '*.scala')
PYSPARK := pyspark==$(SPARK_MINOR).*
# Jars fetched from Maven Central by one `mvn` run (jvm/run_jvm_tests.py; ScalaTest for test-jvm), kept here.
MAVEN_JARS := .cache/maven-jars

.PHONY: install jar dist test-dist apidocs bench-jar demo test test-long test-docs test-jvm test-s3 bench-s3 bench bench-quick bench-scale bench-layout bench-layout-quick bench-layout-shifting bench-layout-replay bench-rewrite-stages bench-deciding bench-appends clean fuzz fuzz-tables test-spark-versions peer-jars bench-peers-smoke bench-layout-shifting-peers hdfs-jars test-hdfs test-delta test-iceberg bench-delta-source test-stores test-catalog-store

install: $(VENV)/.installed $(JAR)

# pyspark goes in first: the package build compiles the Scala sources with its compiler.
$(VENV)/.installed: setup.py pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q "$(PYSPARK)"
	$(PY) -m pip install -q --no-build-isolation -e ".[dev]"
	touch $@

jar: $(JAR)

$(JAR): $(SCALA) jvm/build_jar.py | $(VENV)/.installed
	$(PY) jvm/build_jar.py

# A wheel (the jars compiled, nothing to build at install) and an sdist into dist/ (docs/install.md).
# The wheel holds a jar for the pinned minor and for each pyspark in DIST_SPARK (a pyspark
# version each, installed from PyPI into .cache/spark-<version> the first time, ~400 MB;
# .cache/peer-spark's venv is used when it holds that version). `make dist DIST_SPARK=`: 4.3 only.
DIST_SPARK ?= 4.1.4
dist: | $(VENV)/.installed
	rm -rf dist build python/skipstone.egg-info
	SKIPSTONE_SPARK_PYTHONS="$$($(PY) .ci/dist.py pythons $(DIST_SPARK))" \
	  $(PY) -m pip wheel -q --no-build-isolation --no-deps -w dist .
	$(PY) setup.py -q sdist -d dist
	$(PY) .ci/dist.py check dist

# The wheel installed into a fresh venv from dist/ and a local cache of its dependencies
# (made once with pip wheel, then --no-index: nothing compiled, nothing fetched), then used; and
# beside each pyspark of DIST_SPARK, where a query must skip with the jar of that minor.
test-dist: dist
	$(PY) .ci/dist.py install dist $(DIST_SPARK)

# The API reference from the docstrings into docs/api/ (git-ignored), with pdoc (dev extra);
# fails on a broken cross-reference (tests/test_api_reference.py checks it too)
apidocs: | $(VENV)/.installed
	$(PY) .ci/apidocs.py docs/api

bench-jar: $(BENCH_JAR)

$(BENCH_JAR): $(BENCH_SCALA) $(JAR) jvm/build_jar.py | $(VENV)/.installed
	$(PY) jvm/build_jar.py --bench

$(VENV)/.bench: $(VENV)/.installed setup.py
	$(PY) -m pip install -q --no-build-isolation -e ".[dev,bench]"
	touch $@

bench: install $(VENV)/.bench $(BENCH_JAR)
	$(PY) -m benchmarks.run

bench-quick: install $(VENV)/.bench $(BENCH_JAR)
	$(PY) -m benchmarks.run --quick

# Planning and driver memory at 10^3..10^6 files (issue 12; docs/benchmarks.md, "scale")
bench-scale: install $(VENV)/.bench $(BENCH_JAR)
	$(PY) -m benchmarks.run --only scale

# The skipping tests on every pyspark 4.x minor on PyPI, a venv each (downloads; not in CI)
test-spark-versions: install
	$(PY) .ci/spark_versions.py

# Amoeba's TPC-H experiment on Spark, wall clock (docs/layout-results.md); LAYOUT_FLAGS="--sf 10" for SF 10
bench-layout: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.bench $(LAYOUT_FLAGS)

bench-layout-quick: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.bench --quick

# Layouts under a workload that moves (issue 23; docs/layout-shifting.md): three phases of 300 queries at
# SF 1, static layouts, adaptive policies and a clairvoyant bound; SHIFT_FLAGS="--sf 10" for the
# large run, "--quick" SF 0.1 in minutes. With Delta Lake and Iceberg: bench-layout-shifting-peers
bench-layout-shifting: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.shifting $(SHIFT_FLAGS)

# AutoColumns' decisions replayed offline on the shifting benchmark's workloads (docs/layout-pricing.md,
# "The trigger replayed offline"), simulated, a minute a run: REPLAY_FLAGS="--random-attributes --write-scales 0.25,0.5,1,2"
bench-layout-replay: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.trigger_replay $(REPLAY_FLAGS)

# Where a whole-table rewrite's time goes: its Spark jobs timed, beside plain Spark's shuffle and
# write of the same rows (docs/layout-pricing.md, "Where a rewrite's time goes"); a few minutes
bench-rewrite-stages: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.rewrite_stages --baseline

# What one decision of the adaptive policy costs as the workload log grows (docs/layout-shifting.md, "Long
# phases"): the whole log read at each call against only the records logged since the last
# one, interleaved; DECIDING_FLAGS="--lengths 400,2400,7200 --calls 5" (the defaults)
bench-deciding: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.deciding $(DECIDING_FLAGS)

# Appends stay clustered (issue 23): ten appends of 5 % on TPC-H SF 0.1 against a rebuild at each
# size (docs/maintenance.md); APPENDS_FLAGS="--layout amoeba" for Amoeba
bench-appends: install $(VENV)/.bench
	$(PY) -m benchmarks.layout_spark.appends $(APPENDS_FLAGS)

# Delta Lake and Iceberg beside Skipstone on one Spark (docs/peers.md): their jars from Maven
# Central into .cache/peer-jars, and for the smoke run a venv of the Spark they share
# (.cache/peer-spark, pyspark 4.1) with Skipstone's jar built for it. Downloads: not in CI.
# Neither needs .venv: that venv is the peers' own, made by the python3 that runs this.
PEERS := python3 -m benchmarks.layout_spark.peer_runtime
peer-jars:
	$(PEERS) jars

bench-peers-smoke:
	$(PEERS) run -m benchmarks.layout_spark.spark_peers --smoke

# bench-layout-shifting with the peers, run on their Spark (SHIFT_FLAGS as there)
bench-layout-shifting-peers:
	$(PEERS) run -m benchmarks.layout_spark.shifting --peers $(SHIFT_FLAGS)

# Skipstone's indexes on Delta Lake tables (docs/delta-sources.md), on the Spark Delta supports:
# Delta's jars from Maven Central, the pyspark 4.1 venv and Skipstone's jar built for it as above,
# then tests/sources/test_delta_*.py with Delta in each test session (SKIPSTONE_TEST_CONF).
# `make test` runs the same files on .venv's pyspark, without Delta: they are skipped there.
test-delta:
	$(PEERS) test-delta

# Skipstone's indexes on Iceberg tables (docs/iceberg-sources.md), the same way on the same Spark:
# Iceberg's runtime jar and extension in each test session, a Hadoop catalog per test module in a
# temporary warehouse, tests/sources/test_iceberg_*.py (skipped by `make test`, which has no Iceberg).
test-iceberg:
	$(PEERS) test-iceberg

# Point lookups on a Delta table (TPC-H lineitem): Skipstone's indexes beside Delta's own skipping
# (docs/delta-sources.md; its numbers: DELTA_BENCH_FLAGS="--scale 1 --lookups 20 --repeats 5", 5 minutes)
bench-delta-source:
	$(PEERS) run -m benchmarks.delta_source $(DELTA_BENCH_FLAGS)

demo: install
	$(PY) -m skipstone demo

# The tests marked `long` (over 9 s each: a local cluster, spark-sql shells and other processes'
# Spark starts, the fuzzers' smoke runs, hypothesis' random predicates, the slowest doc pages and
# table fixtures; 6 min 30 s quiet) run in `make test-long`, which CI runs right after
# `make test`: that keeps `make test` under 20 minutes on 2 cores (16 min 16 s quiet, 2026-11-27:
# the JVM suites about 2, pytest 14).
test: install test-jvm
	$(PY) -m pytest -q -m "not long" tests

test-long: install
	$(PY) -m pytest -q -m long tests

# Every fenced example of README.md and docs/*.md, and the demo (tests/docs/); make test runs the
# quick pages only. About 5.5 minutes on 2 shared cores.
test-docs: install $(JAR)
	SKIPSTONE_DOCS=all $(PY) -m pytest -q tests/docs

# The skipping suite with the catalog-table metadata store (docs/metadata.md, "Metadata stores") as
# every test session's default: each dataset's metadata versions are tables of the session catalog.
# Tests marked files_store (they open the file store's directories) are skipped; the spark-sql
# shell's tests too, since the in-memory catalog is not shared with another process.
BUILDS_INDEXES := [.]build[(]|CREATE SKIPPING INDEX
CATALOG_STORE_TESTS := $(filter-out tests/test_sql_shell.py,$(shell grep -lE "$(BUILDS_INDEXES)" tests/test_*.py)) \
  tests/sql/test_sql_commands.py tests/sql/test_sql_index_build.py tests/sql/test_sql_metrics.py tests/sql/test_sql_parsing.py
test-catalog-store: install $(JAR)
	SKIPSTONE_TEST_CONF='{"spark.skipstone.metadataStore": "catalog"}' $(PY) -m pytest -q $(CATALOG_STORE_TESTS)

# Managed tables on HDFS (docs/hdfs.md): the store suite (tests/stores/table_suite.py) against a
# MiniDFSCluster the tests start in a JVM of their own. Its jar, Hadoop's minicluster of the version
# pyspark ships, is fetched from Maven Central into $(HDFS_JARS) the first time; the slow tests
# (processes racing, a writer killed) run too. 4 to 6 minutes on 2 shared cores (load average 7 to 12).
HDFS_JARS := .cache/hdfs-jars
HDFS_TEST_CONF := {}
hdfs-jars: | $(VENV)/.installed
	$(PY) tests/stores/hdfs_cluster.py fetch --cache $(HDFS_JARS)

test-hdfs: install hdfs-jars
	SKIPSTONE_HDFS_JARS=$(HDFS_JARS) SKIPSTONE_SLOW_STORE_TESTS=1 SKIPSTONE_TEST_CONF='$(HDFS_TEST_CONF)' \
	  $(PY) -m pytest -q tests/stores/test_hdfs_tables.py

# The ScalaTest suites of jvm/src/test (docs/development.md), against the shipped jar; the
# first run fetches ScalaTest into $(MAVEN_JARS) and fails clearly if Maven Central is unreachable.
test-jvm: $(JAR)
	$(PY) jvm/run_jvm_tests.py --main-jar $(JAR) --cache $(MAVEN_JARS)

# Managed tables and skipping datasets on S3 (docs/object-stores.md): moto's S3 server (dev extra)
# on a free port of 127.0.0.1, S3A's jars (hadoop-aws 3.5.0 and the AWS SDK modules it
# needs) fetched once from Maven Central into .cache/s3-jars, both named to the tests' Spark in
# SKIPSTONE_TEST_CONF. Without them (make test) those tests are skipped. 5 to 8 minutes on 2
# shared cores (load average 3 to 10), most of it the store-agnostic table suite (tests/stores/table_suite.py).
test-s3: install $(JAR)
	conf="$$($(PY) tests/stores/s3_store.py conf)" && SKIPSTONE_TEST_CONF="$$conf" $(PY) -m pytest -q tests/stores/test_s3_*.py

# The store suites, which CI runs after `make test` (docs/development.md): HDFS and S3 in one
# pytest process (one Spark start; the race and kill tests' child processes serve both stores),
# then the Delta Lake and Iceberg sources on pyspark 4.1 (test-delta, test-iceberg). What each
# needs is fetched into .cache the first time: S3A's and the minicluster's jars, Delta's and
# Iceberg's jars, the pyspark 4.1 venv. 12 minutes without Iceberg (about 4 more with it) with
# .cache filled on 2 shared cores (docs/development.md).
test-stores: install $(JAR) hdfs-jars
	conf="$$($(PY) tests/stores/s3_store.py conf)" && SKIPSTONE_TEST_CONF="$$conf" SKIPSTONE_HDFS_JARS=$(HDFS_JARS) \
	  $(PY) -m pytest -q tests/stores/test_hdfs_tables.py tests/stores/test_s3_*.py
	$(PEERS) test-delta
	$(PEERS) test-iceberg

# Planning time and S3 requests per query on 10,000 objects of the local S3 server (docs/object-stores.md)
bench-s3: install $(JAR)
	$(PY) -m benchmarks.s3_planning $(S3_BENCH_FLAGS)

# Randomized differential fuzzer (docs/fuzzing.md): `make fuzz CASES=100000 SEED=1`.
CASES ?= 100000
SEED  ?= 1
FUZZ_OUT ?= /tmp/skipstone-fuzz-out
fuzz: install
	PYTHONPATH=tests:python $(PY) -m fuzz --cases $(CASES) --seed $(SEED) --out $(FUZZ_OUT)

# Managed tables under the fuzzer: created, optimized, appended, checked after each step.
TABLES ?= 60
fuzz-tables: install
	PYTHONPATH=tests:python $(PY) -m fuzz.tables --tables $(TABLES) --seed $(SEED)

clean:
	rm -rf $(VENV) python/skipstone/jars benchmarks/.jars build dist docs/api *.egg-info python/*.egg-info .cache/jvm-test-classes
