# roofline: the two commands of the README, plus a few conveniences.
#   make run   — install dependencies, build (Release), run the main job: out/{results.json,report.md,roofline.svg,report.html}
#   make test  — install dependencies, build, run every test that needs no GPU; then the same unit
#                tests under AddressSanitizer + UndefinedBehaviorSanitizer and the libFuzzer targets
#   make test-fast — the Release tests only (for development)
PRESET ?= release
JOBS ?= $(shell nproc)
ARGS ?=

.PHONY: run test test-fast sanitize build setup gpu-test clean

setup:
	@bash scripts/setup.sh

build: setup
	@cmake --preset $(PRESET) --log-level=NOTICE
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	./build/$(PRESET)/roofline run --out out $(ARGS)

test: test-fast sanitize

test-fast: build
	ctest --preset $(PRESET) -j $(JOBS)

sanitize: setup
	@cmake --preset sanitize --log-level=NOTICE
	@cmake --build --preset sanitize -j $(JOBS)
	ctest --preset sanitize -j $(JOBS)

gpu-test: build
	ctest --test-dir build/$(PRESET) -L gpu --output-on-failure

clean:
	rm -rf build out
