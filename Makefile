# spark-ddl-log. `make demo` runs the main job on the embedded default; `make test` runs the tests.
# Every target installs what it needs into .venv first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
SOAK_ITERATIONS ?= 50
PYTEST_ARGS ?=

.PHONY: install system-deps test test-fast lint bench demo soak clean
SYSTEM_PACKAGES := postgresql libpostgresql-jdbc-java

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,dbt]'
	touch $(STAMP)

# Debian packages of the production setup (PostgreSQL server, its JDBC driver for the metastore service); a no-op
# when they are installed. Java 17 is the machine's.
system-deps:
	@dpkg -s $(SYSTEM_PACKAGES) >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $(SYSTEM_PACKAGES); }

# Class archive for the tests' Spark JVMs (tests/jvm_archive.py: about 40 % less CPU per JVM start); rebuilt with .venv.
SPARK_CLASS_ARCHIVE := $(VENV)/spark-classes.jsa
$(SPARK_CLASS_ARCHIVE): $(STAMP) tests/jvm_archive.py
	$(PY) -m tests.jvm_archive $@

test: install system-deps $(SPARK_CLASS_ARCHIVE)
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=40 $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -q -m "not spark" $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

bench: install
	$(PY) -m pytest bench -q --benchmark-only --benchmark-json=bench/results.json -p no:randomly
	$(PY) -m bench.summary bench/results.json bench/RESULTS.md
	BENCH_SERVICE=1 $(PY) -m pytest bench/service -q --benchmark-only --benchmark-json=bench/results-service.json -p no:randomly
	$(PY) -m bench.summary bench/results-service.json bench/RESULTS-service.md

demo: install
	$(PY) -m ddl_log.frontends.demo

# dbt (issue 27): the whole dbt suite (dbt-tests-adapter's basic classes, the longer kill series); `make test` runs a
# short set of it.
.PHONY: test-dbt
test-dbt: install
	DBT_FULL=1 $(PY) -m pytest -q tests/dbt tests/spark/test_statement_sweeps.py -k "dbt or becomes" $(PYTEST_ARGS)

# dbt (issue 27): a dbt run killed while the adapter replaces a model, recovered, then run again (./dbt_demo).
.PHONY: dbt-demo
dbt-demo: install
	$(PY) -m dbt.adapters.spark_ddl_log.demo

soak: install
	$(PY) -m tests.soak.run --iterations $(SOAK_ITERATIONS)

# Differential run (issue 25): random DDL scripts through plain spark.sql and through AtomicDDL.sql side by side,
# compared after every statement; each class of difference shrunk to a minimal repro. DIFFERENTIAL_ARGS: e.g. --seed S,
# --length N, --json FILE, --script REPRO.sql.
DIFFERENTIAL_SECONDS ?= 600
DIFFERENTIAL_ARGS ?=
.PHONY: differential
differential: install
	$(PY) -m tests.differential.run --seconds $(DIFFERENTIAL_SECONDS) $(DIFFERENTIAL_ARGS)

clean:
	rm -rf $(VENV) ddl_home .pytest_cache .mypy_cache .ruff_cache

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
SOAK_CLUSTER_SECONDS ?= 600
SOAK_CLUSTER_ARGS ?=
.PHONY: soak-cluster
soak-cluster: install system-deps
	$(PY) -m tests.soak_cluster.run --seconds $(SOAK_CLUSTER_SECONDS) --drivers 3 $(SOAK_CLUSTER_ARGS)
