#!/usr/bin/env python3
"""Compile cost of staticpy's list/dict beside the same work on raw Boost.Hana and on std::tuple.

For every (operation, size, library) this script writes one small C++ program that does the work
and uses its result (a static_assert on what is known at compile time and an exit status that
depends on the run-time values, so that nothing can be skipped), compiles it with each compiler
(`-std=c++20 -O0 -c -o /dev/null`: parsing, instantiation and code generation all count) a few
times, and reports the median wall time and the compiler's peak resident memory. A "baseline"
program per library only includes that library's headers, so the cost of the includes and the
cost of the operation can be told apart.

    python3 benchmarks/compile_cost.py                      # full sweep, g++ and clang++
    python3 benchmarks/compile_cost.py --compilers g++ --ops list_extend --sizes 10,50 --repeat 1
    python3 benchmarks/compile_cost.py --check              # build + run every program once
    python3 benchmarks/compile_cost.py --out results.md --keep /tmp/cc_sources

Peak memory is the ru_maxrss that wait4() reports for the compiler driver, which covers the
processes it waited for (cc1plus / clang -cc1 and the assembler) - what `/usr/bin/time -f %M`
prints, measured here without its 10 ms rounding of the wall time. Only the Python standard
library is used.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INCLUDE = REPO / "include"
DICT_HEADER = INCLUDE / "staticpy" / "containers" / "dict.hpp"

LIBS = ("staticpy", "hana", "std_tuple")
LIB_TITLES = {"staticpy": "staticpy", "hana": "hana", "std_tuple": "std::tuple"}

LIST_OPS = ("list_extend", "list_count", "list_getitem")
DICT_OPS = ("dict_fromkeys", "dict_update", "dict_getitem")
ALL_OPS = LIST_OPS + DICT_OPS
DEFAULT_LIST_SIZES = (10, 50, 100, 200)
DEFAULT_DICT_SIZES = (10, 50, 100)

# The value that the run-time elements are offset from; the programs are run with argc == 1 by
# --check, and their exit status is compared with what Python computes here.
ARGC = 1

# ----------------------------------------------------------------------------------------------
# Preludes: everything a library's programs include. The baseline is the prelude and an empty
# main, so "op - baseline" is the cost of the work itself.

PRELUDES = {
    "staticpy": """\
#include <staticpy/containers/dict.hpp>
using namespace staticpy::literals;
using staticpy::int_c;
""",
    "hana": """\
#include <boost/hana/at.hpp>
#include <boost/hana/at_key.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/count.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/map.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/union.hpp>
#include <boost/hana/unpack.hpp>
namespace hana = boost::hana;
""",
    # A compile-time string key as someone using only the standard library would write one.
    "std_tuple": """\
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
template <char... Cs>
struct skey {};
""",
}


def key_name(i: int) -> str:
    return f"k{i}"


def key_expr(lib: str, i: int) -> str:
    """The compile-time string key "k<i>" in each library's own spelling."""
    name = key_name(i)
    chars = ", ".join(f"'{c}'" for c in name)
    if lib == "staticpy":
        return f'"{name}"_s'
    if lib == "hana":
        return f"hana::string_c<{chars}>"
    return f"skey<{chars}>{{}}"


def key_type(lib: str, i: int) -> str:
    chars = ", ".join(f"'{c}'" for c in key_name(i))
    return f"skey<{chars}>"


def ct_int(lib: str, v: int) -> str:
    """A compile-time int in each library's own spelling."""
    if lib == "staticpy":
        return f"int_c<{v}>"
    if lib == "hana":
        return f"hana::llong_c<{v}>"
    return f"std::integral_constant<long long, {v}>{{}}"


def make_seq(lib: str, items: list[str]) -> str:
    joined = ",\n        ".join(items)
    if lib == "staticpy":
        return f"staticpy::list(\n        {joined})"
    if lib == "hana":
        return f"hana::make_tuple(\n        {joined})"
    return f"std::make_tuple(\n        {joined})"


def at_index(lib: str, seq: str, i: int) -> str:
    if lib == "staticpy":
        return f"{seq}[int_c<{i}>]"
    if lib == "hana":
        return f"hana::at_c<{i}>({seq})"
    return f"std::get<{i}>({seq})"


def length_of(lib: str, seq: str) -> str:
    """A constant expression: the length of seq (a local variable)."""
    if lib == "staticpy":
        return f"decltype({seq})::size()"
    if lib == "hana":
        return f"decltype(hana::length({seq}))::value"
    return f"std::tuple_size_v<decltype({seq})>"


def mixed(lib: str, offset: int, n: int) -> tuple[list[str], list[int]]:
    """n elements, even positions compile-time ints, odd positions run-time ints (argc + v)."""
    exprs, values = [], []
    for i in range(n):
        v = offset + i
        if i % 2 == 0:
            exprs.append(ct_int(lib, v))
            values.append(v)
        else:
            exprs.append(f"argc + {v}")
            values.append(ARGC + v)
    return exprs, values


def make_dict(lib: str, items: list[tuple[int, str]]) -> str:
    """A dict/map/tuple-of-pairs from (key number, value expression) items."""
    if lib == "staticpy":
        body = ",\n        ".join(f"{key_expr(lib, k)} = {v}" for k, v in items)
        return f"staticpy::dict(\n        {body})"
    if lib == "hana":
        body = ",\n        ".join(f"hana::make_pair({key_expr(lib, k)}, {v})" for k, v in items)
        return f"hana::make_map(\n        {body})"
    body = ",\n        ".join(f"std::pair({key_expr(lib, k)}, {v})" for k, v in items)
    return f"std::make_tuple(\n        {body})"


def dict_get(lib: str, d: str, k: int) -> str:
    """d[key k]. std::tuple looks the key up by type: std::get<std::pair<skey<...>, int>>."""
    if lib == "staticpy":
        return f"{d}[{key_expr(lib, k)}]"
    if lib == "hana":
        return f"{d}[{key_expr(lib, k)}]"
    return f"std::get<std::pair<{key_type(lib, k)}, int>>({d}).second"


def program(lib: str, body: str) -> str:
    return f"{PRELUDES[lib]}\nint main(int argc, char**) {{\n{body}}}\n"


# ----------------------------------------------------------------------------------------------
# The operations. Each returns (C++ source, expected exit status when run with argc == 1).


def gen_baseline(lib: str, n: int) -> tuple[str, int]:
    return program(lib, "    return argc - 1;\n"), 0


def gen_list_extend(lib: str, n: int) -> tuple[str, int]:
    a, av = mixed(lib, 0, n)
    b, bv = mixed(lib, n, n)
    c = av + bv
    if lib == "staticpy":
        op = "a.extend(b)"
    elif lib == "hana":
        op = "hana::concat(a, b)"
    else:
        op = "std::tuple_cat(a, b)"
    last, first_b = 2 * n - 1, n
    body = (
        f"    auto a = {make_seq(lib, a)};\n"
        f"    auto b = {make_seq(lib, b)};\n"
        f"    auto c = {op};\n"
        f"    static_assert({length_of(lib, 'c')} == {2 * n});\n"
        f"    return static_cast<int>({at_index(lib, 'c', last)}) +\n"
        f"           static_cast<int>({at_index(lib, 'c', first_b)});\n"
    )
    return program(lib, body), (c[last] + c[first_b]) & 255


def count_values(n: int) -> list[int]:
    """Distinct values except that every 7th is a 3: ~n distinct element types, n/7 matches."""
    return [3 if i % 7 == 3 else 1000 + i for i in range(n)]


def gen_list_count(lib: str, n: int) -> tuple[str, int]:
    values = count_values(n)
    expected = values.count(3)
    elems = [ct_int(lib, v) for v in values]
    if lib == "staticpy":
        op = "l.count(int_c<3>)"
    elif lib == "hana":
        op = "hana::count(l, hana::llong_c<3>)"
    else:
        op = (
            "std::apply(\n        [](auto... e) {\n"
            "            return std::integral_constant<std::size_t,\n"
            "                (std::size_t{0} + ... + std::size_t{decltype(e)::value == 3})>{};\n"
            "        },\n        l)"
        )
    body = (
        f"    auto l = {make_seq(lib, elems)};\n"
        f"    auto c = {op};\n"
        f"    static_assert(decltype(c)::value == {expected});\n"
        f"    return static_cast<int>(decltype(c)::value) + argc - 1;\n"
    )
    return program(lib, body), expected & 255


def gen_list_getitem(lib: str, n: int) -> tuple[str, int]:
    elems, values = mixed(lib, 0, n)
    reads = "".join(f"    s += {at_index(lib, 'l', i)};\n" for i in range(n))
    body = (
        f"    auto l = {make_seq(lib, elems)};\n"
        f"    long long s = 0;\n{reads}"
        f"    return static_cast<int>(s & 255);\n"
    )
    return program(lib, body), sum(values) & 255


def gen_dict_fromkeys(lib: str, n: int) -> tuple[str, int]:
    keys = [key_expr(lib, i) for i in range(n)]
    if lib == "staticpy":
        op = "staticpy::dict.fromkeys(keys, argc)"
    elif lib == "hana":
        op = ("hana::unpack(keys, [&](auto... k) {\n"
              "        return hana::make_map(hana::make_pair(k, argc)...);\n    })")
    else:
        op = ("std::apply([&](auto... k) {\n"
              "        return std::make_tuple(std::pair(k, argc)...);\n    }, keys)")
    body = (
        f"    auto keys = {make_seq(lib, keys)};\n"
        f"    auto d = {op};\n"
        f"    static_assert({length_of(lib, 'd')} == {n});\n"
        f"    return {dict_get(lib, 'd', n - 1)} + {dict_get(lib, 'd', 0)} - 2;\n"
    )
    return program(lib, body), (2 * ARGC - 2) & 255


def gen_dict_update(lib: str, n: int) -> tuple[str, int]:
    h = n // 2
    d_items = [(i, f"argc + {i}") for i in range(n)]
    e_items = [(h + j, f"argc + {100 + j}") for j in range(n)]
    if lib == "staticpy":
        op, size = "d.update(e)", n + h
        read = f"{dict_get(lib, 'u', h)} + {dict_get(lib, 'u', 0)}"
    elif lib == "hana":
        op, size = "hana::union_(d, e)", n + h
        read = f"{dict_get(lib, 'u', h)} + {dict_get(lib, 'u', 0)}"
    else:
        # No deduplication: the key k<h> is there twice, so it is read by position (e's copy).
        op, size = "std::tuple_cat(d, e)", 2 * n
        read = f"std::get<{n}>(u).second + std::get<0>(u).second"
    body = (
        f"    auto d = {make_dict(lib, d_items)};\n"
        f"    auto e = {make_dict(lib, e_items)};\n"
        f"    auto u = {op};\n"
        f"    static_assert({length_of(lib, 'u')} == {size});\n"
        f"    return {read};\n"
    )
    # u[k<h>] is e's value (argc + 100), u[k0] is d's (argc + 0): Python's update semantics.
    return program(lib, body), (ARGC + 100 + ARGC) & 255


def gen_dict_getitem(lib: str, n: int) -> tuple[str, int]:
    items = [(i, f"argc + {i}") for i in range(n)]
    reads = "".join(f"    s += {dict_get(lib, 'd', i)};\n" for i in range(n))
    body = (
        f"    auto d = {make_dict(lib, items)};\n"
        f"    long long s = 0;\n{reads}"
        f"    return static_cast<int>(s & 255);\n"
    )
    return program(lib, body), sum(ARGC + i for i in range(n)) & 255


GENERATORS = {
    "baseline": gen_baseline,
    "list_extend": gen_list_extend,
    "list_count": gen_list_count,
    "list_getitem": gen_list_getitem,
    "dict_fromkeys": gen_dict_fromkeys,
    "dict_update": gen_dict_update,
    "dict_getitem": gen_dict_getitem,
}

OP_NOTES = {
    "baseline": "includes only",
    "list_extend": "a.extend(b) / hana::concat / std::tuple_cat",
    "list_count": "l.count(3) / hana::count / fold over std::apply",
    "list_getitem": "sum of l[i] for all i / hana::at_c / std::get<i>",
    "dict_fromkeys": "dict.fromkeys(keys, v) / hana::make_map(make_pair(k, v)...) / tuple of std::pair",
    "dict_update": "d.update(e), half the keys shared / hana::union_ / std::tuple_cat (no dedup)",
    "dict_getitem": "sum of d[k] for all keys / hana map[k] / std::get<std::pair<K, int>>",
}

# ----------------------------------------------------------------------------------------------
# Measuring


@dataclass
class Job:
    compiler: str
    op: str
    size: int
    lib: str
    source: Path
    expected: int
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    error: str | None = None

    metric: str = "wall"

    @property
    def seconds(self) -> float | None:
        values = self.times if self.metric == "wall" else self.cpu
        return statistics.median(values) if values and not self.error else None

    @property
    def mib(self) -> float | None:
        return statistics.median(self.rss_kib) / 1024 if self.rss_kib and not self.error else None


def compile_flags(extra: list[str]) -> list[str]:
    return ["-std=c++20", "-O0", f"-I{INCLUDE}", *extra]  # Boost: /usr/include, searched anyway


def first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return (text.strip().splitlines() or ["(no output)"])[0][:300]


def measure_once(job: Job, extra: list[str]) -> None:
    """One compile; wall seconds from perf_counter, peak RSS from wait4's rusage (KiB on Linux)."""
    cmd = [job.compiler, *compile_flags(extra), "-c", "-o", os.devnull, str(job.source)]
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen quiet
        if proc.returncode != 0:
            err.seek(0)
            job.error = first_error(err.read().decode(errors="replace")).replace(str(REPO), "<repo>")
            return
    job.times.append(elapsed)
    job.cpu.append(usage.ru_utime + usage.ru_stime)
    job.rss_kib.append(usage.ru_maxrss)


def check(job: Job, extra: list[str], workdir: Path) -> str | None:
    """Builds the program, runs it with argc == 1 and compares the exit status."""
    exe = workdir / (job.source.stem + ".exe")
    cmd = [job.compiler, *compile_flags(extra), str(job.source), "-o", str(exe)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return "compile error: " + first_error(res.stderr)
    run = subprocess.run([str(exe)], capture_output=True)
    exe.unlink(missing_ok=True)
    if run.returncode != job.expected:
        return f"exit status {run.returncode}, expected {job.expected}"
    return None


# ----------------------------------------------------------------------------------------------
# Reporting


def fmt_s(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def fmt_mib(x: float | None) -> str:
    return "—" if x is None else f"{x:.0f}"


def fmt_ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b <= 0:
        return "—"
    r = a / b
    return f"**{r:.2f}**" if r > 1.10 else f"{r:.2f}"


def op_only_ratio(sp: float | None, sp0: float | None, hn: float | None, hn0: float | None) -> str:
    """(staticpy - its baseline) / (hana - its baseline), when both differences are measurable."""
    if None in (sp, sp0, hn, hn0):
        return "—"
    d_sp, d_hn = sp - sp0, hn - hn0
    if d_hn < 0.05:  # below the noise of one compile: a ratio would mean nothing
        return "—"
    return fmt_ratio(max(d_sp, 0.0), d_hn)


def table(jobs: dict, compiler: str, rows: list[tuple[str, int]], footnotes: list[str]) -> str:
    out = [
        f"#### {compiler} ({compiler_version(compiler)})",
        "",
        "| operation | n | staticpy s | hana s | std::tuple s | staticpy÷hana | op only ÷ | "
        "staticpy MiB | hana MiB | std::tuple MiB | staticpy÷hana MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base = {lib: jobs.get((compiler, "baseline", 0, lib)) for lib in LIBS}
    for op, n in rows:
        cells = {lib: jobs.get((compiler, op, n, lib)) for lib in LIBS}
        secs, mibs = {}, {}
        for lib, job in cells.items():
            secs[lib] = job.seconds if job else None
            mibs[lib] = job.mib if job else None
        text_s, text_m = {}, {}
        for lib, job in cells.items():
            if job is None:
                text_s[lib] = text_m[lib] = "n/a"
            elif job.error:
                footnotes.append(f"{compiler}, {op} n={n}, {LIB_TITLES[lib]}: `{job.error}`")
                text_s[lib] = text_m[lib] = f"error[^{len(footnotes)}]"
            else:
                text_s[lib], text_m[lib] = fmt_s(secs[lib]), fmt_mib(mibs[lib])
        if op == "baseline":
            only = "—"
        else:
            only = op_only_ratio(secs["staticpy"], base["staticpy"] and base["staticpy"].seconds,
                                 secs["hana"], base["hana"] and base["hana"].seconds)
        out.append(
            f"| {op} | {n if op != 'baseline' else '—'} | {text_s['staticpy']} | {text_s['hana']} | "
            f"{text_s['std_tuple']} | {fmt_ratio(secs['staticpy'], secs['hana'])} | {only} | "
            f"{text_m['staticpy']} | {text_m['hana']} | {text_m['std_tuple']} | "
            f"{fmt_ratio(mibs['staticpy'], mibs['hana'])} |")
    return "\n".join(out)


def repo_state() -> str:
    """The commit the measured headers come from, and whether include/ had local changes."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "include"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "from a tree without git"
    return f"at commit {head}" + (" with uncommitted changes in include/" if dirty else "")


_versions: dict[str, str] = {}


def compiler_version(compiler: str) -> str:
    if compiler not in _versions:
        try:
            res = subprocess.run([compiler, "--version"], capture_output=True, text=True)
            _versions[compiler] = res.stdout.splitlines()[0].strip()
        except (OSError, IndexError):
            _versions[compiler] = "version unknown"
    return _versions[compiler]


# ----------------------------------------------------------------------------------------------


def parse_sizes(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    return tuple(int(s) for s in text.split(",") if s.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compilers", default="g++,clang++", help="comma-separated (default g++,clang++)")
    ap.add_argument("--sizes", help="sizes for every operation (default: lists 10,50,100,200; "
                                    "dicts 10,50,100)")
    ap.add_argument("--repeat", type=int, default=3, help="compiles per program; the median is "
                                                          "reported (default 3)")
    ap.add_argument("--ops", default=",".join(ALL_OPS), help="comma-separated, from: " + ", ".join(ALL_OPS))
    ap.add_argument("--libs", default=",".join(LIBS), help="comma-separated, from: " + ", ".join(LIBS))
    ap.add_argument("--out", help="also write the Markdown report to this file")
    ap.add_argument("--keep", help="write the generated sources into this directory and keep them")
    ap.add_argument("--extra-flags", default="", help="more compiler flags, e.g. '-fbracket-depth=1024'")
    ap.add_argument("--metric", choices=("wall", "cpu"), default="wall",
                    help="seconds reported: wall clock (default) or the compiler's user+system "
                         "CPU time, which a busy machine disturbs less")
    ap.add_argument("--check", action="store_true", help="instead of timing: build every program, "
                    "run it and compare its exit status with the expected one")
    args = ap.parse_args()

    compilers = [c for c in args.compilers.split(",") if c]
    for c in compilers:
        if shutil.which(c) is None:
            print(f"compile_cost.py: compiler '{c}' not found", file=sys.stderr)
            return 2
    ops = [o for o in args.ops.split(",") if o]
    for o in ops:
        if o not in GENERATORS or o == "baseline":
            ap.error(f"unknown operation '{o}'")
    libs = [lib for lib in args.libs.split(",") if lib]
    for lib in libs:
        if lib not in LIBS:
            ap.error(f"unknown library '{lib}'")
    extra = shlex.split(args.extra_flags)
    sizes = parse_sizes(args.sizes)
    have_dict = DICT_HEADER.exists()

    rows: list[tuple[str, int]] = [("baseline", 0)]
    for op in ops:
        for n in sizes or (DEFAULT_LIST_SIZES if op in LIST_OPS else DEFAULT_DICT_SIZES):
            rows.append((op, n))

    tmp = None
    if args.keep:
        srcdir = Path(args.keep)
        srcdir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="staticpy_compile_cost_")
        srcdir = Path(tmp.name)

    jobs: dict[tuple[str, str, int, str], Job] = {}
    for op, n in rows:
        for lib in libs:
            if lib == "staticpy" and op in DICT_OPS and not have_dict:
                continue  # staticpy's dict does not exist yet in this tree
            source, expected = GENERATORS[op](lib, n)
            path = srcdir / f"{op}_{n}_{lib}.cpp"
            path.write_text(source)
            for compiler in compilers:
                jobs[(compiler, op, n, lib)] = Job(compiler, op, n, lib, path, expected,
                                                   metric=args.metric)

    if args.check:
        failures = 0
        for job in jobs.values():
            problem = check(job, extra, srcdir)
            status = "ok" if problem is None else problem
            failures += problem is not None
            print(f"{job.compiler:8} {job.op:14} n={job.size:<4} {job.lib:10} {status}", flush=True)
        print(f"{len(jobs) - failures}/{len(jobs)} programs built and returned the expected status")
        return 1 if failures else 0

    # Warm-up, untimed: the first compile of a run pays for reading the headers from disk.
    for job in jobs.values():
        if job.op == "baseline":
            measure_once(Job(job.compiler, job.op, job.size, job.lib, job.source, job.expected), extra)

    started = time.perf_counter()
    order = list(jobs.values())
    # Round-robin over the repeats, so that drift in the machine's speed spreads over every
    # library alike instead of landing on whichever was compiled last.
    for rep in range(args.repeat):
        for i, job in enumerate(order, 1):
            if job.error:
                continue
            measure_once(job, extra)
            mark = "error" if job.error else f"{job.times[-1]:.2f}s"
            print(f"\r[{rep + 1}/{args.repeat}] {i}/{len(order)} {job.compiler} {job.op} "
                  f"n={job.size} {job.lib}: {mark}      ", end="", file=sys.stderr, flush=True)
    total = time.perf_counter() - started
    print(file=sys.stderr)

    footnotes: list[str] = []
    flags = " ".join(compile_flags(extra)).replace(str(INCLUDE), "<repo>/include")
    report = [
        "### Compile cost: staticpy vs raw Boost.Hana vs std::tuple",
        "",
        f"Median of {args.repeat} compile(s) per program ({'wall-clock' if args.metric == 'wall' else 'user+system CPU'} "
        f"seconds), `<compiler> {flags} -c -o /dev/null`; peak RSS of the compiler. "
        f"Sweep took {total:.0f} s on {os.cpu_count()} CPU(s), {platform.machine()}; "
        f"staticpy {repo_state()}.",
        "",
        f"Command: `python3 benchmarks/compile_cost.py {' '.join(shlex.quote(a) for a in sys.argv[1:])}`",
        "",
        "* **staticpy÷hana** > 1 means staticpy is slower (bold above 1.10). **op only ÷** compares "
        "the cost of the work alone: (staticpy − staticpy baseline) ÷ (hana − hana baseline), shown "
        "where hana's own work takes ≥ 0.05 s.",
        "* std::tuple does no deduplication in dict_update (it keeps 2n pairs, Python and Hana "
        "n + n/2) and no key checking anywhere: it is the floor, not the same semantics.",
    ]
    if not have_dict:
        report.append("* staticpy's dict is not in this tree yet (no containers/dict.hpp): n/a.")
    report.append("")
    for compiler in compilers:
        report.append(table(jobs, compiler, rows, footnotes))
        report.append("")
    if footnotes:
        report.extend(f"[^{i}]: {text}" for i, text in enumerate(footnotes, 1))
        report.append("")
    text = "\n".join(report)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
