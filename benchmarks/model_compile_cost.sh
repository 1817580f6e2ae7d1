#!/usr/bin/env bash
# The compile cost of one model and its training step, as the model grows (issue 44, goals 2 and
# 3): a program holding one nn::Sequential, its nn::TrainOneStep with plain SGD (forward and
# backward as one graph, then SGD's loop) and one call of it, compiled alone as a user compiles
# it. Cases:
#   mlp-one        Linear(784, 128) -> ReLU -> Linear(128, 10): the demo's MLP alone (goal 3)
#   mlp-N          N hidden layers of 64 (Linear(784, 64), then N-1 Linear(64, 64), each with a
#                  ReLU, then Linear(64, 10)): the depth sweep (goal 2)
#   cnn-N          N blocks of Conv2d(c, 8, 3, padding 1) -> ReLU on 1x28x28 images, then
#                  Flatten -> Linear(8*28*28, 10)
#   dlib-mlp-one, libtorch-mlp-one   the peers' mlp-one: benchmarks/one_model_dlib.cpp and
#                  one_model_libtorch.cpp (C++17), the same model, optimiser and one step as
#                  their users write them (left out where libdlib-dev or libtorch-dev is missing)
# Each case is one translation unit, compiled once per compiler under /usr/bin/time -v: CPU
# seconds (user + system), wall seconds and the compiler's peak resident memory; a compile that
# runs past MODEL_COMPILE_TIMEOUT seconds is stopped and reported as such. The table gives each
# case's ratio to the smallest case of its family.
#
#   benchmarks/model_compile_cost.sh                    (every case, g++)
#   MODEL_CASES="mlp-one mlp-2 mlp-8" MODEL_COMPILERS="g++ clang++" benchmarks/model_compile_cost.sh
#
# Environment:
#   MODEL_CASES="mlp-one dlib-mlp-one libtorch-mlp-one mlp-2 mlp-8 mlp-32 cnn-1 cnn-2 cnn-4 cnn-8"
#   MODEL_COMPILERS="g++"
#   MODEL_FLAGS="-O2"              the optimisation flags (the issue's goals are for -O2)
#   MODEL_COMPILE_TIMEOUT=1800     seconds per compile
#   MODEL_KERNELS=header-only      or compiled: each case declares the generic kernels extern
#                                  (-DSTATICPY_COMPILED_KERNELS), as a program built with the CMake
#                                  option STATICPY_COMPILED_KERNELS=ON does; the library's own
#                                  src/compiled_kernels.cpp, compiled once per build, is not timed
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cases="${MODEL_CASES:-mlp-one dlib-mlp-one libtorch-mlp-one mlp-2 mlp-8 mlp-32 cnn-1 cnn-2 cnn-4 cnn-8}"
compilers="${MODEL_COMPILERS:-g++}"
flags="${MODEL_FLAGS:--O2}"
limit="${MODEL_COMPILE_TIMEOUT:-1800}"
kernels="${MODEL_KERNELS:-header-only}"
case "$kernels" in
header-only) kernel_flags="" ;;
compiled) kernel_flags="-DSTATICPY_COMPILED_KERNELS" ;;
*)
    echo "model_compile_cost: MODEL_KERNELS is header-only or compiled, not $kernels" >&2
    exit 2
    ;;
esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The layers of a case, as the arguments of nn::Sequential, and its input's shape.
layers_of() {
    local name="$1" n="${1#*-}"
    case "$name" in
    mlp-one)
        echo "nn::Linear<784, 128>(init), nn::ReLU{}, nn::Linear<128, 10>(init)"
        ;;
    mlp-*)
        local s="nn::Linear<784, 64>(init), nn::ReLU{}"
        for ((i = 1; i < n; i++)); do s+=", nn::Linear<64, 64>(init), nn::ReLU{}"; done
        echo "$s, nn::Linear<64, 10>(init)"
        ;;
    cnn-*)
        local s="nn::Conv2d<1, 8, 3, 1, 1>(init), nn::ReLU{}"
        for ((i = 1; i < n; i++)); do s+=", nn::Conv2d<8, 8, 3, 1, 1>(init), nn::ReLU{}"; done
        echo "$s, nn::Flatten{}, nn::Linear<6272, 10>(init)"
        ;;
    *)
        echo "model_compile_cost: unknown case $name" >&2
        exit 2
        ;;
    esac
}
input_of() {
    case "$1" in
    cnn-*) echo "randn<float>(16_c, 1_c, 28_c, 28_c)" ;;
    *) echo "randn<float>(16_c, 784_c)" ;;
    esac
}

write_case() {
    local name="$1"
    cat >"$work/$name.cpp" <<EOF
// $name: one model, its nn::TrainOneStep (plain SGD) and one step (model_compile_cost.sh).
#include <cstdint>
#include <cstdio>

#include <staticpy/nn.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

int main() {
    Generator init(0);
    auto model = nn::Sequential($(layers_of "$name"));
    nn::optim::SGD optimizer(model.parameters(), {.lr = 0.1});
    auto loss_fn = [&](const auto& params, const auto& images, const auto& labels) {
        return F::cross_entropy(nn::functional_call(model, params, images), labels);
    };
    nn::TrainOneStep step(loss_fn, optimizer);
    const auto images = $(input_of "$name");
    const auto labels = zeros<std::int64_t>(16_c);
    std::printf("%g\n", static_cast<double>(step(images, labels).item()));
}
EOF
}

for name in $cases; do
    case "$name" in
    dlib-* | libtorch-*) ;; # the peers' own files
    *) write_case "$name" ;;
    esac
done

python3 - "$root" "$work" "$limit" "$flags $kernel_flags" "$compilers" $cases <<'PY'
import os, re, subprocess, sys

root, work, limit, flags, compilers = sys.argv[1:6]
cases = sys.argv[6:]
limit = int(limit)

# The peers' programs: source, language standard, flags, the header that says they are installed.
PEERS = {
    "dlib-mlp-one": (f"{root}/benchmarks/one_model_dlib.cpp", "-std=c++20", [],
                     "/usr/include/dlib/dnn.h", "libdlib-dev"),
    "libtorch-mlp-one": (f"{root}/benchmarks/one_model_libtorch.cpp", "-std=c++17",
                         ["-D_GLIBCXX_USE_CXX11_ABI=1", "-I/usr/include/torch/csrc/api/include"],
                         "/usr/include/torch/csrc/api/include/torch/torch.h", "libtorch-dev"),
}

def measure(cxx, name):
    # clang: OpenMPOpt off, as the staticpy CMake target sets it (CMakeLists.txt).
    omp = "-fopenmp=libomp -mllvm -openmp-opt-disable" if "clang" in cxx else "-fopenmp"
    source, std, extra = f"{work}/{name}.cpp", "-std=c++20", [f"-I{root}/include"]
    if name in PEERS:
        source, std, extra, header, package = PEERS[name]
        if not os.path.exists(header):
            return None, f"left out (apt-get install {package})"
    cmd = ["/usr/bin/time", "-v", "timeout", str(limit), cxx, std, *flags.split(),
           *omp.split(), "-DNDEBUG", *extra, "-c", source, "-o", "/dev/null"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 124:
        return None, f"stopped after {limit} s"
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-3000:])
        return None, f"failed (exit {r.returncode})"
    def field(label):
        m = re.search(re.escape(label) + r": ([\d.:]+)", r.stderr)
        return m.group(1) if m else "0"
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    peak = int(field("Maximum resident set size (kbytes)")) / 1024
    return (cpu, wall_s, peak), ""

print(f"flags: {flags}; one compile per case and compiler; ratios to the family's first case")
print()
print("| compiler | case | CPU s | wall s | peak MiB | CPU ÷ first | memory ÷ first |")
print("|---|---|---:|---:|---:|---:|---:|")
ones = {}
for cxx in compilers.split():
    first = {}
    for name in cases:
        res, why = measure(cxx, name)
        if res is not None and name.endswith("mlp-one"):
            ones[(cxx, name)] = res
        family = name.split("-")[0] + ("-one" if name.endswith("-one") else "")
        if res is None:
            print(f"| {cxx} | {name} | {why} | | | | |", flush=True)
            continue
        cpu, wall, peak = res
        base = first.setdefault(family, res)
        print(f"| {cxx} | {name} | {cpu:.1f} | {wall:.1f} | {peak:.0f} | "
              f"{cpu / base[0]:.2f} | {peak / base[2]:.2f} |", flush=True)
print()
for cxx in compilers.split():
    for peer in PEERS:
        if (cxx, "mlp-one") in ones and (cxx, peer) in ones:
            a, b = ones[(cxx, "mlp-one")], ones[(cxx, peer)]
            print(f"{cxx}: mlp-one ÷ {peer}: CPU {a[0] / b[0]:.2f}, memory {a[2] / b[2]:.2f}")
PY
