# spark-ddl-log. `make demo` runs the main job on the embedded default; `make test` runs the tests.
# Every target installs what it needs into .venv first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
EXTENSION_JAR := $(VENV)/.extension-built
SOAK_ITERATIONS ?= 50
# The Spark line make test runs on: the newest (pyproject.toml allows 4.0.1 to 4.3.x; make smoke-oldest runs a part of
# the suite on 4.0.1).
PYSPARK ?= 4.3.0
PYTEST_ARGS ?=

.PHONY: install system-deps test test-fast lint docs bench demo soak clean
SYSTEM_PACKAGES := postgresql libpostgresql-jdbc-java

install: $(STAMP) $(EXTENSION_JAR)

$(STAMP): pyproject.toml
	@command -v javac >/dev/null 2>&1 || { echo "error: the JDK's javac is needed (the Spark extension is compiled at install): install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless) or put its bin/ on PATH" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,dbt,docs]' 'pyspark[connect]==$(PYSPARK)'
	touch $(STAMP)

# Debian packages of the production setup (PostgreSQL server, its JDBC driver for the metastore service); a no-op
# when they are installed. Java 17 is the machine's.
system-deps:
	@dpkg -s $(SYSTEM_PACKAGES) >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $(SYSTEM_PACKAGES); }

# The Spark session extension (README "Attached sessions"): its Java sources compiled by javac against pyspark's jars.
$(EXTENSION_JAR): $(STAMP) $(wildcard ddl_log/frontends/extension/java/spark_ddl_log/*.java) ddl_log/frontends/extension/build.py
	@$(PY) -m ddl_log.frontends.extension.build && touch $@

# Class archive for the tests' Spark JVMs (tests/jvm_archive.py: about 40 % less CPU per JVM start); rebuilt with .venv.
SPARK_CLASS_ARCHIVE := $(VENV)/spark-classes.jsa
$(SPARK_CLASS_ARCHIVE): $(STAMP) $(EXTENSION_JAR) tests/jvm_archive.py
	$(PY) -m tests.jvm_archive $@

# make test: the suite but the crash proofs on real Spark (25-minute budget on 2 cores); make proofs: those (real
# SIGKILLs of drivers, servers and a cluster, the Spark crash sweeps; tests/conftest.py PROOFS lists them, about 25
# minutes). .ci/run runs both.
.PHONY: proofs
test: install system-deps $(SPARK_CLASS_ARCHIVE)
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=40 -m "not proofs" $(PYTEST_ARGS)

proofs: install system-deps $(SPARK_CLASS_ARCHIVE)
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=40 -m proofs $(PYTEST_ARGS)

# The oldest supported Spark line (pyspark 4.0.1; make test runs on 4.3.0) in a .venv of its own, with its own
# extension jar (spark-ddl-log-4.0.jar beside 4.3's): a smoke of what differs between lines (SQL functions as 4.0
# describes them, the attached session's routing through 4.0's parser, 4.0's eager saveAsTable, DROP TABLE of a view,
# names after SET CATALOG, fresh relations without 4.0's missing hint rules). .ci/run runs it after make proofs. docs/spark-versions.md says what else is known of 4.0.
OLDEST_VENV := .venv-oldest
OLDEST_PYSPARK ?= 4.0.1
SMOKE_OLDEST_TESTS ?= tests/contract/test_functions_and_databases.py tests/unit/test_function_description.py \
	tests/unit/test_extension_conf.py tests/attached/test_routing.py tests/spark/test_drop_table_of_a_view.py \
	tests/spark/test_frontend_name_resolution.py tests/spark/test_drop_function_missing.py \
	tests/spark/test_failures.py tests/spark/test_identity_lookup.py tests/spark/test_spark_objects.py \
	tests/spark/test_disabled_types.py tests/attached/test_writers.py tests/connect/test_connect_server.py \
	tests/preservation/test_rebuilds.py tests/spark/test_insert_into.py tests/spark/test_review36.py \
	tests/spark/test_fresh_relations.py tests/spark/test_metastore_lock.py tests/spark/test_write_path.py \
	tests/spark/test_statistics_parity.py tests/spark/test_session_settings_parity.py tests/spark/test_outside_writers.py \
	tests/attached/test_outside_writers_attached.py
.PHONY: smoke-oldest
$(OLDEST_VENV)/.installed-stamp: pyproject.toml
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(OLDEST_VENV)/bin/python -m pip install -q -e '.[dev]' 'pyspark[connect]==$(OLDEST_PYSPARK)'
	touch $@

smoke-oldest: system-deps $(OLDEST_VENV)/.installed-stamp
	$(OLDEST_VENV)/bin/python -m ddl_log.frontends.extension.build
	$(OLDEST_VENV)/bin/python -m pytest -q -n 2 --dist loadgroup -p no:randomly $(SMOKE_OLDEST_TESTS) $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -q -m "not spark" $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The documentation site (mkdocs, material theme) from docs/ into site/ (git-ignored); strict: a warning fails it (a
# broken link or anchor, a page missing from the nav in mkdocs.yml, a snippet of README.md not found; not --quiet,
# which would hide the warnings from the strict count).
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

bench: install
	$(PY) -m pytest bench -q --benchmark-only --benchmark-json=bench/results.json -p no:randomly
	$(PY) -m bench.summary bench/results.json bench/RESULTS.md
	BENCH_SERVICE=1 $(PY) -m pytest bench/service -q --benchmark-only --benchmark-json=bench/results-service.json -p no:randomly
	$(PY) -m bench.summary bench/results-service.json bench/RESULTS-service.md
	BENCH_SPARK_CLUSTER=1 $(PY) -m pytest bench/spark_cluster -q --benchmark-only --benchmark-json=bench/results-spark-cluster.json -p no:randomly
	$(PY) -m bench.summary bench/results-spark-cluster.json bench/RESULTS-spark-cluster.md
	BENCH_OBJECT_STORE=1 $(PY) -m pytest bench/object_store -q --benchmark-only --benchmark-json=bench/results-object-store.json -p no:randomly
	$(PY) -m bench.summary bench/results-object-store.json bench/RESULTS-object-store.md

demo: install
	$(PY) -m ddl_log.frontends.crash_demo

# Attached sessions (README "Attached sessions"): the spark.sql crash sweeps at every crash point worth a Spark run,
# every differential case and seed through an attached session, and the rest of tests/attached; `make test` runs the
# short forms (the points around each catalog operation, the AGREES cases and one seed).
.PHONY: test-attached
test-attached: install
	DDL_LOG_ATTACHED_LONG=1 $(PY) -m pytest -q --durations=20 tests/attached $(PYTEST_ARGS)
	DDL_LOG_ATTACHED_LONG=1 $(PY) -m pytest -q --durations=20 tests/differential/test_differential_short.py -k attached $(PYTEST_ARGS)

# dbt (issue 27): the whole dbt suite (dbt-tests-adapter's basic classes, the longer kill series, five replacing runs
# per side of the readers on a metastore service, the in-session readers) and method: thrift over `ddl-log
# thrift-server` (every materialization; issue 38); `make test` runs a short set of it.
.PHONY: test-dbt
test-dbt: install
	DBT_FULL=1 $(PY) -m pytest -q tests/dbt tests/spark/test_statement_sweeps.py -k "dbt or becomes" $(PYTEST_ARGS)
	DBT_FULL=1 $(PY) -m pytest -q tests/thrift/test_dbt_thrift.py $(PYTEST_ARGS)

# dbt (issue 27): a dbt run killed while the adapter replaces a model, recovered, then run again (./dbt_demo).
.PHONY: dbt-demo
dbt-demo: install
	$(PY) -m dbt.adapters.spark_ddl_log.demo

soak: install
	$(PY) -m tests.soak.run --iterations $(SOAK_ITERATIONS)

# The two short soaks (two iterations; 3 drivers for 45 s with 2 kills) as tests, kept out of make test's time.
.PHONY: soak-short
soak-short: install system-deps
	DDL_LOG_SOAK_SHORT=1 $(PY) -m pytest -q -n 2 --dist loadgroup tests/soak/test_soak_short.py \
		tests/soak_cluster/test_soak_cluster_short.py $(PYTEST_ARGS)

# Differential run (issue 25): random DDL scripts through plain spark.sql and through AtomicDDL.sql side by side,
# compared after every statement; each class of difference shrunk to a minimal repro. DIFFERENTIAL_ARGS: e.g. --seed S,
# --length N, --json FILE, --script REPRO.sql.
DIFFERENTIAL_SECONDS ?= 600
DIFFERENTIAL_ARGS ?=
.PHONY: differential
differential: install
	$(PY) -m tests.differential.run --seconds $(DIFFERENTIAL_SECONDS) $(DIFFERENTIAL_ARGS)

# Golden-file differential run (issue 36): Apache Spark's own sql-tests inputs (*.sql under GOLDEN_INPUTS, fetched
# outside the repository: the list is in tests/differential/golden.py) through plain spark.sql and through
# AtomicDDL.sql, every statement compared. GOLDEN_ARGS: e.g. --json FILE, --only describe.sql.
GOLDEN_INPUTS ?=
GOLDEN_ARGS ?=
.PHONY: differential-golden
differential-golden: install
	@test -n "$(GOLDEN_INPUTS)" || { echo "GOLDEN_INPUTS=DIR: a directory of Spark's sql-tests inputs"; exit 2; }
	$(PY) -m tests.differential.golden --inputs $(GOLDEN_INPUTS) $(GOLDEN_ARGS)

clean:
	rm -rf $(VENV) $(NEWEST_VENV) ddl_home site .pytest_cache .mypy_cache .ruff_cache

# Reader proof (issue 14): 2 readers in the writer's session and 1 in another driver, per statement kind.
READER_STATEMENTS ?= 50
.PHONY: readers
readers: install
	$(PY) -m tests.readers.run --statements $(READER_STATEMENTS)

# The production shape (issue 15): a Hive metastore service on a local PostgreSQL cluster, shared by every driver
# given the settings it prints. METASTORE_DIR: its directory; METASTORE_ARGS: e.g. --postgres-url URL, --backend derby.
METASTORE_DIR ?=
METASTORE_ARGS ?=
.PHONY: metastore metastore-stop
metastore: install system-deps
	$(PY) -m ddl_log metastore start $(if $(METASTORE_DIR),--dir $(METASTORE_DIR)) $(METASTORE_ARGS)

metastore-stop: install
	$(PY) -m ddl_log metastore stop $(if $(METASTORE_DIR),--dir $(METASTORE_DIR))

# Cluster soak (issue 16): 3 drivers on one PostgreSQL-backed metastore service, the same tables, SIGKILLs of random
# drivers replaced by new ones, a reader process; zero violations. SOAK_CLUSTER_ARGS: e.g. --seed S --disjoint --json.
# SPARK_MASTER=spark://HOST:PORT: drivers and reader run their jobs on that cluster (make spark-cluster prints it; give
# it a core per application: make spark-cluster SPARK_CLUSTER_CORES=3).
SOAK_CLUSTER_SECONDS ?= 600
SOAK_CLUSTER_ARGS ?=
.PHONY: soak-cluster
soak-cluster: install system-deps
	$(PY) -m tests.soak_cluster.run --seconds $(SOAK_CLUSTER_SECONDS) --drivers 3 $(if $(SPARK_MASTER),--spark-master $(SPARK_MASTER)) $(SOAK_CLUSTER_ARGS)

# Spark standalone cluster (issue 30): a master and SPARK_CLUSTER_WORKERS workers of SPARK_CLUSTER_CORES cores from pyspark's jars; drivers
# join with --spark-master (DDL_LOG_SPARK_MASTER). SPARK_CLUSTER_DIR: its directory (default /tmp/ddl-log-cluster-$USER).
SPARK_CLUSTER_WORKERS ?= 2
SPARK_CLUSTER_CORES ?= 1
SPARK_CLUSTER_DIR ?=
SPARK_MASTER ?=
.PHONY: spark-cluster spark-cluster-stop test-cluster
spark-cluster: install
	$(PY) -m ddl_log cluster start --workers $(SPARK_CLUSTER_WORKERS) --cores $(SPARK_CLUSTER_CORES) $(if $(SPARK_CLUSTER_DIR),--dir $(SPARK_CLUSTER_DIR))

spark-cluster-stop: install
	$(PY) -m ddl_log cluster stop $(if $(SPARK_CLUSTER_DIR),--dir $(SPARK_CLUSTER_DIR))

# The proofs on a standalone cluster in full (make proofs runs a representative part): every CREATE OR REPLACE form at
# every crash point, an executor killed in each data job with and without speculation, the driver killed mid-job.
test-cluster: install
	DDL_LOG_CLUSTER_PROOFS=long $(PY) -m pytest -q -p no:cacheprovider --timeout 7200 --durations=20 tests/cluster $(PYTEST_ARGS)

# Replication (issue 28): every test of tests/replication with their long variants (DDL_LOG_REPLICATION_LONG): the
# exactly-once and bootstrap/resync/promote crash sweeps, resync crashed at every catalog instant on Spark, bootstrap
# and check from a source on a metastore service and from a stopped source's embedded metastore (several JVMs each),
# two metastore services on PostgreSQL (a replica killed mid-apply, its service and the source's killed mid-apply),
# and INSERT INTO (every crash point on Spark, real kills before and after its commit). `make test` runs the short
# variants. REPLICA_HOME / REPLICA_SOURCE: `make replica-run` applies a source until caught up.
REPLICA_HOME ?= ./replica_home
REPLICA_SOURCE ?= ./ddl_home
.PHONY: replication replica-run
replication: install system-deps
	DDL_LOG_REPLICATION_LONG=1 $(PY) -m pytest -q --durations=20 tests/replication tests/spark/test_insert_into.py \
		tests/spark/test_insert_into_kill.py $(PYTEST_ARGS)
replica-run: install
	$(PY) -m ddl_log --home $(REPLICA_HOME) replica run --source $(REPLICA_SOURCE) --until-caught-up

# Replication soak (issue 28) on Spark: two metastore services on PostgreSQL (source and replica), source drivers
# (database homes) running random statements of every kind, SIGKILLed at random and replaced (the same home reopened,
# or a new one: takeover), the replica applier SIGKILLed at random and restarted, a reader on the replica; at the end
# `replica check` finds 0 differences, every source event applied exactly once, 0 bad reads. Prints one JSON line.
# SOAK_REPLICA_ARGS: e.g. --seed S --drivers N --keep. `make replication` runs a short one (tests/replication/test_two_services.py).
# soak-replica-memory: the same idea on the in-memory catalog (random scripts, the replica crashed at every instant).
SOAK_REPLICA_SECONDS ?= 300
SOAK_REPLICA_ARGS ?=
.PHONY: soak-replica soak-replica-memory
soak-replica: install system-deps
	$(PY) -m tests.replication.soak_spark --seconds $(SOAK_REPLICA_SECONDS) $(SOAK_REPLICA_ARGS)
soak-replica-memory: install
	$(PY) -m tests.replication.soak --seconds $(SOAK_REPLICA_SECONDS) $(SOAK_REPLICA_ARGS)

# The object-store file system of the tests (issue 40, tests/jvm/objectstore): a Hadoop FileSystem with S3's
# semantics over a local directory (scheme s3sim), compiled with the JDK's javac against pyspark's hadoop-client-api
# jar into .venv (rebuilt with it). A rule of its own that install depends on.
JAVAC ?= javac
JAR ?= jar
OBJECT_STORE_SOURCES := $(wildcard tests/jvm/objectstore/src/ddllog/objectstore/*.java)
OBJECT_STORE_JAR := $(VENV)/jvm/objectstore.jar
install: $(OBJECT_STORE_JAR)
$(OBJECT_STORE_JAR): $(STAMP) $(OBJECT_STORE_SOURCES)
	@command -v $(JAVAC) >/dev/null 2>&1 && command -v $(JAR) >/dev/null 2>&1 || { \
		echo "make: $(JAVAC) (a JDK 17) is needed to build $@, the tests' object-store file system" >&2; exit 1; }
	rm -rf $(VENV)/jvm/objectstore-classes
	$(JAVAC) -nowarn -d $(VENV)/jvm/objectstore-classes \
		-cp "$$($(PY) -c 'import glob, os, pyspark; print(*glob.glob(os.path.dirname(pyspark.__file__) + "/jars/hadoop-client-api-*.jar"))')" \
		$(OBJECT_STORE_SOURCES)
	$(JAR) cf $@.partial -C $(VENV)/jvm/objectstore-classes . && mv $@.partial $@

# The object-store group in full (issue 40): the simulated store's own tests, a rename count of every statement kind,
# torn data renames, and the crash sweeps of every whole-table statement, in one process whose warehouse is on the
# store (tests/object_store/group.py); `make proofs` runs its short form. PYTEST_ARGS: e.g. -k ctas.
.PHONY: test-object-store
test-object-store: install
	$(PY) -m tests.object_store.group --full $(PYTEST_ARGS)
