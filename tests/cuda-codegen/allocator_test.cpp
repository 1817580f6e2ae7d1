// The caching allocator of device memory (backend/cuda/allocator.hpp), on a host stand-in for the
// driver's memory that counts what it is asked: block reuse by size class, the statistics
// PyTorch's torch.cuda.memory_* report, empty_cache, the retry after returning the cache, and
// "CUDA out of memory". Without a GPU, the process's allocator says CUDA is not available, pinning
// a tensor says so too, and a DataLoader(pin_memory=true) warns and leaves its batches unpinned.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/backend/cuda/allocator.hpp>
#include <staticpy/backend/cuda/device_memory.hpp>
#include <staticpy/data/dataloader.hpp>
#include <staticpy/tensor.hpp>

#include "../test_errors.hpp"

using namespace staticpy;
using cuda::detail::caching_allocator;

namespace {

/// Host memory standing in for the device's, with a capacity; counts calls.
struct fake_device {
    explicit fake_device(std::size_t bytes) : capacity(bytes) {}
    std::size_t capacity;
    std::size_t used = 0;
    int allocations = 0, releases = 0;
    std::map<std::uintptr_t, std::size_t> live; // block -> its size

    cuda::detail::memory_backend backend() {
        return {[this](std::size_t bytes) -> std::uintptr_t {
                    if (used + bytes > capacity)
                        return 0;
                    void* p = std::malloc(bytes);
                    used += bytes;
                    ++allocations;
                    live.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
                    return reinterpret_cast<std::uintptr_t>(p);
                },
                [this](std::uintptr_t p) {
                    ++releases;
                    used -= live.at(p);
                    live.erase(p);
                    std::free(reinterpret_cast<void*>(p));
                }};
    }
};

} // namespace

TEST_CASE("allocator: size classes of 512 bytes below 1 MiB, of 2 MiB from there") {
    CHECK(caching_allocator::size_class(0) == 512);
    CHECK(caching_allocator::size_class(1) == 512);
    CHECK(caching_allocator::size_class(512) == 512);
    CHECK(caching_allocator::size_class(513) == 1024);
    CHECK(caching_allocator::size_class((1 << 20) - 1) == (1 << 20));
    CHECK(caching_allocator::size_class(1 << 20) == (2 << 20));
    CHECK(caching_allocator::size_class((2 << 20) + 1) == (4 << 20));
    CHECK(caching_allocator::size_class(SIZE_MAX) == 0); // no class: out of memory
}

TEST_CASE("allocator: a freed block serves the next request of its class, not another's") {
    fake_device dev(1 << 30);
    {
        caching_allocator a(dev.backend());
        const auto p = a.allocate(1000); // class 1024
        CHECK(a.memory_allocated() == 1024);
        a.release(p);
        CHECK(a.memory_allocated() == 0);
        CHECK(a.memory_reserved() == 1024);
        CHECK(a.allocate(600) == p); // same class: the cached block, no new allocation
        CHECK(dev.allocations == 1);
        const auto q = a.allocate(1025); // class 1536: a new one
        CHECK(q != p);
        CHECK(dev.allocations == 2);
        CHECK(a.memory_allocated() == 1024 + 1536);
        CHECK(a.max_memory_allocated() == 1024 + 1536);
        a.release(p);
        a.release(q);
        CHECK(a.max_memory_allocated() == 1024 + 1536);
        a.reset_peak_memory_stats();
        CHECK(a.max_memory_allocated() == 0);
        a.empty_cache();
        CHECK(a.memory_reserved() == 0);
        CHECK(dev.releases == 2);
        CHECK(dev.live.empty());
    }
}

TEST_CASE("allocator: a refused request returns the cache and retries, then is out of memory") {
    fake_device dev(8 << 20);
    caching_allocator a(dev.backend());
    const auto p = a.allocate(3 << 20); // class 4 MiB
    a.release(p);                       // cached: 4 MiB of the 8 still held
    const auto q = a.allocate(5 << 20); // class 6 MiB: refused, cache returned, retried
    CHECK(q != 0);
    CHECK(dev.releases == 1);
    CHECK(a.memory_reserved() == (6 << 20));
    const std::string msg = test_errors::error_of<MemoryError>([&] { (void)a.allocate(4 << 20); });
    CHECK_THAT(msg, Catch::StartsWith("staticpy: CUDA out of memory. Tried to allocate 4.00 MiB") &&
                        Catch::Contains("6.00 MiB already allocated"));
    CHECK(test_errors::error_of<MemoryError>([&] { (void)a.allocate(SIZE_MAX); }) !=
          "<no exception>");
    a.release(q);
    CHECK(test_errors::error_of<RuntimeError>([&] { a.release(q); }) ==
          "staticpy: CUDA error: release of a device pointer the caching allocator did not hand "
          "out");
    CHECK(a.memory_allocated() == 0); // the bad release changed nothing
}

TEST_CASE("allocator: threads allocating and releasing keep the books straight") {
    fake_device dev(1 << 30);
    std::mutex dev_mutex; // the fake device itself is not thread-safe
    cuda::detail::memory_backend locked{[&, b = dev.backend()](std::size_t n) {
                                            std::lock_guard l(dev_mutex);
                                            return b.allocate(n);
                                        },
                                        [&, b = dev.backend()](std::uintptr_t p) {
                                            std::lock_guard l(dev_mutex);
                                            b.release(p);
                                        }};
    caching_allocator a(locked);
    std::vector<std::thread> team;
    for (int t = 0; t < 4; ++t)
        team.emplace_back([&a, t] {
            for (int i = 0; i < 200; ++i) {
                const auto p = a.allocate(static_cast<std::size_t>(512 * (1 + (i + t) % 5)));
                a.release(p);
            }
        });
    for (auto& th : team)
        th.join();
    CHECK(a.memory_allocated() == 0);
    CHECK(dev.allocations <= 20); // at most 4 threads x 5 classes: the rest was reuse
    a.empty_cache();
    CHECK(dev.live.empty());
}

TEST_CASE("allocator: the process's allocator, without a GPU, says CUDA is not available") {
    if (cuda::is_available())
        return; // the GPU tests (label cuda) cover the other side
    CHECK(cuda::memory_allocated() == 0);
    CHECK_THAT(test_errors::error_of<RuntimeError>(
                   [] { (void)cuda::detail::process_allocator().allocate(16); }),
               Catch::StartsWith("staticpy: CUDA is not available: "));
    CHECK(cuda::memory_allocated() == 0);
    CHECK(cuda::max_memory_allocated() == 0);
    cuda::empty_cache();
}

TEST_CASE("pinned memory: without a GPU, pinning says CUDA is not available, loaders warn") {
    if (cuda::is_available())
        return; // the GPU tests (label cuda) cover the other side
    const auto x = arange<float>(4);
    CHECK_THAT(test_errors::error_of<RuntimeError>([&] { (void)x.pin_memory(); }),
               Catch::StartsWith("staticpy: CUDA is not available: "));
    test_errors::capture_cerr captured;
    struct numbers {
        std::int64_t size() const { return 4; }
        std::int64_t operator[](std::int64_t i) const { return i; }
    };
    data::DataLoader loader(numbers{}, {.batch_size = 2, .pin_memory = true});
    int batches = 0;
    for (const auto& batch : loader) {
        CHECK_FALSE(batch.is_pinned());
        ++batches;
    }
    CHECK(batches == 2);
    CHECK(captured.text() == "UserWarning: 'pin_memory' argument is set as true but CUDA is not "
                             "available, then device pinned memory won't be used.\n");
}
