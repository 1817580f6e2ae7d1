#!/usr/bin/env python3
"""Compile cost of each public staticpy header alone (issue 9).

For every public header (include/staticpy/**.hpp outside detail/) this writes a translation unit

    #include <staticpy/...>
    int main() {}

and compiles it with `CXX -std=c++20 -O0 -c -o /dev/null -I include`, beside two references compiled
in the same run: `#include <boost/hana.hpp>` and a TU with `<string>` + `<vector>` only. Every
repetition compiles every TU once (interleaved), so a slow minute on a shared machine hits all of
them alike. The figure is the compiler's CPU time (user + sys of the compiler and its children, from
wait4()), median of --repeat runs, in seconds. Prints a Markdown table.

    python3 benchmarks/header_cost.py [--cxx g++] [--repeat 3] [--out FILE] [--flag=-fopenmp ...]

--before DIR also compiles each header from another include tree (e.g. an older commit's, made with
`git archive COMMIT include | tar -x -C DIR`) in the same run, and adds a "before" column.

Python 3 standard library only.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"

HANA_USED = ["at", "at_key", "concat", "count", "integral_constant", "length", "map", "pair",
             "string", "tuple"]
REFERENCES = [
    ("`<string>` + `<vector>`", "#include <string>\n#include <vector>\n"),
    ("`<boost/hana.hpp>`", "#include <boost/hana.hpp>\n"),
    ("Hana's headers of `compile_cost.py` (tuple, map, string, ...)",
     "".join(f"#include <boost/hana/{h}.hpp>\n" for h in HANA_USED)),
]


def public_headers():
    out = []
    for p in sorted((INCLUDE / "staticpy").rglob("*.hpp")):
        rel = p.relative_to(INCLUDE).as_posix()
        if "/detail/" in rel:
            continue
        out.append(rel)
    return out


def cpu_seconds(cmd):
    """Runs cmd, returns (user + sys CPU seconds of it and its children, return code)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, proc.returncode, err


def order_key(header):
    layers = ["core", "containers", "kernels", "tensor", "graph", "backend", "nn", "data"]
    parts = header.split("/")
    if len(parts) == 2:  # an umbrella or front at the top of include/staticpy/
        name = parts[1][:-4]
        if name == "staticpy":
            return (len(layers) + 1, 0, header)
        if name == "jit":
            return (layers.index("backend"), 0, header)
        return (layers.index(name) if name in layers else len(layers), 0, header)
    layer = parts[1]
    return (layers.index(layer) if layer in layers else len(layers), 1, header)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--flag", action="append", default=[], help="extra compiler flag (repeatable)")
    ap.add_argument("--only", action="append", default=[],
                    help="measure only headers whose path contains this (repeatable)")
    ap.add_argument("--out", help="write the table here as well")
    ap.add_argument("--before", help="an older include/ tree (DIR/include) measured in the same run")
    args = ap.parse_args()

    headers = public_headers()
    if args.only:
        headers = [h for h in headers if any(s in h for s in args.only)]
    headers.sort(key=order_key)

    before_inc = pathlib.Path(args.before).resolve() / "include" if args.before else None
    units = [(label, text, INCLUDE) for label, text in REFERENCES]
    units += [(f"`{h}`", f"#include <{h}>\n", INCLUDE) for h in headers]
    if before_inc:
        units += [(f"before `{h}`", f"#include <{h}>\n", before_inc) for h in headers
                  if (before_inc / h).exists()]

    times = {label: [] for label, _, _ in units}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, (label, text, inc) in enumerate(units):
            path = pathlib.Path(tmp) / f"tu{i}.cpp"
            path.write_text(text + "int main() {}\n")
            files.append((label, path, inc))
        for r in range(args.repeat):
            for label, path, inc in files:
                cmd = [args.cxx, "-std=c++20", "-O0", *args.flag, "-I", str(inc),
                       "-c", "-o", os.devnull, str(path)]
                t, rc, err = cpu_seconds(cmd)
                if rc != 0:
                    sys.exit(f"{label}: compile failed ({rc}):\n{err}")
                times[label].append(t)
            print(f"repetition {r + 1}/{args.repeat} done", file=sys.stderr)

    med = {label: statistics.median(ts) for label, ts in times.items()}
    sv = med[REFERENCES[0][0]]
    hana = med[REFERENCES[2][0]]
    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    flags = " ".join(["-std=c++20", "-O0", *args.flag])
    lines = [
        f"{version}, `{flags} -c`, CPU seconds (user + sys), median of {args.repeat}, one run; "
        "× Hana: over the Hana headers that `compile_cost.py`'s programs include:",
        "",
        "| header alone | CPU s | × Hana | × `<string>`+`<vector>` |" + (" before | after / before |" if before_inc else ""),
        "|---|---:|---:|---:|" + ("---:|---:|" if before_inc else ""),
    ]
    for label, _, inc in units:
        if label.startswith("before "):
            continue
        row = f"| {label} | {med[label]:.2f} | {med[label] / hana:.2f} | {med[label] / sv:.2f} |"
        if before_inc:
            b = med.get("before " + label)
            row += f" {b:.2f} | {med[label] / b:.2f} |" if b is not None else " — | — |"
        lines.append(row)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        pathlib.Path(args.out).write_text(table)


if __name__ == "__main__":
    main()
