"""Turn pytest-benchmark's JSON into bench/RESULTS.md: machine, versions, date, every figure as median and ratio to
the baseline measured beside it in the same run."""

from __future__ import annotations

import json
import platform
import sys
from collections import defaultdict
from pathlib import Path


def fmt_seconds(value: float) -> str:
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


def main(source: str, target: str) -> None:
    data = json.loads(Path(source).read_text())
    machine = data.get("machine_info", {})
    lines = [
        "# Benchmark results",
        "",
        f"- date: {data.get('datetime', '?')}",
        f"- machine: {machine.get('cpu', {}).get('brand_raw', platform.processor())}, "
        f"{machine.get('cpu', {}).get('count', '?')} cores, {platform.system()} {platform.release()}",
        f"- python: {machine.get('python_version', sys.version.split()[0])}",
        f"- versions: {versions()}",
        "",
        "Each table is one benchmark group, measured side by side in one run; the ratio is median / median of the "
        "group's baseline (marked *).",
        "",
    ]
    groups: dict[str, list[dict]] = defaultdict(list)
    for bench in data["benchmarks"]:
        groups[bench.get("group") or "other"].append(bench)
    for group, benches in groups.items():
        baseline = next((b for b in benches if b.get("extra_info", {}).get("baseline")), benches[0])
        base = baseline["stats"]["median"]
        lines += [f"## {group}", "", "| benchmark | median | ratio | per second | extra |", "|---|---|---|---|---|"]
        for bench in benches:
            median = bench["stats"]["median"]
            extra = dict(bench.get("extra_info", {}))
            entries = extra.pop("entries", None)
            extra.pop("baseline", None)
            rate = f"{entries / median:,.0f} entries/s" if entries else ""
            star = " *" if bench is baseline else ""
            extras = ", ".join(f"{k}={v}" for k, v in extra.items())
            ratio = f"{median / base:.2f}x"
            lines.append(f"| {bench['name']}{star} | {fmt_seconds(median)} | {ratio} | {rate} | {extras} |")
        lines.append("")
    Path(target).write_text("\n".join(lines))
    print("\n".join(lines))


def versions() -> str:
    found = []
    for module in ("pyspark", "msgpack", "transitions"):
        try:
            found.append(f"{module} {__import__(module).__version__}")
        except (ImportError, AttributeError):
            continue
    return ", ".join(found)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
