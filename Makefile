# roofline: the two commands of the README, plus a few conveniences.
#   make run   — install what the run needs (scripts/setup.sh run: no test-only package), build the tool
#                alone (Release, tests off), run the main job: out/{results.json,report.md,roofline.svg,report.html}
#   make test  — install the test packages too (scripts/setup.sh test), build with the tests (Release,
#                unity build), run every test that needs no GPU; then the slowest build steps and tests
#   make sanitize — clang: the same unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, and
#                the libFuzzer targets (CI runs it after `make test`: .ci/run)
PRESET ?= release
JOBS ?= $(shell nproc)
ARGS ?=

.PHONY: run test test-fast sanitize build build-tool setup setup-run gpu-test clean

setup:
	@bash scripts/setup.sh test

setup-run:
	@bash scripts/setup.sh run

# the tool alone: no GoogleTest, no test targets
build-tool: setup-run
	@cmake --preset $(PRESET) --log-level=NOTICE -DROOFLINE_TESTS=OFF
	@cmake --build --preset $(PRESET) -j $(JOBS) --target roofline

build: setup
	@cmake --preset $(PRESET) --log-level=NOTICE -DROOFLINE_TESTS=ON
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build-tool
	./build/$(PRESET)/roofline run --out out $(ARGS)

test: build
	ctest --preset $(PRESET) -j $(JOBS)
	@python3 scripts/slowest.py build/$(PRESET)

test-fast: test

sanitize: setup
	@cmake --preset sanitize --log-level=NOTICE
	@cmake --build --preset sanitize -j $(JOBS)
	ctest --preset sanitize -j $(JOBS)
	@python3 scripts/slowest.py build/sanitize

gpu-test: build
	ctest --test-dir build/$(PRESET) -L gpu --output-on-failure

clean:
	rm -rf build out
