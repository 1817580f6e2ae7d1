#!/usr/bin/env bash
# Issue 11's training-epoch benchmarks in one run: installs the bench dependencies (only the
# missing ones), configures a Release build with the benchmarks on, builds epoch_staticpy,
# epoch_libtorch and epoch_dlib (-O3 -march=native; the peers when CMake found them), then trains
# on Fashion-MNIST with every library, every way of feeding it and every thread setting, one
# process per case, each for a few epochs with the test accuracy after each, in rounds (each round
# runs every case once, so a slow minute of a shared machine hits all alike), and prints Markdown
# tables: seconds per epoch (data loading included) and time to a test accuracy, each peer at its
# fastest thread setting; the sweep of the settings; the issue's targets. Then, unless
# EPOCH_COMPILE_COST=0, the compile cost of the training example beside dlib's and libtorch's
# (part 1 of benchmarks/compile_cost.sh).
#
#   benchmarks/run_epoch_benchmarks.sh [build-dir]      (default build/bench)
#
# The cases (network: mlp, and cnn where the program trains it):
#   staticpy   epoch_staticpy: the DataLoader with EPOCH_STATICPY_WORKERS workers, threads 1, 2
#   PyTorch    epoch_pytorch.py: DataLoader over a TensorDataset / in-memory index_select batching,
#              each eager and torch.jit.trace'd; torch threads x OpenBLAS threads
#   libtorch   epoch_libtorch: in-memory index_select batching; torch threads x OpenBLAS threads
#   dlib       epoch_dlib: dnn_trainer::train_one_step / the lower-level loop; OpenBLAS threads
# MLP 784-128-10 and LeNet-5, batch 64, SGD lr 0.1, shuffled each epoch (each program's header
# says how).
#
# Environment:
#   EPOCH_NETS="mlp cnn"       the networks
#   EPOCH_EPOCHS_MLP=5         epochs per process, MLP (the issue: >= 84 % after 1, >= 87 % after 5)
#   EPOCH_EPOCHS_CNN=2         epochs per process, CNN (the issue: >= 89 % after 2)
#   EPOCH_TARGET_MLP=0.84      the test accuracy of "time to accuracy", MLP
#   EPOCH_TARGET_CNN=0.89      the same, CNN
#   EPOCH_ROUNDS=3             rounds
#   EPOCH_THREADS="1 2"        the thread counts swept (the library's own and OpenBLAS's)
#   EPOCH_STATICPY_WORKERS="0 1"   the DataLoader's num_workers for staticpy
#   EPOCH_PYTORCH_WORKERS="0"  num_workers of PyTorch's DataLoader cases
#   EPOCH_STATICPY_EAGER=0     1: also staticpy's step in PYNATIVE_MODE (eager)
#   EPOCH_PEERS="staticpy pytorch libtorch dlib"   which programs run
#   EPOCH_OUT_DIR=dir          raw results (default <build-dir>/epoch-bench)
#   EPOCH_SKIP_BUILD=1         use the binaries already in <build-dir>
#   EPOCH_COMPILE_COST=1       0: leave out the compile cost (compile_cost.sh's part 1; ~8 min)
#   BENCH_BUILD_JOBS=1         parallel compile jobs
#   BENCH_CMAKE_ARGS=...       extra arguments for the configure step
#   PYTORCH_PYTHON=/usr/bin/python3   the interpreter with Debian's python3-torch
#
# A smoke test of every program (one epoch, one round, one thread setting, no compile cost):
#   EPOCH_ROUNDS=1 EPOCH_EPOCHS_MLP=1 EPOCH_EPOCHS_CNN=1 EPOCH_THREADS=1 EPOCH_COMPILE_COST=0 \
#       benchmarks/run_epoch_benchmarks.sh build/mine
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
build="$(mkdir -p "$build" && cd "$build" && pwd)"
nets="${EPOCH_NETS:-mlp cnn}"
rounds="${EPOCH_ROUNDS:-3}"
threads="${EPOCH_THREADS:-1 2}"
sp_workers="${EPOCH_STATICPY_WORKERS:-0 1}"
pt_workers="${EPOCH_PYTORCH_WORKERS:-0}"
peers="${EPOCH_PEERS:-staticpy pytorch libtorch dlib}"
out="${EPOCH_OUT_DIR:-$build/epoch-bench}"
jobs="${BENCH_BUILD_JOBS:-1}"
python="${PYTORCH_PYTHON:-/usr/bin/python3}"
bin="$build/benchmarks"

epochs_of() { if [[ $1 == mlp ]]; then echo "${EPOCH_EPOCHS_MLP:-5}"; else echo "${EPOCH_EPOCHS_CNN:-2}"; fi; }
wants() { [[ " $peers " == *" $1 "* ]]; }

if [[ "${EPOCH_SKIP_BUILD:-0}" != 1 ]]; then
    "$root/scripts/install-deps.sh" bench >&2
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$build" -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_BUILD_TESTS=OFF \
        -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${BENCH_CMAKE_ARGS:-} >&2
    # the target list in a variable first: grep -q on a pipe would exit at the first match and,
    # under pipefail, the SIGPIPE cmake gets would make the test false
    target_list="$(cmake --build "$build" --target help 2>/dev/null || true)"
    for t in epoch_staticpy epoch_libtorch epoch_dlib; do
        if grep -q -w "$t" <<<"$target_list"; then # the peers: built when CMake found them
            echo "run_epoch_benchmarks: building $t (minutes) ..." >&2
            cmake --build "$build" --target "$t" -j "$jobs" >&2
        fi
    done
fi

# ---- the cases: one command line each -----------------------------------------------------------
cases=()
staticpy_nets=""
# --list-nets prints the choices of --net, "mlp|cnn"
[[ -x "$bin/epoch_staticpy" ]] && staticpy_nets="$("$bin/epoch_staticpy" --list-nets | tr '|' ' ')"
have_pytorch=0
if wants pytorch; then
    if "$python" -c 'import torch' 2>/dev/null; then
        have_pytorch=1
    else
        echo "run_epoch_benchmarks: $python has no torch (apt-get install python3-torch):" \
            "PyTorch rows left empty" >&2
    fi
fi
for net in $nets; do
    e="$(epochs_of "$net")"
    if wants staticpy && [[ " $staticpy_nets " == *" $net "* ]]; then
        modes=graph
        [[ "${EPOCH_STATICPY_EAGER:-0}" == 1 ]] && modes="graph eager"
        for m in $modes; do for w in $sp_workers; do for t in $threads; do
            cases+=("$bin/epoch_staticpy --net $net --epochs $e --variant $m --workers $w --threads $t")
        done; done; done
    elif wants staticpy; then
        echo "run_epoch_benchmarks: epoch_staticpy does not train the $net yet: its rows stay empty" >&2
    fi
    if [[ $have_pytorch == 1 ]]; then
        for v in dataloader memory dataloader_trace memory_trace; do
            ws=0
            [[ $v == dataloader* ]] && ws="$pt_workers"
            for w in $ws; do for t in $threads; do for b in $threads; do
                cases+=("$python $root/benchmarks/epoch_pytorch.py --net $net --epochs $e --variant $v --workers $w --threads $t --blas-threads $b")
            done; done; done
        done
    fi
    if wants libtorch && [[ -x "$bin/epoch_libtorch" ]]; then
        for t in $threads; do for b in $threads; do
            cases+=("$bin/epoch_libtorch --net $net --epochs $e --threads $t --blas-threads $b")
        done; done
    fi
    if wants dlib && [[ -x "$bin/epoch_dlib" ]]; then
        for v in trainer loop; do for b in $threads; do
            cases+=("$bin/epoch_dlib --net $net --epochs $e --variant $v --blas-threads $b")
        done; done
    fi
done
wants libtorch && [[ ! -x "$bin/epoch_libtorch" ]] &&
    echo "run_epoch_benchmarks: no $bin/epoch_libtorch (libtorch-dev): libtorch rows left empty" >&2
wants dlib && [[ ! -x "$bin/epoch_dlib" ]] &&
    echo "run_epoch_benchmarks: no $bin/epoch_dlib (libdlib-dev): dlib rows left empty" >&2

# ---- the rounds ---------------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
for ((r = 1; r <= rounds; ++r)); do
    for i in "${!cases[@]}"; do
        echo "run_epoch_benchmarks: round $r of $rounds, case $((i + 1)) of ${#cases[@]}:" \
            "${cases[$i]#"$root/"}" >&2
        # shellcheck disable=SC2086
        if ! ${cases[$i]} --seed $((r - 1)) >"$out/r$r-c$i.jsonl" 2>"$out/log.txt"; then
            cat "$out/log.txt" >&2
            echo "${cases[$i]}" >>"$out/failed.txt"
        fi
    done
done
elapsed=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "$elapsed" "$rounds" "$load_before" "$load_after" \
    "${EPOCH_TARGET_MLP:-0.84}" "${EPOCH_TARGET_CNN:-0.89}" "$nets" <<'PY'
import glob, json, os, statistics, subprocess, sys
from collections import defaultdict

out, elapsed, rounds, load_before, load_after, target_mlp, target_cnn, nets = sys.argv[1:9]
targets = {"mlp": float(target_mlp), "cnn": float(target_cnn)}
nets = nets.split()

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""

# runs[(net, peer, variant, setting)] = list of runs (one per round, each with the round's seed),
# each a list of epoch records in order
runs = defaultdict(list)
for path in sorted(glob.glob(os.path.join(out, "r*-c*.jsonl"))):
    recs = [json.loads(l) for l in open(path) if l.startswith("{")]
    if recs:
        r0 = recs[0]
        runs[(r0["net"], r0["peer"], r0["variant"], r0["setting"])].append(
            sorted(recs, key=lambda r: r["epoch"]))

NAMES = {
    ("staticpy", "graph_w0"): "staticpy, DataLoader, 0 workers",
    ("staticpy", "graph_w1"): "staticpy, DataLoader, 1 worker",
    ("staticpy", "graph_w2"): "staticpy, DataLoader, 2 workers",
    ("staticpy", "eager_w0"): "staticpy eager, DataLoader, 0 workers",
    ("staticpy", "eager_w1"): "staticpy eager, DataLoader, 1 worker",
    ("pytorch", "dataloader_w0"): "PyTorch, DataLoader",
    ("pytorch", "dataloader_w1"): "PyTorch, DataLoader, 1 worker",
    ("pytorch", "dataloader_trace_w0"): "PyTorch jit.trace, DataLoader",
    ("pytorch", "dataloader_trace_w1"): "PyTorch jit.trace, DataLoader, 1 worker",
    ("pytorch", "memory"): "PyTorch, in memory (index_select)",
    ("pytorch", "memory_trace"): "PyTorch jit.trace, in memory (index_select)",
    ("libtorch", "memory"): "libtorch, in memory (index_select)",
    ("dlib", "trainer"): "dlib, dnn_trainer::train_one_step",
    ("dlib", "loop"): "dlib, compute_parameter_gradients + update_parameters",
}
ORDER = list(NAMES)

def name(peer, variant):
    return NAMES.get((peer, variant), f"{peer}, {variant}")

def short(setting):
    s = setting.replace("threads:", "").replace("torch:", "torch ").replace("/blas:", ", BLAS ")
    s = s.replace("blas:", "BLAS ")
    return s + " thr" if s.isdigit() else s

def epoch_times(net, peer, variant, setting):
    return [e["train_s"] for run in runs[(net, peer, variant, setting)] for e in run]

def fastest(net, peer, variant):
    cands = [(statistics.median(epoch_times(net, peer, variant, s)), s)
             for (n, p, v, s) in runs if (n, p, v) == (net, peer, variant)]
    return min(cands) if cands else (None, None)

def to_target(run, target):
    """(epochs, seconds of training) until the test accuracy first reaches target, or None."""
    total = 0.0
    for e in run:
        total += e["train_s"]
        if e["test_acc"] >= target:
            return e["epoch"], total
    return None

def acc_after(net, peer, variant, setting, epoch):
    """The test accuracy after `epoch`: (median, min, max) over the rounds (their seeds)."""
    v = [run[epoch - 1]["test_acc"] for run in runs[(net, peer, variant, setting)]
         if len(run) >= epoch]
    return (statistics.median(v), min(v), max(v)) if v else None

pct = lambda a: "" if a is None else f"{100 * a:.2f} %"

def acc_cell(a):
    if a is None:
        return ""
    med, lo, hi = a
    return pct(med) if lo == hi else f"{pct(med)} ({100 * lo:.2f}–{100 * hi:.2f})"

print("```")
print(sh("lscpu | grep -E '^(Model name|CPU\\(s\\)|Thread|Core|Socket|L2|L3|Hypervisor)' "
         "| sed 's/  */ /g'"))
print(sh("free -g | awk '/Mem:/{print \"Memory: \" $2 \" GiB\"}'"))
print(sh("g++ --version | head -1"))
print(sh("dpkg-query -W -f='${Package} ${Version}\\n' python3-torch libtorch-dev libdlib-dev "
         "libopenblas0-pthread dataset-fashion-mnist 2>/dev/null"))
print(f"load average before / after: {load_before} / {load_after}; runs: {elapsed} s, "
      f"{rounds} round(s)")
print("```\n")

summary = {}  # net -> list of (seconds per epoch, name, peer, row info)
for net in nets:
    keys = sorted({(p, v) for (n, p, v, s) in runs if n == net},
                  key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))
    if not keys:
        continue
    target = targets[net]
    epochs = max(len(run) for k, rs in runs.items() if k[0] == net for run in rs)
    title = {"mlp": "MLP 784-128-10", "cnn": "CNN (LeNet-5)"}[net]
    print(f"### {title}: batch 64, SGD lr 0.1, {epochs} epoch(s), {rounds} round(s)\n")
    print(f"Seconds per epoch: the median over every epoch of every round at the way's fastest "
          f"setting (min–max beside it); first epoch: its median over the rounds. Test accuracy: "
          f"the median over the rounds, each round with its own seed (min–max beside it). To "
          f"≥ {100 * target:.0f} %: the epochs until the test accuracy first reaches it, and their "
          f"training seconds added up (medians over the rounds that reach it; evaluation not "
          f"counted). ÷ staticpy: this way's seconds per epoch over staticpy's fastest way's.\n")
    acc_heads = ["test acc. epoch 1"] + ([f"test acc. epoch {epochs}"] if epochs > 1 else [])
    print(f"| way | fastest setting | s / epoch | first epoch s | k samples/s | "
          + " | ".join(acc_heads) + f" | to ≥ {100 * target:.0f} %: epochs | "
          f"to ≥ {100 * target:.0f} %: s | ÷ staticpy |")
    print("|---|---|" + "---:|" * (6 + len(acc_heads)))
    rows = []
    for peer, variant in keys:
        med, setting = fastest(net, peer, variant)
        times = epoch_times(net, peer, variant, setting)
        rs = runs[(net, peer, variant, setting)]
        first = statistics.median(run[0]["train_s"] for run in rs)
        samples = rs[0][0]["samples"]
        reached = [to_target(run, target) for run in rs]
        hit = [x for x in reached if x]
        ep = statistics.median(x[0] for x in hit) if hit else None
        secs = statistics.median(x[1] for x in hit) if hit else None
        rows.append(dict(peer=peer, variant=variant, med=med, setting=setting,
                         lo=min(times), hi=max(times), first=first, samples=samples,
                         acc1=acc_after(net, peer, variant, setting, 1),
                         accN=acc_after(net, peer, variant, setting, epochs),
                         ep=ep, secs=secs, hit=len(hit), n=len(rs)))
    sp = [r for r in rows if r["peer"] == "staticpy"]
    best_sp = min(sp, key=lambda r: r["med"]) if sp else None
    for r in rows:
        reach_ep = "not reached" if r["ep"] is None else f"{r['ep']:g}"
        if r["ep"] is not None and r["hit"] < r["n"]:
            reach_ep += f" ({r['hit']} of {r['n']} rounds)"
        ratio = f"{r['med'] / best_sp['med']:.2f}" if best_sp else ""
        reach_s = "" if r["secs"] is None else f"{r['secs']:.2f}"
        print(f"| {name(r['peer'], r['variant'])} | {short(r['setting'])} | {r['med']:.3f} "
              f"({r['lo']:.3f}–{r['hi']:.3f}) | {r['first']:.3f} | "
              f"{r['samples'] / r['med'] / 1000:.1f} | {acc_cell(r['acc1'])} | "
              + (f"{acc_cell(r['accN'])} | " if epochs > 1 else "")
              + f"{reach_ep} | {reach_s} | {ratio} |")
    if not sp:
        print(f"| staticpy | *pending: epoch_staticpy does not train the {net} yet "
              f"(nn::Conv2d)* |" + " |" * (6 + len(acc_heads)))
    print()
    summary[net] = (best_sp, [r for r in rows if r["peer"] != "staticpy"], epochs)

    print(f"All settings, {title}: median s / epoch (the fastest of each row in bold):\n")
    settings = sorted({s for (n, p, v, s) in runs if n == net},
                      key=lambda s: (s.count(":"), s.startswith("blas"), s))
    print("| way | " + " | ".join(short(s) for s in settings) + " |")
    print("|---|" + "---:|" * len(settings))
    for peer, variant in keys:
        _, best = fastest(net, peer, variant)
        cells = []
        for s in settings:
            t = epoch_times(net, peer, variant, s)
            cell = f"{statistics.median(t):.3f}" if t else ""
            cells.append(f"**{cell}**" if s == best and cell else cell)
        print(f"| {name(peer, variant)} | " + " | ".join(cells) + " |")
    print()

print("Targets (issue 11):\n")
print("| target | result |")
print("|---|---|")
for net, want in (("mlp", 2.0), ("cnn", 1.5)):
    if net not in summary:
        continue
    best_sp, peers_rows, epochs = summary[net]
    label = {"mlp": "MLP epoch", "cnn": "CNN epoch"}[net]
    if not peers_rows:
        continue
    fp = min(peers_rows, key=lambda r: r["med"])
    if best_sp is None:
        print(f"| {label} ≥ {want}× the fastest peer | *pending: no staticpy {net} yet*; the "
              f"fastest peer: {name(fp['peer'], fp['variant'])}, {fp['med']:.3f} s |")
        continue
    speed = fp["med"] / best_sp["med"]
    print(f"| {label}, data loading included, ≥ {want}× the fastest peer | "
          f"**{'met' if speed >= want else 'not met'}**: {speed:.2f}× "
          f"({name(best_sp['peer'], best_sp['variant'])} {best_sp['med']:.3f} s against "
          f"{name(fp['peer'], fp['variant'])} {fp['med']:.3f} s) |")
    for ep, key in ((1, "acc1"), (epochs, "accN"))[: 2 if epochs > 1 else 1]:
        if best_sp[key] is None or fp[key] is None:
            continue
        diff = 100 * (best_sp[key][0] - fp[key][0])
        print(f"| {net.upper()} equal accuracy after epoch {ep} (medians within 0.5 points of the "
              f"fastest peer's) | **{'met' if abs(diff) <= 0.5 else 'not met'}**: "
              f"{pct(best_sp[key][0])} against {pct(fp[key][0])} ({diff:+.2f} points) |")
print()
failed = os.path.join(out, "failed.txt")
if os.path.exists(failed):
    print("Failed cases (their rows are missing):\n")
    print("```")
    print(open(failed).read().strip())
    print("```")
PY

if [[ "${EPOCH_COMPILE_COST:-1}" == 1 ]]; then
    echo
    COMPILE_COST_PARTS=1 "$root/benchmarks/compile_cost.sh" "$build"
fi
