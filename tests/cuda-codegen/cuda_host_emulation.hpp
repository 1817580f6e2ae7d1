#pragma once
// The tests' host emulation of the CUDA execution model, for the kernels staticpy generates
// (backend/cuda/codegen.hpp): the generated source is compiled as C++ for the host with this header
// included first, and each kernel is run over its grid with its arguments read from a
// cuLaunchKernel-style array of pointers (backend/cuda/launch.hpp). Blocks run one after another;
// a block's threads run as std::threads, so that __syncthreads() (a barrier of the block) and the
// warp shuffles (an exchange through the block's slots between two barriers of the warp) behave as
// on a GPU for kernels whose threads all reach them, as staticpy's do.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
// One block runs at a time: a function-local static is the block's shared memory.
#define __shared__ static

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace staticpy_emulation {
struct block_state {
    std::barrier<> sync;                               // __syncthreads
    std::vector<std::unique_ptr<std::barrier<>>> warp; // the shuffles of each warp
    std::vector<unsigned long long> slots;             // one 8-byte exchange slot per thread
    explicit block_state(unsigned threads) : sync(threads), slots(threads) {
        for (unsigned first = 0; first < threads; first += 32)
            warp.push_back(std::make_unique<std::barrier<>>(std::min(32u, threads - first)));
    }
};
inline block_state* block = nullptr;

template <class... P, std::size_t... I>
void call(void (*kernel)(P...), void** params, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(params[I])...);
}
template <class... P>
void launch(void (*kernel)(P...), unsigned grid_x, unsigned grid_y, unsigned threads,
            void** params) {
    gridDim = {grid_x, grid_y, 1};
    blockDim = {threads, 1, 1};
    for (unsigned by = 0; by < grid_y; ++by)
        for (unsigned bx = 0; bx < grid_x; ++bx) {
            block_state state(threads);
            block = &state;
            std::vector<std::thread> team;
            for (unsigned t = 0; t < threads; ++t)
                team.emplace_back([=] {
                    blockIdx = {bx, by, 0};
                    threadIdx = {t, 0, 0};
                    call(kernel, params, std::index_sequence_for<P...>{});
                });
            for (auto& th : team)
                th.join();
            block = nullptr;
        }
}
} // namespace staticpy_emulation

inline void __syncthreads() {
    staticpy_emulation::block->sync.arrive_and_wait();
}

/// The value of lane + delta in this warp (this thread's own where that lane is past the warp).
template <class T>
T __shfl_down_sync(unsigned, T v, int delta) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>);
    auto& st = *staticpy_emulation::block;
    const unsigned t = threadIdx.x;
    std::memcpy(&st.slots[t], &v, sizeof(T));
    std::barrier<>& warp = *st.warp[t / 32];
    warp.arrive_and_wait();
    const unsigned lane = t % 32;
    const unsigned from = lane + static_cast<unsigned>(delta) < 32 && t + delta < blockDim.x
                              ? t + static_cast<unsigned>(delta)
                              : t;
    T r;
    std::memcpy(&r, &st.slots[from], sizeof(T));
    warp.arrive_and_wait();
    return r;
}

/// atomicAdd: *address += value as one atomic step (a block's threads run at once), the old value
/// returned (float and double too: C++20's atomic_ref adds them).
template <class T>
T atomicAdd(T* address, T value) {
    return std::atomic_ref<T>(*address).fetch_add(value);
}

// After the generated source: an entry point the test finds with dlsym.
#define STATICPY_EMULATE(name)                                                                     \
    extern "C" void emulate_##name(unsigned grid_x, unsigned grid_y, unsigned block,               \
                                   void** params) {                                                \
        staticpy_emulation::launch(name, grid_x, grid_y, block, params);                           \
    }
