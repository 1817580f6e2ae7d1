// The contiguous fast path: ds.gather(indices) must give exactly what default_collate gives for
// the samples ds[i] (type, values, errors), and the DataLoader's batches must not change when it
// takes that path.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include "test_files.hpp"

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;
using test_files::values;

namespace {

template <class T1, class S1, class T2, class S2>
void check_same(const Tensor<T1, S1>& a, const Tensor<T2, S2>& b) {
    STATIC_REQUIRE(std::is_same_v<Tensor<T1, S1>, Tensor<T2, S2>>);
    CHECK(a.sizes() == b.sizes());
    CHECK(a.is_contiguous());
    CHECK(values(a) == values(b));
}

template <class... A, class... B>
void check_same(const std::tuple<A...>& a, const std::tuple<B...>& b) {
    STATIC_REQUIRE(sizeof...(A) == sizeof...(B));
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (check_same(std::get<I>(a), std::get<I>(b)), ...);
    }
    (std::index_sequence_for<A...>{});
}

/// The generic path: fetch each sample, then default_collate.
template <class D>
auto collate_samples(const D& ds, const std::vector<std::int64_t>& indices) {
    std::vector<sample_t<const D>> samples;
    for (auto i : indices)
        samples.push_back(ds[i]);
    return default_collate(samples);
}

/// The generic path as a DataLoader collate_fn: a callable that is not DefaultCollate.
struct GenericCollate {
    template <std::ranges::forward_range Batch>
    auto operator()(const Batch& batch) const {
        return default_collate(batch);
    }
};

} // namespace

TEST_CASE("TensorDataset::gather equals default_collate of its samples") {
    auto x = arange<float>(0, 30).reshape(10, 3).contiguous();
    auto y = arange<std::int64_t>(100, 110);
    auto z = arange<double>(0, 40).reshape(10, 2, 2).contiguous();
    TensorDataset ds(x, y, z);
    STATIC_REQUIRE(GatherDataset<decltype(ds)>);
    for (const std::vector<std::int64_t>& idx : {std::vector<std::int64_t>{3, 4, 5},
                                                 {0},
                                                 {9, 0, 1, 2, 8},
                                                 {-1, -2, 4, 5, 6, 6},
                                                 {5, 6, 7, 8, 9}}) {
        CAPTURE(idx);
        check_same(ds.gather(idx), collate_samples(ds, idx));
    }
    SECTION("static shapes stay static") {
        auto xs = zeros<float>(4_c, 3_c);
        TensorDataset sds(xs);
        const std::vector<std::int64_t> idx{1, 3};
        check_same(sds.gather(idx), collate_samples(sds, idx));
    }
    SECTION("strided storage (a transposed tensor) takes the per-row copy") {
        auto t = arange<float>(0, 30).reshape(3, 10).t();
        auto s = arange<std::int64_t>(0, 20).reshape(10, 2).select(1, 1);
        REQUIRE_FALSE(t.is_contiguous());
        TensorDataset tds(t, s);
        const std::vector<std::int64_t> idx{2, 3, 4, 0};
        check_same(tds.gather(idx), collate_samples(tds, idx));
    }
    SECTION("a batch split over two threads (a shuffle with runs, both ends negative)") {
        // 300 rows of 128 floats: 64 * 128 elements and more go to the kernels' threads.
        auto big = arange<float>(0, 300 * 128).reshape(300, 128).contiguous();
        auto labels = arange<std::int64_t>(0, 300);
        TensorDataset bds(big, labels);
        std::vector<std::int64_t> idx;
        for (std::int64_t i = 0; i < 280; ++i)
            idx.push_back((i * 37) % 300);
        idx.insert(idx.end(), {10, 11, 12, 13, -1, -300});
        const int threads = get_num_threads();
        set_num_threads(2);
        check_same(bds.gather(idx), collate_samples(bds, idx));
        // The first bad index is reported, as the serial walk reports it.
        idx[100] = 300;
        idx[5] = -301;
        CHECK_THROWS_WITH(bds.gather(idx),
                          "index -301 is out of bounds for dimension 0 with size 300");
        set_num_threads(threads);
    }
    SECTION("errors: ds[i]'s and default_collate's") {
        const std::vector<std::int64_t> out{1, 10};
        CHECK_THROWS_WITH(ds.gather(out), "index 10 is out of bounds for dimension 0 with size 10");
        const std::vector<std::int64_t> run{8, 9, 10};
        CHECK_THROWS_WITH(ds.gather(run), "index 10 is out of bounds for dimension 0 with size 10");
        CHECK_THROWS_WITH(ds.gather(std::vector<std::int64_t>{-11}),
                          "index -11 is out of bounds for dimension 0 with size 10");
        CHECK_THROWS_AS(ds.gather(std::vector<std::int64_t>{}), IndexError);
    }
}

TEST_CASE("for_each_index_run: a large batch is split into pieces, each row copied once") {
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < 64; ++i)
        idx.push_back(i < 32 ? i + 100 : (i * 13) % 500);
    const int threads = get_num_threads();
    set_num_threads(2);
    std::vector<int> copied(idx.size(), 0);
    std::vector<int> thread_of(idx.size(), -1);
    data::detail::for_each_index_run(
        idx, 500, true, 1024,
        [&](std::int64_t first, std::int64_t at, std::int64_t count) noexcept {
            for (std::int64_t k = 0; k < count; ++k) {
                // Each batch position gets its own index's row, once.
                copied[static_cast<std::size_t>(at + k)] +=
                    idx[static_cast<std::size_t>(at + k)] == first + k ? 1 : 100;
#if defined(_OPENMP)
                thread_of[static_cast<std::size_t>(at + k)] = omp_get_thread_num();
#endif
            }
        });
    set_num_threads(threads);
    CHECK(std::ranges::all_of(copied, [](int c) { return c == 1; }));
#if defined(_OPENMP)
    // Two contiguous pieces: the first half on one thread, the second on the other.
    CHECK(thread_of.front() != thread_of.back());
    CHECK(std::ranges::count(thread_of, thread_of.front()) == 32);
#endif
}

TEST_CASE("DataLoader: the fast path gives the generic path's batches") {
    auto x = arange<float>(0, 3 * 103).reshape(103, 3).contiguous();
    auto y = arange<std::int64_t>(0, 103);
    TensorDataset ds(x, y);
    for (int workers : {0, 2}) {
        for (bool shuffle : {false, true}) {
            CAPTURE(workers, shuffle);
            Generator g1(7);
            Generator g2(7);
            DataLoader fast(
                ds,
                {.batch_size = 8, .shuffle = shuffle, .num_workers = workers, .generator = &g1});
            DataLoader<TensorDataset<decltype(x), decltype(y)>&, GenericCollate> generic(
                ds,
                DataLoaderOptions<GenericCollate>{
                    .batch_size = 8, .shuffle = shuffle, .num_workers = workers, .generator = &g2});
            STATIC_REQUIRE(
                std::is_same_v<decltype(fast)::batch_type, decltype(generic)::batch_type>);
            auto a = fast.begin();
            auto b = generic.begin();
            std::int64_t batches = 0;
            while (true) {
                auto ba = a.next();
                auto bb = b.next();
                REQUIRE(ba.has_value() == bb.has_value());
                if (!ba)
                    break;
                check_same(*ba, *bb);
                ++batches;
            }
            CHECK(batches == 13);
        }
    }
}

TEST_CASE("MNIST::gather equals default_collate, untransformed and with ToFloat") {
    test_files::temp_dir dir("fast_mnist");
    test_files::bytes images;
    test_files::bytes labels;
    for (int i = 0; i < 64; ++i) {
        for (int p = 0; p < 28 * 28; ++p)
            images.push_back(static_cast<unsigned char>((i * 31 + p) % 256));
        labels.push_back(static_cast<unsigned char>(i % 10));
    }
    test_files::write_file(dir / "train-images-idx3-ubyte",
                           test_files::idx_bytes(0x08, {64, 28, 28}, images));
    test_files::write_file(dir / "train-labels-idx1-ubyte",
                           test_files::idx_bytes(0x08, {64}, labels));
    MNIST raw(dir.path());
    MNIST norm(dir.path(), true, ToFloat{.mean = 0.2860F, .std = 0.3530F});
    STATIC_REQUIRE(GatherDataset<decltype(raw)>);
    STATIC_REQUIRE(GatherDataset<decltype(norm)>);
    const std::vector<std::int64_t> idx{4, 5, 6, 0, 11, -1};
    check_same(raw.gather(idx), collate_samples(raw, idx));
    check_same(norm.gather(idx), collate_samples(norm, idx));
    CHECK_THROWS_WITH(raw.gather(std::vector<std::int64_t>{64}),
                      "index 64 is out of bounds for dimension 0 with size 64");
    // A batch of 64 (64 * 784 pixels) is split over two threads.
    std::vector<std::int64_t> all;
    for (std::int64_t i = 0; i < 64; ++i)
        all.push_back((i * 23 + 5) % 64);
    const int threads = get_num_threads();
    set_num_threads(2);
    check_same(raw.gather(all), collate_samples(raw, all));
    check_same(norm.gather(all), collate_samples(norm, all));
    set_num_threads(threads);

    Generator g1(3);
    Generator g2(3);
    DataLoader fast(norm, {.batch_size = 5, .shuffle = true, .generator = &g1});
    DataLoader<decltype(norm)&, GenericCollate> generic(
        norm,
        DataLoaderOptions<GenericCollate>{.batch_size = 5, .shuffle = true, .generator = &g2});
    auto b = generic.begin();
    for (auto& batch : fast)
        check_same(batch, *b.next());
}

namespace {
/// range(n) that makes its own batches, and counts how often it is asked to.
struct GatheringRange {
    std::int64_t n = 0;
    std::atomic<int>* gathers = nullptr;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const { return i; }
    [[nodiscard]] Tensor<std::int64_t, dynamic_shape<1>>
    gather(std::span<const std::int64_t> indices) const {
        ++*gathers;
        Tensor<std::int64_t, dynamic_shape<1>> out{
            dynamic_shape<1>(static_cast<std::int64_t>(indices.size()))};
        std::copy(indices.begin(), indices.end(), out.data());
        return out;
    }
};
} // namespace

TEST_CASE("DataLoader: gather is the customization point, with the default collate_fn only") {
    std::atomic<int> gathers{0};
    GatheringRange ds{10, &gathers};
    STATIC_REQUIRE(GatherDataset<GatheringRange>);
    for (int workers : {0, 2}) {
        gathers = 0;
        std::int64_t sum = 0;
        for (auto& batch : DataLoader(ds, {.batch_size = 3, .num_workers = workers}))
            for (std::int64_t i = 0; i < batch.numel(); ++i)
                sum += batch(i);
        CHECK(sum == 45);
        CHECK(gathers == 4);
    }
    gathers = 0;
    for (auto& batch : DataLoader<GatheringRange&, GenericCollate>(
             ds, DataLoaderOptions<GenericCollate>{.batch_size = 3}))
        (void)batch;
    CHECK(gathers == 0);
}
