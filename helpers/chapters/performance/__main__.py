"""``python -m helpers.chapters.performance``: the benchmark (see
:mod:`helpers.chapters.performance.benchmark`)."""

import argparse
import json
import sys
from pathlib import Path

from . import benchmark as bm
from .book_times import book_chapter_seconds, chapter_times
from .report import records

PROG = "python -m helpers.chapters.performance"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description=bm.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = ap.add_argument
    nets = sorted(bm.NETWORKS)
    add("--networks", nargs="+", default=["section4", "depth"], choices=nets)
    add("--seeds", nargs="+", type=int, help="seed counts (default 1 8 64)")
    text = f"multiply the seed-epochs per configuration and round {bm.FULL_SEED_EPOCHS}"
    add("--scale", type=float, default=1.0, help=text)
    add("--min-epochs", type=int, default=100)
    add("--rounds", type=int, help="timed rounds per method (default 3, --quick 2)")
    text = "the reduced benchmark the Performance page runs (no records written)"
    add("--quick", action="store_true", help=text)
    text = f"results JSON (default {bm.BENCHMARK_JSON}; --quick: {bm.QUICK_JSON})"
    add("--out", type=Path, help=text)
    text = "do not write book/results/performance.json"
    add("--no-records", action="store_true", help=text)
    return ap


def main(argv=None) -> None:
    """Run the benchmark of the command line ``argv``, store it and its records."""
    args = _parser().parse_args(argv)
    if args.scale <= 0:
        raise SystemExit("--scale must be positive")
    quick = args.quick
    base = bm.QUICK_SEED_EPOCHS if quick else bm.FULL_SEED_EPOCHS
    out = args.out or (bm.QUICK_JSON if quick else bm.BENCHMARK_JSON)
    bench = bm.run_benchmark(
        args.networks,
        {n: args.seeds or ([1, 8] if quick else [1, 8, 64]) for n in args.networks},
        seed_epochs={n: max(1, round(base[n] * args.scale)) for n in args.networks},
        min_epochs=min(args.min_epochs, 50) if quick else args.min_epochs,
        rounds=args.rounds or (2 if quick else 3),
        label="quick" if quick else "full",
    )
    bench["command"] = " ".join([PROG, *(sys.argv[1:] if argv is None else argv)])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(bench, indent=2, sort_keys=True) + "\n")
    bm.say(f"wrote {out}")
    print(bm.summary_text(bench))
    if not args.no_records and not quick:
        secs, present = book_chapter_seconds()
        paper = chapter_times(profile="paper")
        where = out.resolve()
        where = where.relative_to(bm.ROOT) if where.is_relative_to(bm.ROOT) else out
        rec = records(bench, secs, present, paper and paper["seconds"], str(where))
        bm.say(f"wrote {rec.save()}")


if __name__ == "__main__":
    main()
