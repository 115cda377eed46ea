# Parley: `make run` starts the app, `make test` runs every check. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.test-deps-stamp

.PHONY: setup run test lint typecheck contracts pytest bench clean install-desktop \
	uninstall-desktop package bundle-test mutate

setup: $(STAMP)

$(STAMP): pyproject.toml packaging/linux/install-system-deps.sh
	PYTHON=$(PYTHON) bash packaging/linux/install-system-deps.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,voice]'
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) packaging/linux/install-system-deps.sh
	PYTHON=$(PYTHON) bash packaging/linux/install-system-deps.sh --test
	touch $(TEST_STAMP)

run: setup
	$(BIN)/parley $(ARGS)

lint: setup
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

typecheck: setup
	$(BIN)/mypy

contracts: setup
	$(BIN)/lint-imports

# The window's tests run in a process of their own (one QApplication, one qasync loop per
# test) and are bounded in time: a Qt event loop cannot be interrupted by pytest-timeout.
# Both halves always run; the target fails when either failed.
QT_TESTS := tests/ui tests/e2e/window

pytest: setup $(TEST_STAMP)
	@failed=""; \
	$(BIN)/python -m pytest -q $(addprefix --ignore=,$(QT_TESTS)) $(PYTEST_ARGS) \
		|| failed="$$failed non-window"; \
	timeout 1200 $(BIN)/python -m pytest -q $(QT_TESTS) $(PYTEST_ARGS) || failed="$$failed window"; \
	if [ -n "$$failed" ]; then echo "pytest failed in:$$failed tests"; exit 1; fi

test: lint typecheck contracts pytest

# The documents the retrieval benchmark searches (the Debian Reference, in HTML) and the
# second voice the speech benchmark transcribes (espeak-ng) are installed where they are
# missing and can be; where they cannot, its row says so and the rest still run.
BENCH_PACKAGES := debian-reference-en espeak-ng

bench: setup
	@dpkg -s $(BENCH_PACKAGES) >/dev/null 2>&1 || ! command -v apt-get >/dev/null || { \
		sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		echo "bench: installing $(BENCH_PACKAGES)"; \
		$$sudo apt-get install -y -qq --no-install-recommends $(BENCH_PACKAGES) \
		|| { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq \
			--no-install-recommends $(BENCH_PACKAGES); } \
		|| echo "bench: $(BENCH_PACKAGES) could not be installed"; }
	$(BIN)/python -m bench

# Add Parley (icon, menu entry, AppStream data) to this user's desktop; XDG_DATA_HOME is honoured.
install-desktop: setup
	bash packaging/linux/desktop-integration.sh install --exec "$(CURDIR)/$(BIN)/parley"

uninstall-desktop:
	bash packaging/linux/desktop-integration.sh uninstall

# A one-folder bundle in dist/parley/ that runs without Python (see packaging/README.md). It is
# built in its own virtualenv with llama.cpp compiled portably (no -march=native). The portable
# wheel takes ~10 minutes on 2 cores to compile, so it is kept outside the checkout, in the
# user's cache, one per llama-cpp-python version: a fresh clone (CI's too) builds it once.
PKG_VENV := build/package-venv
LLAMA_CPP_VERSION := 0.3.36
PORTABLE_WHEELS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/parley/portable-wheels/$(LLAMA_CPP_VERSION)

$(PORTABLE_WHEELS)/.stamp:
	mkdir -p $(PORTABLE_WHEELS)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PYTHON) -m pip wheel --quiet --no-deps --no-cache-dir \
		--wheel-dir $(PORTABLE_WHEELS) "llama-cpp-python==$(LLAMA_CPP_VERSION)"
	touch $@

# numpy built without BLAS and LAPACK, kept the same way: llama.cpp's bindings and the memory's
# vector scan use numpy, none of it linear algebra, and the wheel's OpenBLAS is 28 MB of the
# bundle. Nor does it carry copies of its loops for newer CPUs (AVX2, AVX-512) beside the
# baseline ones (x86-64-v2): they are most of numpy's own library, and Parley's arrays are
# small. Compiled once per numpy version (the one pip would install; bump NUMPY_VERSION with it).
NUMPY_VERSION := 2.4.6
NOBLAS_WHEELS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/parley/noblas-wheels/numpy-$(NUMPY_VERSION)

$(NOBLAS_WHEELS)/.stamp:
	mkdir -p $(NOBLAS_WHEELS)
	$(PYTHON) -m pip wheel --quiet --no-deps --no-cache-dir --no-binary numpy \
		--wheel-dir $(NOBLAS_WHEELS) "numpy==$(NUMPY_VERSION)" \
		--config-settings=setup-args=-Dallow-noblas=true \
		--config-settings=setup-args=-Dblas=none --config-settings=setup-args=-Dlapack=none \
		--config-settings=setup-args=-Dcpu-dispatch=none
	touch $@

$(PKG_VENV)/.stamp: pyproject.toml $(PORTABLE_WHEELS)/.stamp $(NOBLAS_WHEELS)/.stamp
	test -x $(PKG_VENV)/bin/python || $(PYTHON) -m venv $(PKG_VENV)
	$(PKG_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PKG_VENV)/bin/python -m pip install --quiet --force-reinstall --no-deps \
		$(PORTABLE_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl \
		$(NOBLAS_WHEELS)/numpy-$(NUMPY_VERSION)-*.whl
	$(PKG_VENV)/bin/python -m pip install --quiet '.[package]'
	touch $@

package: $(PKG_VENV)/.stamp
	$(PKG_VENV)/bin/python -m pip install --quiet --no-deps --force-reinstall .
	$(PKG_VENV)/bin/python -m PyInstaller --noconfirm --clean --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/parley.spec
	bash packaging/smoke-test.sh dist/parley

# The built bundle's own tests (tests/packaging/test_bundle.py), which skip while there is none;
# CI runs this after `make package`.
bundle-test: setup package
	$(BIN)/python -m pytest -q tests/packaging/test_bundle.py

# Mutation testing of the few pure modules listed under [tool.mutmut] in pyproject.toml, in a
# copy (mutants/); prints the share of mutants the tests kill. See "What the tests are worth"
# in README.md.
mutate: setup
	rm -rf mutants
	$(BIN)/mutmut run --max-children 2 >/dev/null || true
	$(BIN)/python bench/mutation_summary.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build dist mutants
