#!/usr/bin/env bash
# The CUDA backend on a machine with a GPU, in one run of under 10 minutes (issue 12): builds the
# CUDA tests (label cuda: the generated kernels compiled for the device's architecture, launched on
# device memory and compared with the CPU backend; label cuda-codegen: the host side) and the CUDA
# benchmarks, runs them, and prints one table. On a machine without a GPU the label-cuda cases say
# why they are skipped.
#
#   scripts/gpu-check.sh [build folder, default build/gpu]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build/gpu}"
JOBS="$(nproc 2>/dev/null || echo 2)"
start=$SECONDS

# The test packages and Google Benchmark (a machine lent without network keeps what it has).
"$ROOT/scripts/install-deps.sh" test libbenchmark-dev ||
    echo "gpu-check: the packages could not be installed; going on with what is there"

command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total \
    --format=csv,noheader || echo "nvidia-smi: not found"

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSTATICPY_BUILD_TESTS=ON \
    -DSTATICPY_BUILD_EXAMPLES=OFF -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_AUTODIFF_TESTS=OFF \
    > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
grep "staticpy: CUDA" "$BUILD.configure.log" || true

targets=(cuda_device_test cuda-codegen_runtime_test cuda-codegen_kernels_test
         cuda-codegen_allocator_test cuda-codegen_emulated_driver_test cuda-codegen_emulated_matmul_test
         cuda-codegen_emulated_training_test staticpy_fake_libcuda
         staticpy_fake_nvrtc staticpy_fake_cublas)
make -C "$BUILD" -j"$JOBS" "${targets[@]}" > "$BUILD.build.log" 2>&1 ||
    { tail -50 "$BUILD.build.log"; exit 1; }
bench=yes
make -C "$BUILD" -j"$JOBS" cuda_compile_bench cuda_device_bench >> "$BUILD.build.log" 2>&1 ||
    bench=no
echo "built in $((SECONDS - start)) s (benchmark: $bench)"

status=0
(cd "$BUILD" && ctest -L '^(cuda|cuda-codegen)$' --output-on-failure -j"$JOBS") \
    > "$BUILD.ctest.log" 2>&1 || status=1
"$BUILD/tests/cuda_device_test" --success 2>&1 | grep -E "skipped:|test cases|assertions" \
    > "$BUILD.device.log" || true
if [[ $bench == yes ]]; then
    "$BUILD/benchmarks/cuda_compile_bench" > "$BUILD.bench.log" 2>&1 || status=1
    "$BUILD/benchmarks/cuda_device_bench" >> "$BUILD.bench.log" 2>&1 || status=1
else
    echo "cuda_compile_bench not built (Google Benchmark missing?)" > "$BUILD.bench.log"
fi

echo
echo "| check | result |"
echo "|---|---|"
echo "| ctest -L cuda, cuda-codegen | $(grep -E 'tests passed' "$BUILD.ctest.log" || echo 'see log') |"
device_line="$(grep -E 'skipped:' "$BUILD.device.log" | head -1 || true)"
echo "| label cuda on the device | ${device_line:-ran} $(grep -E 'assertions' "$BUILD.device.log" | tail -1 || true) |"
{ grep -E "^(nvrtc_compile|nvcc_ptx|cache_hit|read_file)/" "$BUILD.bench.log" || true; } |
    awk '{ printf "| %s | %s %s |\n", $1, $2, $3 }'
# The device's kernels beside its copy bandwidth (time and bytes/s), and matmul beside cuBLAS
# alone (time and TFLOP/s).
{ grep -E "^(copy_d2d|fused_|full_sum|row_sums|matmul_)" "$BUILD.bench.log" || true; } |
    awk '{ printf "| %s | %s %s, %s |\n", $1, $2, $3, $(NF) }'
echo
echo "logs: $BUILD.{configure,build,ctest,device,bench}.log; total $((SECONDS - start)) s"
[[ $status -eq 0 ]] || { grep -B2 -A20 -E "Failed|FAILED" "$BUILD.ctest.log" | head -80; }
exit $status
