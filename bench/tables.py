"""The one formatter of bench/'s table writers (accuracy_table, fleet_table, gemm_pair, peers_table, step_sweep_table,
place_table, repeatability, torch_reference, torch_whole_step): units, percentages, times, sizes, the
dash for a missing value and the error exit. A writer imports what it prints with; none keeps its own.

Conventions (as roofline's own views print them, include/roofline/units.hpp): a missing value is "—";
SI prefixes on rates (GB/s = 1e9 B/s, TFLOP/s = 1e12 FLOP/s); binary prefixes on sizes (KiB, MiB, GiB);
a percentage has a space before "%"."""
import sys

DASH = "—"
KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


def fmt(x, spec):
    """x through a format spec, or the dash."""
    return DASH if x is None else format(x, spec)


def us(s, spec=",.1f"):
    """Seconds as microseconds: us(2.5e-6) == "2.5 µs"."""
    return DASH if s is None else f"{s * 1e6:{spec}} µs"


def ms(s, spec=".3f"):
    """Seconds as milliseconds: ms(0.0012) == "1.200 ms"."""
    return DASH if s is None else f"{s * 1e3:{spec}} ms"


def pct(x, spec=".1f"):
    """A fraction as a percentage: pct(0.123) == "12.3 %"."""
    return DASH if x is None else f"{100 * x:{spec}} %"


def si(v, unit):
    """Three significant digits with an SI prefix: si(4.6e12, "B/s") == "4.6 TB/s"."""
    for p, s in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= p:
            return f"{v / p:.3g} {s}{unit}"
    return f"{v:.3g} {unit}"


def rate(x, unit):
    """A roof: FLOP/s in TFLOP/s with one decimal ("flop"), else bytes/s in whole GB/s."""
    if x is None:
        return DASH
    return f"{x / 1e12:.1f} TFLOP/s" if unit == "flop" else f"{x / 1e9:.0f} GB/s"


def gbs(x):
    """Bytes/s as a GB/s number without unit: whole GB/s from 1 TB/s up, one decimal below."""
    return DASH if not x else f"{x / 1e9:,.0f}" if x >= 1e12 else f"{x / 1e9:.1f}"


def size(b):
    """Bytes with a binary prefix, four significant digits: size(3 * MIB) == "3 MiB"."""
    if b >= GIB:
        return f"{b / GIB:.4g} GiB"
    return f"{b / MIB:.4g} MiB" if b >= MIB else f"{b / KIB:.4g} KiB"


def yes_no(ok):
    """A target's verdict cell: yes, **no**, or the dash when not judged."""
    return DASH if ok is None else ("yes" if ok else "**no**")


def die(prog, msg):
    """An input error: one line on stderr naming the script, exit status 2 (as roofline's own)."""
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


# The vocabulary the writers share with roofline's results (include/roofline/vocabulary.hpp names them).
DEVICE_MEMORY = ("dram", "hbm")  # the levels a results.json may call device memory
PLACE_CLASSES = ["at_roof", "bandwidth", "compute", "below_both", "launch_bound", "unattributed"]  # place.json's classes
GEMM_TARGET_PRECISIONS = ("fp16", "bf16", "tf32", "fp8")  # the GEMM target (≥ 1.00× PyTorch at n ≥ 2048) covers these
