"""Turn pytest-benchmark's JSON into bench/RESULTS.md: machine, versions, date, every figure as median and ratio to
the baseline measured beside it in the same run."""

from __future__ import annotations

import json
import platform
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


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
        *load_line(machine),
        "",
        "Each table is one benchmark group, measured side by side in one run; the ratio is median / median of the "
        "group's baseline (marked *). A *paired ratio* is the median of per-round ratios: that benchmark also ran "
        "the baseline's statement (on tables of its own, outside its timing) right before each of its rounds, so "
        "both sides of each ratio saw the same machine load.",
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
            extra.pop("breakdown", None)
            rate = f"{entries / median:,.0f} entries/s" if entries else ""
            star = " *" if bench is baseline else ""
            paired = extra.pop("paired_ratio", None)
            baseline_key = next((k for k in extra if k.startswith("paired_") and k.endswith("_median_s")), None)
            paired_plain = extra.pop(baseline_key, None) if baseline_key else None  # a baseline of another name too
            bad_per_100 = extra.pop("bad_per_100", None)
            extras = ", ".join(f"{k}={v}" for k, v in extra.items())
            if "reads" in extra:  # the readers group: what matters is the reads, not the time
                extras = f"**{bad_per_100} bad reads per 100**, {extras}"
            if paired is not None:
                same_rounds = f" (baseline in the same rounds: {fmt_seconds(paired_plain)})" if paired_plain else ""
                extras = f"**paired ratio {paired:.2f}x**{same_rounds}" + (f", {extras}" if extras else "")
            ratio = f"{median / base:.2f}x"
            lines.append(f"| {bench['name']}{star} | {fmt_seconds(median)} | {ratio} | {rate} | {extras} |")
        lines.append("")
    lines += breakdown_sections(groups)
    Path(target).write_text("\n".join(lines))
    print("\n".join(lines))


def load_line(machine: dict[str, Any]) -> list[str]:
    """The load average (1, 5, 15 min) when the run started and ended: wall times move with other processes."""
    start, end = machine.get("loadavg_start"), machine.get("loadavg_end")
    if not start or not end:
        return []
    return [f"- load average (1/5/15 min): {'/'.join(map(str, start))} at start, {'/'.join(map(str, end))} at end"]


def breakdown_sections(groups: dict[str, list[dict[str, Any]]]) -> list[str]:
    """One table per group whose benchmarks carry ``extra_info["breakdown"]`` (see bench/profiler.py): where
    the time of one statement goes, as the mean per round, with a column per benchmark of the group."""
    lines: list[str] = []
    for group, benches in groups.items():
        profiled = [b for b in benches if b.get("extra_info", {}).get("breakdown")]
        if not profiled:
            continue
        figures = [b["extra_info"]["breakdown"] for b in profiled]
        rounds = ", ".join(str(f["rounds"]) for f in figures)
        lines += [
            f"## Where the time goes: {group.removeprefix('breakdown: ')}",
            "",
            f"Means per statement over the measured rounds ({rounds}); categories add up to the wall time. "
            "Catalog methods count outermost calls (their time includes the engine calls below them); engine calls "
            "are timed where the catalog makes them, row fetching included.",
            "",
            "| | " + " | ".join(b["name"] for b in profiled) + " |",
            "|---|" + "---|" * len(profiled),
            "| **wall time** | " + " | ".join(f"**{f['wall_ms']:.1f} ms**" for f in figures) + " |",
        ]
        categories = [c["category"] for c in figures[0]["categories"]]
        for category in categories:
            cells = []
            for f in figures:
                found = next((c for c in f["categories"] if c["category"] == category), None)
                cells.append(f"{found['ms']:.1f} ms ({found['share']:.0%})" if found and found["ms"] else "")
            lines.append(f"| {category} | " + " | ".join(cells) + " |")
        items = sorted({(i["category"], i["item"]) for f in figures for i in f["items"]}, key=_item_order)
        section = None
        for category, item in items:
            heading = "counters" if category == "counter" else category
            if heading != section:
                section = heading
                lines.append(f"| *{heading}* |" + " |" * len(profiled))
            cells = []
            for f in figures:
                found = next((i for i in f["items"] if (i["category"], i["item"]) == (category, item)), None)
                cells.append(_item_cell(found))
            lines.append(f"| {item.strip()} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _item_order(key: tuple[str, str]) -> tuple[int, str]:
    order = ["counter", "log writes", "catalog method", "Spark jobs", "metastore calls", "catalog, Python side"]
    category, item = key
    return (order.index(category) if category in order else len(order), item)


def _item_cell(item: dict[str, Any] | None) -> str:
    if item is None:
        return ""
    if item["category"] == "counter":
        return f"{item['calls']:g}"
    text = f"{item['ms']:.1f} ms"
    if item["calls"]:
        text = f"{item['calls']:g} x, " + (text if item["ms"] else "(time in the outer call)")
    if item.get("spark_jobs"):
        text += f", {item['spark_jobs']:g} Spark job(s)"
    return text


def versions() -> str:
    found = []
    for module in ("pyspark", "msgpack", "transitions", "psycopg"):
        try:
            found.append(f"{module} {__import__(module).__version__}")
        except (ImportError, AttributeError):
            continue
    return ", ".join(found)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
