# roofline: the two commands of the README, plus a few conveniences.
#   make run   — install dependencies, build (Release), run the main job: out/{results.json,report.md,roofline.svg,report.html}
#   make test  — install dependencies, build, run every test that needs no GPU
PRESET ?= release
JOBS ?= $(shell nproc)
ARGS ?=

.PHONY: run test build setup gpu-test clean

setup:
	@bash scripts/setup.sh

build: setup
	@cmake --preset $(PRESET) --log-level=NOTICE
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	./build/$(PRESET)/roofline run --out out $(ARGS)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

gpu-test: build
	ctest --test-dir build/$(PRESET) -L gpu --output-on-failure

clean:
	rm -rf build out
