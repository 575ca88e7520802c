#!/usr/bin/env bash
# One short device session: build the h200 preset, run the GPU tests, then measure the launch and
# one GEMM probe twice, alone and beside another process that holds the GPU (a PyTorch matmul
# loop), to check that the second run names that process and keeps its results out of the roofs.
# GPU tests run one at a time: tests that time the GPU must not share it (make gpu-test does the same).
# Writes under $OUT (default ./out-h200-check): build.log, gpu-tests.log, alone/, beside/, check.md.
# Usage: bash bench/h200-check.sh   (on the GPU machine, from the repository root)
set -u
OUT=${OUT:-out-h200-check}
mkdir -p "$OUT"
{
  echo "# H200 check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,ecc.mode.current --format=csv,noheader
} >"$OUT/check.md"

if ! { cmake --preset h200 --log-level=NOTICE && cmake --build --preset h200 -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
  echo "- build: FAILED (see build.log)" >>"$OUT/check.md"
  tail -40 "$OUT/build.log"
  exit 1
fi
echo "- build: ok" >>"$OUT/check.md"
bin=build/h200/roofline

timeout "${GPU_TEST_TIMEOUT:-240}" ctest --test-dir build/h200 -L gpu --output-on-failure >"$OUT/gpu-tests.log" 2>&1
echo "- GPU tests: $(grep -E 'tests passed|tests failed' "$OUT/gpu-tests.log" | tail -1)" >>"$OUT/check.md"
grep -E '\*\*\*Failed|Timeout' "$OUT/gpu-tests.log" >>"$OUT/check.md"

"$bin" measure --device cuda:0 --quick --only launch,gemm/fp16 --out "$OUT/alone" >"$OUT/alone.log" 2>&1
echo "- alone: exit $?; interference: $(python3 -c "import json;r=json.load(open('$OUT/alone/results.json'));i=r.get('interference');print('null' if i is None else i['summary'])")" >>"$OUT/check.md"

python3 - >"$OUT/hog.log" 2>&1 <<'EOF' &
import time, torch
x = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
t = time.time()
while time.time() - t < 120:
    y = x @ x
torch.cuda.synchronize()
EOF
hog=$!
sleep 8
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >>"$OUT/check.md"
"$bin" measure --device cuda:0 --quick --only launch,gemm/fp16 --out "$OUT/beside" >"$OUT/beside.log" 2>&1
rc=$?
kill $hog 2>/dev/null
wait $hog 2>/dev/null
python3 - "$OUT" "$rc" >>"$OUT/check.md" <<'EOF'
import json, sys
out, rc = sys.argv[1], sys.argv[2]
r = json.load(open(f"{out}/beside/results.json"))
i = r.get("interference") or {}
print(f"- beside a PyTorch matmul loop: exit {rc}; busy {i.get('busy')}; {i.get('summary')}")
print(f"  - before: {(i.get('before') or {}).get('device_processes')}")
rows = r["measured"]["compute"] + r["measured"]["bandwidth"]
print(f"  - rows rejected: {sum(1 for x in rows if x.get('rejected'))} of {len(rows)}")
for x in rows:
    if x.get("rejected"):
        print(f"    - {x.get('precision', x.get('pattern'))} {x.get('size')}: {x['rejected_reason'][:200]}")
EOF
cat "$OUT/check.md"
