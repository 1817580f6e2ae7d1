// The generated kernels on a real GPU (label cuda): compiled by NVRTC for the device's own
// architecture (a CUBIN through the disk cache), loaded, launched on a stream on device memory from
// the caching allocator, and their results compared with the CPU backend's. Where CUDA is not
// available each case says why and checks nothing else: scripts/gpu-check.sh runs these on a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {

bool skip_without_gpu() {
    if (cuda::is_available())
        return false;
    WARN("skipped: " << cuda::unavailable_reason());
    return true;
}

std::string device_arch() {
    const auto [major, minor] = cuda::get_device_capability();
    return "sm_" + std::to_string(major * 10 + minor);
}

/// Device memory holding `n` elements of T, from the process's caching allocator.
template <class T>
struct device_array {
    explicit device_array(std::size_t n)
        : ptr(cuda::detail::process_allocator().allocate(n * sizeof(T))), size(n) {}
    ~device_array() { cuda::detail::process_allocator().release(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    void upload(const T* host) const {
        cuda::detail::check(cuda::detail::driver().cuMemcpyHtoD_v2(ptr, host, size * sizeof(T)),
                            "cuMemcpyHtoD");
    }
    std::vector<T> download() const {
        std::vector<T> host(size);
        cuda::detail::check(
            cuda::detail::driver().cuMemcpyDtoH_v2(host.data(), ptr, size * sizeof(T)),
            "cuMemcpyDtoH");
        return host;
    }
    T* device_pointer() const { return reinterpret_cast<T*>(ptr); }
    std::uintptr_t ptr;
    std::size_t size;
};

template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

template <class T>
void require_close(const std::vector<T>& got, const std::vector<double>& want, double rtol) {
    REQUIRE(got.size() == want.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double g = static_cast<double>(got[i]);
        if (std::isnan(want[i]) ? !std::isnan(g)
                                : std::abs(g - want[i]) > rtol * std::abs(want[i]) + 1e-6)
            ++bad;
    }
    CHECK(bad == 0);
}

} // namespace

TEST_CASE("device: a fused elementwise kernel, four floats an access") {
    if (skip_without_gpu())
        return;
    Generator g(1);
    const std::int64_t n = (1 << 20) + 3;
    const auto x = randn(n, g);
    const auto y = randn(n, g);
    auto f = jit([](auto a, auto b) { return a * sigmoid(b) + 2.0f; });
    const std::string src = cuda::to_cuda(f, {{.contiguous = true, .vector_width = 4}}, x, y);
    const cuda::detail::module m(cuda::compile_kernels(src, device_arch()));
    device_array<float> dx(n), dy(n), dout(n);
    dx.upload(x.data_ptr());
    dy.upload(y.data_ptr());
    cuda::detail::kernel_arguments a;
    a.add<long long>(n);
    a.add(static_cast<const float*>(dx.device_pointer()));
    a.add(static_cast<const float*>(dy.device_pointer()));
    a.add(2.0f);
    a.add(dout.device_pointer());
    cuda::Stream s;
    cuda::detail::launch(m.function("kernel_0"), 1024, 1, 256, a, s);
    s.synchronize();
    require_close(dout.download(), values(f(x, y)), 1e-6);
}

TEST_CASE("device: a block-per-output sum, and a full sum split over blocks") {
    if (skip_without_gpu())
        return;
    Generator g(2);
    const auto x = randn(8, 100000, g);
    auto rows = jit([](auto a) { return sum(a * a, 1); });
    auto all = jit([](auto a) { return sum(a * a); });
    device_array<float> dx(800000);
    dx.upload(x.data_ptr());
    cuda::Stream s;
    {
        const cuda::detail::module m(cuda::compile_kernels(
            cuda::to_cuda(rows, {{.contiguous = true, .block_reduce = true}}, x), device_arch()));
        device_array<double> out(8);
        const std::vector<double> zeros(8, 0.0);
        out.upload(zeros.data());
        cuda::detail::kernel_arguments a;
        a.add<long long>(8);
        a.add<long long>(100000);
        a.add(static_cast<const float*>(dx.device_pointer()));
        a.add(out.device_pointer());
        a.add(static_cast<double*>(nullptr));
        cuda::detail::launch(m.function("kernel_0"), 8, 1, 256, a, s);
        s.synchronize();
        require_close(out.download(), values(rows(x)), 1e-6);
    }
    {
        const cuda::detail::module m(cuda::compile_kernels(
            cuda::to_cuda(all, {{.contiguous = true, .block_reduce = true}}, x), device_arch()));
        device_array<double> out(1), partials(64);
        const std::vector<double> zeros(64, 0.0);
        out.upload(zeros.data());
        partials.upload(zeros.data());
        cuda::detail::kernel_arguments a;
        a.add<long long>(1);
        a.add<long long>(800000);
        a.add(static_cast<const float*>(dx.device_pointer()));
        a.add(out.device_pointer());
        a.add(partials.device_pointer());
        cuda::detail::launch(m.function("kernel_0"), 1, 64, 256, a, s);
        cuda::detail::kernel_arguments b;
        b.add<long long>(1);
        b.add<long long>(64);
        b.add(static_cast<const double*>(partials.device_pointer()));
        b.add(out.device_pointer());
        cuda::detail::launch(m.function("kernel_0_partials"), 1, 1, 32, b, s);
        s.synchronize();
        require_close(out.download(), values(all(x)), 1e-6);
    }
}

TEST_CASE("device: softmax and log_softmax rows") {
    if (skip_without_gpu())
        return;
    Generator g(3);
    const auto x = randn(64, 1000, g) * 3.0f;
    const cuda::detail::module m(
        cuda::compile_kernels(cuda::softmax_kernels_source(), device_arch()));
    device_array<float> dx(64000), dy(64000);
    dx.upload(x.data_ptr());
    cuda::Stream s;
    for (const int log_form : {0, 1}) {
        cuda::detail::kernel_arguments a;
        a.add<long long>(64);
        a.add<long long>(1000);
        a.add<long long>(1);
        a.add(static_cast<const float*>(dx.device_pointer()));
        a.add(dy.device_pointer());
        a.add(log_form);
        cuda::detail::launch(m.function("softmax_rows_float"), 64, 1, 256, a, s);
        s.synchronize();
        require_close(dy.download(), log_form ? values(log_softmax(x, 1)) : values(softmax(x, 1)),
                      2e-6);
    }
}

TEST_CASE("device: tensors on the GPU, and jit graphs and eager ops run there by the evaluator") {
    if (skip_without_gpu())
        return;
    Generator g(21);
    const auto x = randn(1000, 1001, g); // odd sizes: a tail after the packs, unaligned rows
    const auto b = randn(1001, g);
    const auto dx = x.cuda();
    const auto db = b.cuda();
    CHECK(dx.device() == Device("cuda:0"));
    CHECK(values(dx.cpu()) == values(x));
    CHECK(values(dx.t().cpu()) == values(x.t()));

    auto f = jit([](auto a, auto c) { return sigmoid(a * c + 0.5f) - exp(c); });
    const auto y = f(dx, db);
    CHECK(y.is_cuda());
    require_close(values(y.cpu()), values(f(x, b)), 1e-5);
    require_close(values(f(dx.t(), dx.t()).cpu()), values(f(x.t(), x.t())), 1e-5);

    auto rows = jit([](auto a) { return std::tuple{sum(a * a, 1), mean(a, 0), amax(a, 1)}; });
    const auto [s, m, mx] = rows(dx);
    const auto [hs, hm, hmx] = rows(x);
    require_close(values(s.cpu()), values(hs), 1e-6);
    require_close(values(m.cpu()), values(hm), 1e-6);
    require_close(values(mx.cpu()), values(hmx), 0.0);
    auto total = jit([](auto a) { return a.sum(); });
    require_close(values(total(dx).cpu()), values(total(x)), 1e-6);

    const auto e = relu(dx * 2.0f + db);
    CHECK(e.is_cuda());
    require_close(values(e.cpu()), values(relu(x * 2.0f + b)), 1e-6);
    CHECK(cuda::memory_allocated() > 0);
}

TEST_CASE("device: matmul on cuBLAS, eager and in a graph with its epilogue after it") {
    if (skip_without_gpu())
        return;
    Generator g(22);
    const auto a = randn(300, 257, g);
    const auto b = randn(257, 129, g);
    const auto bias = randn(129, g);
    const auto da = a.cuda(), db = b.cuda();
    const auto dbias = bias.cuda();
    // Float sums in another order than the CPU's: tolerance on the scale of the sums (257 terms).
    require_close(values(matmul(da, db).cpu()), values(matmul(a, b)), 1e-4);
    require_close(values(matmul(da.t().t(), db.t().contiguous().t()).cpu()), values(matmul(a, b)),
                  1e-4);
    const auto batch = randn(4, 30, 257, g);
    require_close(values(matmul(batch.cuda(), db).cpu()), values(matmul(batch, b)), 1e-4);
    const auto ad = a.to<double>(), bd = b.to<double>();
    require_close(values(matmul(ad.cuda(), bd.cuda()).cpu()), values(matmul(ad, bd)), 1e-10);

    auto dense = jit([](auto x, auto w, auto c) { return relu(matmul(x, w) + c); });
    const auto y = dense(da, db, dbias);
    CHECK(y.is_cuda());
    require_close(values(y.cpu()), values(dense(a, b, bias)), 1e-4);
    const auto w = randn(129, 257, g);
    require_close(values(linear(da, w.cuda(), dbias).cpu()), values(linear(a, w, bias)), 1e-4);
    CHECK(cuda::cublas_version() >= 110400);
}

TEST_CASE("device: cross_entropy and its gradient, rows of many classes, against the CPU") {
    if (skip_without_gpu())
        return;
    namespace F = nn::functional;
    Generator g(23);
    const auto x = randn(256, 1000, g) * 3.0f; // more classes than a block's threads
    std::vector<std::int64_t> classes(256);
    for (std::size_t i = 0; i < classes.size(); ++i)
        classes[i] = i % 7 == 3 ? -100 : static_cast<std::int64_t>((i * 37) % 1000);
    const auto labels = from_vector(classes);
    const auto w = rand(1000, g) + 0.5f;
    const auto dx = x.cuda();
    const auto dlabels = labels.cuda();
    const auto dw = w.cuda();
    require_close(values(F::cross_entropy(dx, dlabels).cpu()), values(F::cross_entropy(x, labels)),
                  1e-5);
    require_close(values(F::cross_entropy(dx, dlabels, "none"_s, {.label_smoothing = 0.1}).cpu()),
                  values(F::cross_entropy(x, labels, "none"_s, {.label_smoothing = 0.1})), 1e-5);
    const auto gradient = [](const auto& weight) {
        return jit(grad([weight](const auto& in, const auto& t) {
            return F::cross_entropy(in, t, "mean"_s, {.weight = weight, .label_smoothing = 0.2});
        }));
    };
    require_close(values(gradient(dw)(dx, dlabels).cpu()), values(gradient(w)(x, labels)), 1e-4);
    const auto bad = from_vector(std::vector<std::int64_t>{3, 1000}).cuda();
    CHECK_THROWS_AS(F::cross_entropy(x.narrow(0, 0, 2).cuda(), bad), IndexError);
}

TEST_CASE("device: LeNet's convolutions and pooling, values and tape gradients, against the CPU") {
    if (skip_without_gpu())
        return;
    Generator g(24);
    const auto x = randn(64, 1, 28, 28, g);
    const auto w1 = randn(6, 1, 5, 5, g) * 0.2f;
    const auto w2 = randn(16, 6, 5, 5, g) * 0.1f;
    const auto b2 = randn(16, g);
    const auto weights = randn(64, 16, 5, 5, g);
    // LeNet's feature extractor, its gradients for the input and both weights on the tape.
    const auto run = [&](const auto& in, const auto& k1, const auto& k2, const auto& bias,
                         const auto& c) {
        auto vx = autograd::leaf(in);
        auto v1 = autograd::leaf(k1);
        auto v2 = autograd::leaf(k2);
        const auto h = max_pool2d(relu(conv2d(vx, v1, None, 1_c, 2_c)), 2_c);
        const auto y = avg_pool2d(relu(conv2d(h, v2, bias)), 2_c, 1_c);
        auto loss = (y * c).sum();
        autograd::backward(loss, ones_like(loss.value));
        return std::tuple{y.value.cpu(), autograd::gradient(vx).cpu(), autograd::gradient(v1).cpu(),
                          autograd::gradient(v2).cpu()};
    };
    const auto want = run(x, w1, w2, b2, weights);
    const auto got = run(x.cuda(), w1.cuda(), w2.cuda(), b2.cuda(), weights.cuda());
    require_close(values(std::get<0>(got)), values(std::get<0>(want)), 1e-4);
    require_close(values(std::get<1>(got)), values(std::get<1>(want)), 1e-3);
    require_close(values(std::get<2>(got)), values(std::get<2>(want)), 1e-3);
    require_close(values(std::get<3>(got)), values(std::get<3>(want)), 1e-3);
}

TEST_CASE("device: non_blocking copies from pinned memory, whose blocks wait for their copies") {
    if (skip_without_gpu())
        return;
    // The copy waits in the stream behind a matmul (≈20 ms on an H200), so the pinned block it
    // reads is freed, and asked for again, while the copy is still to come: handed out at once,
    // it would be overwritten under the copy (the pool's events prevent that). Small sizes on the
    // emulated device, where every copy is done when it returns.
    const bool emulated = cuda::get_device_name() == "staticpy fake GPU";
    const std::int64_t n = emulated ? 1 << 16 : 1 << 24;
    const std::int64_t m = emulated ? 32 : 8192;
    const auto a = ones<float>(m, m, kCUDA);
    const auto busy = matmul(a, a);
    const auto source = arange<float>(n);
    auto on_device = [&] {
        const auto pinned = source.pin_memory();
        REQUIRE(pinned.is_pinned());
        return pinned.to(kCUDA, true); // returns at once; the pinned block is freed here
    }();
    auto scribble = zeros<float>(n).pin_memory(); // the same size class
    scribble.fill_(-1.0f);
    const auto back = on_device.to(kCPU, true);
    REQUIRE(back.is_pinned());
    cuda::synchronize();
    CHECK(values(back) == values(source));
    CHECK(busy[0][0].item() == float(m));
    // A batch of a pinning DataLoader goes up the same way.
    struct rows {
        std::int64_t size() const { return 16; }
        std::tuple<Tensor<float, static_shape<8>>, std::int64_t> operator[](std::int64_t i) const {
            return {full<float>(shape(8_c), float(i)), i};
        }
    };
    data::DataLoader loader(rows{}, {.batch_size = 4, .num_workers = 2, .pin_memory = true});
    for (const auto& [xb, yb] : loader) {
        REQUIRE(xb.is_pinned());
        const auto sums = sum(xb.to(kCUDA, true), 1).cpu();
        CHECK(values(sums) == values((yb.to<float>() * 8.0f)));
    }
}
