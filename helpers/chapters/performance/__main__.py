"""``python -m helpers.chapters.performance``: the benchmark (see
:mod:`helpers.chapters.performance.benchmark`)."""

import argparse
import json
import sys
from pathlib import Path

from . import benchmark
from .benchmark import (
    BENCHMARK_JSON,
    FULL_SEED_EPOCHS,
    NETWORKS,
    QUICK_SEED_EPOCHS,
    ROOT,
    run_benchmark,
    say,
    summary_text,
)
from .book_times import book_chapter_seconds, chapter_times
from .report import records


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m helpers.chapters.performance",
        description=benchmark.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = ap.add_argument
    add(
        "--networks", nargs="+", default=["section4", "depth"], choices=sorted(NETWORKS)
    )
    add("--seeds", nargs="+", type=int, help="seed counts (default 1 8 64)")
    text = f"multiply the seed-epochs per configuration and round {FULL_SEED_EPOCHS}"
    add("--scale", type=float, default=1.0, help=text)
    add("--min-epochs", type=int, default=100)
    add("--rounds", type=int, help="timed rounds per method (default 3, --quick 2)")
    text = "the reduced benchmark the Performance page runs (no records written)"
    add("--quick", action="store_true", help=text)
    text = (
        f"results JSON (default {BENCHMARK_JSON}; --quick: _build/benchmark_quick.json)"
    )
    add("--out", type=Path, help=text)
    text = "do not write book/results/performance.json"
    add("--no-records", action="store_true", help=text)
    return ap


def _write_records(bench: dict, out: Path) -> None:
    secs, present = book_chapter_seconds()
    paper = chapter_times(profile="paper")
    try:
        where = str(out.resolve().relative_to(ROOT))
    except ValueError:
        where = str(out)
    rec = records(bench, secs, present, paper and paper["seconds"], source=where)
    say(f"wrote {rec.save()}")


def main(argv=None) -> None:
    """Run the benchmark of the command line ``argv``, store it and its records."""
    args = _parser().parse_args(argv)
    if args.scale <= 0:
        raise SystemExit("--scale must be positive")
    base = QUICK_SEED_EPOCHS if args.quick else FULL_SEED_EPOCHS
    counts = [1, 8] if args.quick else [1, 8, 64]
    seeds = {n: args.seeds or counts for n in args.networks}
    quick_out = ROOT / "_build" / "benchmark_quick.json"
    out = args.out or (quick_out if args.quick else BENCHMARK_JSON)
    bench = run_benchmark(
        args.networks,
        seeds,
        seed_epochs={
            n: max(1, int(round(base[n] * args.scale))) for n in args.networks
        },
        min_epochs=min(args.min_epochs, 50) if args.quick else args.min_epochs,
        rounds=args.rounds or (2 if args.quick else 3),
        label="quick" if args.quick else "full",
    )
    cmd = argv if argv is not None else sys.argv[1:]
    bench["command"] = " ".join(["python -m helpers.chapters.performance", *cmd])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(bench, indent=2, sort_keys=True) + "\n")
    say(f"wrote {out}")
    print(summary_text(bench))
    if not args.no_records and not args.quick:
        _write_records(bench, out)


if __name__ == "__main__":
    main()
