#!/usr/bin/env python3
"""Where the bytes of bench/l2_write_scaling.cu go: Nsight Compute's DRAM and L2 counters per kernel.

Reads the CSV of `ncu --csv --page raw -k scaling_kernel --metrics gpu__time_duration.sum,
dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum`
run over l2_write_scaling (bench/l2-write-ncu.sh), whose stdout (the program's own table) may be
mixed in before the CSV. The program launches scaling_kernel in a fixed order: for each working set
(15 MiB, 4 GiB), for each kernel (read, st.global write, TMA 4 KiB, TMA 16 KiB, TMA one fixed tile),
for each SM count (16, 33, 66, 99, 132): one warm-up and five timed launches. This script takes the
first timed launch of each configuration and prints, per configuration: kernel time, bytes to and
from DRAM, L2 read/write sectors × 32 B, and the rates those give.

A write whose DRAM bytes are ~0 while the L2 takes every sector was served by the L2 (write-back);
DRAM bytes equal to the bytes written mean it went to DRAM.

    python3 bench/l2_write_ncu.py ncu.csv > table.md
"""
import csv
import io
import sys

SETS = ["15 MiB (L2)", "4 GiB (HBM)"]
KERNELS = ["read (ld.global.cg.v4)", "write st.global.v4", "write TMA bulk, 4 KiB tiles",
           "write TMA bulk, 16 KiB tiles", "write TMA bulk, one fixed 16 KiB tile"]
SMS = [16, 33, 66, 99, 132]
PER_CONFIG = 6


def main():
    lines = open(sys.argv[1]).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head, data = rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]
    col = {h: i for i, h in enumerate(head)}
    expected = len(SETS) * len(KERNELS) * len(SMS) * PER_CONFIG
    if len(data) != expected:
        sys.exit(f"{len(data)} profiled launches, expected {expected}: the launch order assumed here does not hold")

    def val(r, m):
        return float(r[col[m]].replace(",", ""))

    print("| working set | kernel | SMs | time (µs) | DRAM read | DRAM written | L2 read sectors × 32 B | "
          "L2 write sectors × 32 B | L2 write sectors ÷ DRAM written | L2 write-sector rate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for j in range(1, len(data), PER_CONFIG):
        cfg = j // PER_CONFIG
        ws, k, s = cfg // (len(KERNELS) * len(SMS)), (cfg // len(SMS)) % len(KERNELS), cfg % len(SMS)
        r = data[j]
        t = val(r, "gpu__time_duration.sum") * 1e-9
        dr, dw = val(r, "dram__bytes_read.sum"), val(r, "dram__bytes_write.sum")
        lr, lw = 32 * val(r, "lts__t_sectors_op_read.sum"), 32 * val(r, "lts__t_sectors_op_write.sum")
        ratio = f"{lw / dw:.0f}×" if dw > 0 else "—"
        print(f"| {SETS[ws]} | {KERNELS[k]} | {SMS[s]} | {t * 1e6:,.0f} | {dr / 1e9:.4g} GB | {dw / 1e9:.4g} GB | "
              f"{lr / 1e9:.4g} GB | {lw / 1e9:.4g} GB | {ratio} | {lw / t / 1e12:.2f} TB/s |")


if __name__ == "__main__":
    main()
