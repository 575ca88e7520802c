#!/usr/bin/env python3
"""The slowest build steps and tests of a build folder, as CI prints them after `make test` / `make sanitize`.

    python3 scripts/slowest.py BUILD_DIR [N]      (default N = 10)

Build steps from BUILD_DIR/.ninja_log (Ninja's record of each output's start and end, ms; the latest
build of each output), tests from BUILD_DIR/Testing/Temporary/CTestCostData.txt (CTest's running average
seconds a test). Prints what it finds; a file that is missing is said, never an error.
"""
import os
import sys


def build_steps(d):
    path = os.path.join(d, ".ninja_log")
    if not os.path.exists(path):
        return None
    last = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                last[parts[3]] = (int(parts[1]) - int(parts[0])) / 1000
    return last


def test_costs(d):
    path = os.path.join(d, "Testing", "Temporary", "CTestCostData.txt")
    if not os.path.exists(path):
        return None
    costs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("---"):
                break
            parts = line.split()
            if len(parts) == 3:
                costs[parts[0]] = float(parts[2])
    return costs


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: slowest.py BUILD_DIR [N]")
    d, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10
    steps = build_steps(d)
    if steps is None:
        print(f"{d}: no .ninja_log (not built with Ninja here)")
    else:
        print(f"slowest of {len(steps)} build steps in {d} ({sum(steps.values()):.0f} s of compiler time in all):")
        for out, s in sorted(steps.items(), key=lambda x: -x[1])[:n]:
            print(f"  {s:7.1f} s  {out}")
    costs = test_costs(d)
    if costs is None:
        print(f"{d}: no CTestCostData.txt (no tests run here)")
    else:
        print(f"slowest of {len(costs)} tests in {d} ({sum(costs.values()):.0f} s of test time in all):")
        for name, s in sorted(costs.items(), key=lambda x: -x[1])[:n]:
            print(f"  {s:7.1f} s  {name}")


if __name__ == "__main__":
    main()
