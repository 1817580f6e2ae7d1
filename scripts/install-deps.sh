#!/usr/bin/env bash
# Installs the Debian 12 packages staticpy needs, only those that are missing.
#
#   scripts/install-deps.sh demo|test|bench|<package>...
#
# Sets:  demo  = cmake make g++ libboost-dev libxsimd-dev zlib1g-dev dataset-fashion-mnist
#                (the demo trains a model on Fashion-MNIST, whose files are gzip-compressed)
#        test  = demo + clang libomp-14-dev libclang-rt-14-dev catch2 libopenmpi-dev openmpi-bin
#                (zlib is optional for the library and the dataset for the tests; with them the
#                tests cover the readers' gzip path and the real Fashion-MNIST files;
#                libclang-rt-14-dev is libFuzzer's runtime, for the fuzz pass; Open MPI is
#                optional too: staticpy::distributed and its tests, run under mpirun, need it)
#        bench = demo + libbenchmark-dev python3, and the libraries the tensor benchmarks
#                compare with: libeigen3-dev libxtensor-dev libxsimd-dev libtorch-dev
#                libopenblas-dev; dataset-fashion-mnist for the data-loading benchmarks;
#                libdlib-dev for the training-epoch benchmarks (with libjpeg-dev: dlib's CMake
#                package links libjpeg.so, which libdlib-dev does not pull in) and clang
#                libomp-14-dev for their compile-cost comparison with clang++
# When everything is installed it only runs dpkg-query (fast, no network, no root needed).
# INSTALL_DEPS_DRY_RUN=1 only reports what would be installed.
set -euo pipefail

DEMO_PKGS=(cmake make g++ libboost-dev libxsimd-dev zlib1g-dev dataset-fashion-mnist)
TEST_PKGS=("${DEMO_PKGS[@]}" clang libomp-14-dev libclang-rt-14-dev catch2 libopenmpi-dev
    openmpi-bin)
BENCH_PKGS=("${DEMO_PKGS[@]}" libbenchmark-dev python3 python3-torch pkg-config
    libeigen3-dev libxtensor-dev libxsimd-dev libtorch-dev libopenblas-dev dataset-fashion-mnist
    libdlib-dev libjpeg-dev clang libomp-14-dev)

if [[ $# -eq 0 ]]; then
    echo "usage: $0 demo|test|bench|<package>..." >&2
    exit 2
fi

wanted=()
for arg in "$@"; do
    case "$arg" in
        demo) wanted+=("${DEMO_PKGS[@]}") ;;
        test) wanted+=("${TEST_PKGS[@]}") ;;
        bench) wanted+=("${BENCH_PKGS[@]}") ;;
        *) wanted+=("$arg") ;;
    esac
done

missing=()
for pkg in "${wanted[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    if [[ "$status" != "install ok installed" ]]; then
        # skip duplicates
        if [[ " ${missing[*]-} " != *" $pkg "* ]]; then
            missing+=("$pkg")
        fi
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

echo "install-deps: installing missing Debian packages: ${missing[*]}"
if [[ "${INSTALL_DEPS_DRY_RUN:-0}" == 1 ]]; then
    echo "install-deps: INSTALL_DEPS_DRY_RUN=1, not installing"
    exit 0
fi
if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
else
    echo "install-deps: not root and sudo is not available; please install as root:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
