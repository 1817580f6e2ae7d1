// The CUDA source staticpy generates for a graph's fused kernels (backend/cuda/codegen.hpp),
// checked without a GPU in two ways:
//   - NVRTC compiles it to PTX for compute capabilities 8.0 and 9.0, and ptxas accepts that PTX;
//   - the same source, compiled for the host with the emulation layer (cuda_host_emulation.hpp)
//     and launched over a grid with cuLaunchKernel-style arguments (backend/cuda/launch.hpp),
//     gives the CPU backend's results: elementwise kernels (broadcast, transposed and contiguous
//     operands, run-time scalars) and reductions in both forms (a thread per output; a block per
//     output with warp shuffles, split over blocks with a partials pass): sum into a double
//     accumulator, amax with NaN, blocks with threads that hold no element.
// Label cuda-codegen. Without the toolkit, the NVRTC half says it is skipped and why.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include <dlfcn.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace staticpy;
using cuda::cuda_layout;

namespace {

fs::path scratch() {
    const fs::path p =
        fs::temp_directory_path() / ("staticpy_codegen_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
}

void write(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

/// NVRTC compiles `source` for compute_80 and compute_90 (a PTX with each of `entries`), and
/// ptxas accepts each PTX.
void check_with_nvrtc(const std::string& source,
                      const std::vector<std::string>& entries = {"kernel_0"}) {
    if (!cuda::detail::process_nvrtc().api) {
        WARN("NVRTC part skipped: " << cuda::detail::process_nvrtc().unavailable);
        return;
    }
    const cuda::kernel_cache no_cache{fs::path()};
    for (const char* arch : {"80", "90"}) {
        const std::string ptx =
            cuda::compile_kernels(source, std::string("compute_") + arch, no_cache);
        CHECK_THAT(ptx, Catch::Contains(std::string(".target sm_") + arch));
        for (const std::string& entry : entries)
            CHECK_THAT(ptx, Catch::Contains(".entry " + entry));
        if (std::string(STATICPY_TEST_PTXAS).empty()) {
            WARN("ptxas part skipped: no CUDA toolkit found by CMake");
            continue;
        }
        const fs::path file = scratch() / (std::string("k") + arch + ".ptx");
        write(file, ptx);
        const std::string cmd = std::string(STATICPY_TEST_PTXAS) + " -arch=sm_" + arch + " " +
                                file.string() + " -o /dev/null";
        INFO(cmd);
        CHECK(std::system(cmd.c_str()) == 0);
    }
}

/// The generated source compiled for the host with the emulation layer, loaded with dlopen.
class host_module {
public:
    explicit host_module(const std::string& source,
                         const std::vector<std::string>& kernels = {"kernel_0"}) {
        static int serial = 0;
        const fs::path dir = scratch();
        const std::string stem = "m" + std::to_string(serial++);
        std::string text = source;
        for (const std::string& k : kernels)
            text += "STATICPY_EMULATE(" + k + ")\n";
        write(dir / (stem + ".cpp"), text);
        const fs::path so = dir / (stem + ".so");
        const std::string cmd =
            std::string(STATICPY_TEST_CXX) +
            " -std=c++20 -O0 -w -pthread -shared -fPIC -include " STATICPY_TEST_EMULATION " " +
            (dir / (stem + ".cpp")).string() + " -o " + so.string();
        INFO(cmd);
        REQUIRE(std::system(cmd.c_str()) == 0);
        handle_ = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
        REQUIRE(handle_ != nullptr);
    }
    ~host_module() {
        if (handle_)
            ::dlclose(handle_);
    }
    host_module(const host_module&) = delete;
    host_module& operator=(const host_module&) = delete;

    /// Runs kernel `name` over grid_x * grid_y blocks of `block` threads.
    void launch(const std::string& name, unsigned grid_x, unsigned grid_y, unsigned block,
                cuda::detail::kernel_arguments& args) {
        using entry = void(unsigned, unsigned, unsigned, void**);
        auto* f = reinterpret_cast<entry*>(::dlsym(handle_, ("emulate_" + name).c_str()));
        REQUIRE(f != nullptr);
        f(grid_x, grid_y, block, args.pointers());
    }
    void launch(int k, unsigned grid, unsigned block, cuda::detail::kernel_arguments& args) {
        launch("kernel_" + std::to_string(k), grid, 1, block, args);
    }

private:
    void* handle_ = nullptr;
};

template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

void require_close(const std::vector<double>& got, const std::vector<double>& want,
                   double rtol = 2e-6) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": " << got[i] << " against " << want[i]);
        if (std::isnan(want[i]))
            CHECK(std::isnan(got[i]));
        else
            CHECK(std::abs(got[i] - want[i]) <= rtol * std::abs(want[i]) + 1e-7);
    }
}

} // namespace

TEST_CASE("codegen: a broadcast elementwise kernel with a run-time scalar, strided") {
    Generator g(7);
    const auto x = randn(3, 5, g);
    const auto y = randn(5, g);
    auto f = jit([](auto a, auto b) { return sigmoid(a * b + 1.5f) - exp(b); });
    const std::string src = cuda::to_cuda(f, {{.contiguous = false, .rank = 2}}, x, y);
    CHECK_THAT(src, Catch::Contains("extern \"C\" __global__ void kernel_0(long long numel, "
                                    "staticpy_dims<2> sizes, const float* in0"));
    check_with_nvrtc(src);

    host_module m(src);
    std::vector<float> out(15, -1.0f);
    cuda::detail::kernel_arguments a;
    a.add<long long>(15);
    a.add_dims(std::vector<long long>{3, 5});
    a.add(x.data_ptr());
    a.add_dims(std::vector<long long>{5, 1});
    a.add(y.data_ptr());
    a.add_dims(std::vector<long long>{0, 1}); // broadcast over rows
    a.add(1.5f);
    a.add(out.data());
    a.add_dims(std::vector<long long>{5, 1});
    m.launch(0, 2, 4, a); // 8 threads for 15 elements: the grid-stride loop's second round
    require_close(std::vector<double>(out.begin(), out.end()), values(f(x, y)));
}

TEST_CASE("codegen: the contiguous form, and a transposed operand through its strides") {
    Generator g(8);
    const auto x = randn(4, 6, g);
    const auto w = randn(6, 4, g);
    auto f = jit([](auto a, auto b) { return tanh(a) * b + abs(a); });
    const std::string contiguous = cuda::to_cuda(f, {{.contiguous = true}}, x, x);
    CHECK_THAT(contiguous, Catch::Contains("const long long o0 = i;"));
    check_with_nvrtc(contiguous);
    {
        host_module m(contiguous);
        const auto y = randn(4, 6, g);
        std::vector<float> out(24);
        cuda::detail::kernel_arguments a;
        a.add<long long>(24);
        a.add(x.data_ptr());
        a.add(y.data_ptr());
        a.add(out.data());
        m.launch(0, 3, 8, a);
        require_close(std::vector<double>(out.begin(), out.end()), values(f(x, y)));
    }
    const auto wt = w.t(); // [4, 6], strides {1, 4}
    const std::string strided = cuda::to_cuda(f, {{.contiguous = false, .rank = 2}}, x, wt);
    check_with_nvrtc(strided);
    host_module m(strided);
    std::vector<float> out(24);
    cuda::detail::kernel_arguments a;
    a.add<long long>(24);
    a.add_dims(std::vector<long long>{4, 6});
    a.add(x.data_ptr());
    a.add_dims(std::vector<long long>{6, 1});
    a.add(wt.data_ptr());
    a.add_dims(std::vector<long long>{wt.strides()[0], wt.strides()[1]});
    a.add(out.data());
    a.add_dims(std::vector<long long>{6, 1});
    m.launch(0, 1, 32, a);
    require_close(std::vector<double>(out.begin(), out.end()), values(f(x, wt)));
}

TEST_CASE("codegen: a fused sum over the last dim, each output folded by one thread") {
    Generator g(9);
    const auto x = randn(3, 50, g);
    auto f = jit([](auto a) { return sum(a * a + 0.25f, 1); });
    for (const bool contiguous : {true, false}) {
        const cuda_layout layout = contiguous ? cuda_layout{.contiguous = true}
                                              : cuda_layout{.rank = 1, .reduced_rank = 1};
        const std::string src = cuda::to_cuda(f, {layout}, x);
        CHECK_THAT(src, Catch::Contains("double acc = out[o_out];"));
        check_with_nvrtc(src);
        host_module m(src);
        std::vector<double> out(3, 0.0); // the sum's identity
        cuda::detail::kernel_arguments a;
        a.add<long long>(3);
        a.add<long long>(50);
        if (!contiguous)
            a.add_dims(std::vector<long long>{3, 50});
        a.add(x.data_ptr());
        if (!contiguous)
            a.add_dims(std::vector<long long>{50, 1});
        a.add(0.25f);
        a.add(out.data());
        if (!contiguous)
            a.add_dims(std::vector<long long>{1});
        m.launch(0, 1, 2, a);
        require_close(out, values(f(x)), 1e-6);
    }
}

TEST_CASE("codegen: amax over the first dim propagates NaN, kept dims first in the launch") {
    std::vector<float> v(12);
    for (int i = 0; i < 12; ++i)
        v[i] = static_cast<float>((i * 7) % 5) - 2.0f;
    v[5] = std::numeric_limits<float>::quiet_NaN();
    const auto x = from_vector(v).reshape(3, 4); // column 1 holds the NaN
    auto f = jit([](auto a) { return amax(a, 0); });
    const std::string src = cuda::to_cuda(f, {{.rank = 1, .reduced_rank = 1}}, x);
    check_with_nvrtc(src);
    host_module m(src);
    std::vector<float> out(4, -std::numeric_limits<float>::infinity()); // amax's identity
    cuda::detail::kernel_arguments a;
    a.add<long long>(4);
    a.add<long long>(3);
    a.add_dims(std::vector<long long>{4, 3}); // the kept dim (columns), then the reduced (rows)
    a.add(x.data_ptr());
    a.add_dims(std::vector<long long>{1, 4});
    a.add(out.data());
    a.add_dims(std::vector<long long>{1});
    m.launch(0, 2, 2, a);
    require_close(std::vector<double>(out.begin(), out.end()), values(f(x)));
    CHECK(std::isnan(out[1]));
}

namespace {

/// The arguments of a block-form reduction kernel over a contiguous [outputs, reduced] operand
/// with one run-time scalar.
template <class T, class A>
cuda::detail::kernel_arguments contiguous_reduction_args(long long outputs, long long reduced,
                                                         const T* in, float scalar, A* out,
                                                         A* partials) {
    cuda::detail::kernel_arguments a;
    a.add(outputs);
    a.add(reduced);
    a.add(in);
    a.add(scalar);
    a.add(out);
    a.add(partials);
    return a;
}

} // namespace

TEST_CASE("codegen: a block per output, warps combined by shuffles and shared memory") {
    Generator g(10);
    auto f = jit([](auto a) { return sum(a * a + 0.25f, 1); });
    // 1000 elements an output over 64 threads (two warps); 10 an output: most threads hold none.
    for (const long long reduced : {1000LL, 10LL}) {
        const auto x = randn(3, reduced, g);
        const std::string src = cuda::to_cuda(f, {{.contiguous = true, .block_reduce = true}}, x);
        CHECK_THAT(src, Catch::Contains("staticpy_shfl_down(acc, offset)") &&
                            Catch::Contains("kernel_0_partials"));
        check_with_nvrtc(src);
        host_module m(src, {"kernel_0"});
        std::vector<double> out(3, 0.0);
        auto a = contiguous_reduction_args(3, reduced, x.data_ptr(), 0.25f, out.data(),
                                           static_cast<double*>(nullptr));
        m.launch("kernel_0", 2, 1, 64, a); // two blocks for three outputs: a second round
        require_close(out, values(f(x)), 1e-6);
    }
}

TEST_CASE("codegen: a full reduction split over blocks, then its partials folded") {
    Generator g(11);
    const auto w = randn(4, 300, g);
    const auto x = w.t(); // [300, 4], strides {1, 300}
    auto f = jit([](auto a) { return sum(a * a + 0.25f); });
    // Every dim reduced: the kept space is one element (rank 1, size 1), then the two reduced dims.
    const cuda_layout layout{.rank = 1, .reduced_rank = 2, .block_reduce = true};
    const std::string src = cuda::to_cuda(f, {layout}, x);
    check_with_nvrtc(src);
    host_module m(src, {"kernel_0", "kernel_0_partials"});
    std::vector<double> out(1, 0.0), partials(3, 0.0); // both start at the sum's identity
    cuda::detail::kernel_arguments a;
    a.add<long long>(1);
    a.add<long long>(1200);
    a.add_dims(std::vector<long long>{1, 300, 4});
    a.add(x.data_ptr());
    a.add_dims(std::vector<long long>{0, x.strides()[0], x.strides()[1]});
    a.add(0.25f);
    a.add(out.data());
    a.add_dims(std::vector<long long>{0});
    a.add(partials.data());
    m.launch("kernel_0", 1, 3, 64, a); // the 1200 elements split over three blocks
    CHECK(out[0] == 0.0);              // only the partials are written
    cuda::detail::kernel_arguments b;
    b.add<long long>(1);
    b.add<long long>(3);
    b.add(static_cast<const double*>(partials.data()));
    b.add(out.data());
    m.launch("kernel_0_partials", 1, 1, 32, b);
    require_close(out, values(f(x)), 1e-6);
}

TEST_CASE("codegen: amax in the block form propagates NaN from any thread") {
    std::vector<float> v(200);
    for (int i = 0; i < 200; ++i)
        v[i] = static_cast<float>((i * 37) % 101) - 50.0f;
    v[100 + 77] = std::numeric_limits<float>::quiet_NaN(); // row 1, a thread of the second warp
    const auto x = from_vector(v).reshape(2, 100);
    auto f = jit([](auto a) { return amax(a * 2.0f, 1); });
    const std::string src = cuda::to_cuda(f, {{.contiguous = true, .block_reduce = true}}, x);
    check_with_nvrtc(src);
    host_module m(src, {"kernel_0"});
    std::vector<float> out(2, -std::numeric_limits<float>::infinity());
    auto a = contiguous_reduction_args(2, 100, x.data_ptr(), 2.0f, out.data(),
                                       static_cast<float*>(nullptr));
    m.launch("kernel_0", 1, 1, 64, a);
    require_close(std::vector<double>(out.begin(), out.end()), values(f(x)));
    CHECK(out[0] == 100.0f);
    CHECK(std::isnan(out[1]));
}

TEST_CASE("codegen: the softmax row kernels over the last dim and over the first, with NaN") {
    const std::string src = cuda::softmax_kernels_source();
    if (cuda::detail::process_nvrtc().api) {
        const cuda::kernel_cache no_cache{fs::path()};
        for (const char* arch : {"compute_80", "compute_90"})
            CHECK_THAT(cuda::compile_kernels(src, arch, no_cache),
                       Catch::Contains(".entry softmax_rows_float") &&
                           Catch::Contains(".entry softmax_rows_double"));
    }
    host_module m(src, {"softmax_rows_float"});
    Generator g(12);
    auto x = randn(5, 37, g) * 4.0f;
    x.data_ptr()[2 * 37 + 11] = std::numeric_limits<float>::quiet_NaN(); // row 2, column 11
    for (const int log_form : {0, 1}) {
        // dim -1: 5 rows of 37; dim 0: 37 rows of 5, each 37 apart
        for (const int dim : {1, 0}) {
            INFO("log_form " << log_form << ", dim " << dim);
            const long long rows = dim == 1 ? 5 : 37, cols = dim == 1 ? 37 : 5;
            const long long inner = dim == 1 ? 1 : 37;
            std::vector<float> out(185, -7.0f);
            cuda::detail::kernel_arguments a;
            a.add(rows);
            a.add(cols);
            a.add(inner);
            a.add(static_cast<const float*>(x.data_ptr()));
            a.add(out.data());
            a.add(log_form);
            m.launch("softmax_rows_float", 2, 1, 64, a);
            const auto want = log_form ? values(log_softmax(x, dim)) : values(softmax(x, dim));
            require_close(std::vector<double>(out.begin(), out.end()), want, 2e-6);
        }
    }
}

TEST_CASE("codegen: the class-loss row kernels compile for the GPU, each combination of types") {
    // Their results against the CPU's: emulated_training_test (cross_entropy, nll_loss).
    using cuda::detail::class_loss_kernels;
    for (const std::string& types :
         {class_loss_kernels<float, std::int64_t, float, float>::source(),
          class_loss_kernels<double, double, double, double>::source()}) {
        check_with_nvrtc(cuda::detail::cuda_prelude + types,
                         {"class_loss_targets", "class_loss_rows", "class_loss_total",
                          "class_loss_input_grad", "class_loss_target_grad"});
    }
}

TEST_CASE("codegen: the strided copy kernel compiles for the GPU, each element size") {
    // Its results against the CPU's: emulated_driver_test (views packed, written, filled).
    using cuda::detail::strided_copy_kernels;
    for (const std::string& sized :
         {strided_copy_kernels<1>::source(), strided_copy_kernels<2>::source(),
          strided_copy_kernels<4>::source(), strided_copy_kernels<8>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + sized, {"strided_copy"});
}

TEST_CASE("codegen: the convolution and pooling kernels compile for the GPU, each element type") {
    // Their results against the CPU's: emulated_conv_test.
    using cuda::detail::conv_pool_kernels;
    for (const std::string& typed :
         {conv_pool_kernels<float>::source(), conv_pool_kernels<double>::source(),
          conv_pool_kernels<std::int64_t>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + typed,
                         {"conv_im2col", "conv_output", "conv_gather", "conv_col2im",
                          "pool_forward", "pool_backward"});
}

TEST_CASE("codegen: the row reductions (var, argmax, argmin) compile for the GPU, each type") {
    // Their results against the CPU's: emulated_training_test.
    using cuda::detail::row_reduce_kernels;
    for (const std::string& typed :
         {row_reduce_kernels<float>::source(), row_reduce_kernels<double>::source(),
          row_reduce_kernels<std::int64_t>::source(), row_reduce_kernels<std::int32_t>::source(),
          row_reduce_kernels<std::uint8_t>::source(), row_reduce_kernels<bool>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + typed, {"arg_extremum_rows", "var_rows"});
}

TEST_CASE("codegen: the dropout kernel compiles for the GPU, float and double") {
    // Its masks against the CPU's: emulated_training_test.
    using cuda::detail::dropout_kernels;
    for (const std::string& typed :
         {dropout_kernels<float>::source(), dropout_kernels<double>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + typed, {"dropout_apply"});
}

TEST_CASE("codegen: the normalisation kernels (layer_norm, batch_norm) compile for the GPU") {
    // Their results against the CPU's: emulated_training_test.
    using cuda::detail::norm_kernels;
    for (const std::string& typed : {norm_kernels<float>::source(), norm_kernels<double>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + typed,
                         {"norm_statistics", "norm_running_statistics", "norm_update_running",
                          "norm_gradient_sums", "norm_column_sums", "norm_apply"});
}

TEST_CASE("codegen: the index kernels compile for the GPU, each element and index type") {
    // Their results against the CPU's: emulated_index_test.
    using cuda::detail::index_kernels;
    for (const std::string& typed : {index_kernels<float, std::int64_t>::source(),
                                     index_kernels<double, std::int32_t>::source(),
                                     index_kernels<std::int64_t, std::int64_t>::source(),
                                     index_kernels<std::int32_t, std::int64_t>::source(),
                                     index_kernels<std::uint8_t, std::int64_t>::source(),
                                     index_kernels<bool, std::int32_t>::source()})
        check_with_nvrtc(cuda::detail::cuda_prelude + typed,
                         {"index_first_out_of_range", "indexed_walk"});
}

TEST_CASE("codegen: the elementwise losses and their slopes compile for the GPU") {
    // Their values and gradients against the CPU's: emulated_training_test.
    namespace F = nn::functional;
    namespace D = nn::functional::detail;
    Generator g(31);
    const auto x = randn(3, 5, g), y = rand(3, 5, g);
    auto losses = jit([](auto a, auto b) {
        return F::smooth_l1_loss(a, b, str<"none">{}) + F::huber_loss(a, b, str<"none">{}) +
               F::binary_cross_entropy(sigmoid(a), b, str<"none">{}) +
               F::binary_cross_entropy_with_logits(a, b, str<"none">{});
    });
    auto slopes = jit([](auto a, auto b) {
        return fn::call<D::loss_slope<D::smooth_l1, 0>>(a, b, b) +
               fn::call<D::loss_slope<D::smooth_l1, 1>>(a, b, b) +
               fn::call<D::loss_slope<D::huber, 0>>(a, b, b) +
               fn::call<D::loss_slope<D::huber, 1>>(a, b, b) +
               fn::call<D::loss_slope<D::binary_cross_entropy_fn, 0>>(a, b, b) +
               fn::call<D::loss_slope<D::binary_cross_entropy_fn, 1>>(a, b, b) +
               fn::call<D::loss_slope<D::logit_cross_entropy, 0>>(a, b, b) +
               fn::call<D::loss_slope<D::logit_cross_entropy, 1>>(a, b, b);
    });
    for (const std::string& src :
         {cuda::to_cuda(losses, {{.contiguous = true}}, x, y),
          cuda::to_cuda(slopes, {{.contiguous = true}}, x, y),
          cuda::to_cuda(slopes, {{.contiguous = true}}, x.to<double>(), y.to<double>())})
        check_with_nvrtc(src);
}

TEST_CASE("codegen: contiguous operands read and written four floats an access, then the tail") {
    Generator g(13);
    const auto x = randn(5, 7, g); // 35 elements: 8 packs of 4, then 3 alone
    const auto y = randn(5, 7, g);
    auto f = jit([](auto a, auto b) { return a * sigmoid(b) + 2.0f; });
    const std::string src = cuda::to_cuda(f, {{.contiguous = true, .vector_width = 4}}, x, y);
    CHECK_THAT(src, Catch::Contains("staticpy_pack<float, 4> pack0"));
    if (cuda::detail::process_nvrtc().api) {
        // The packs are single 128-bit accesses in the PTX.
        const std::string ptx =
            cuda::compile_kernels(src, "compute_90", cuda::kernel_cache{fs::path()});
        CHECK_THAT(ptx, Catch::Contains("ld.global.v4.f32") && Catch::Contains("st.global.v4.f32"));
    }
    check_with_nvrtc(src);
    host_module m(src);
    alignas(16) float out[35];
    std::fill(out, out + 35, -1.0f);
    cuda::detail::kernel_arguments a;
    a.add<long long>(35);
    a.add(x.data_ptr());
    a.add(y.data_ptr());
    a.add(2.0f);
    a.add(+out);
    m.launch(0, 2, 3, a); // 6 threads: two rounds of packs, then the tail
    require_close(std::vector<double>(out, out + 35), values(f(x, y)));
}
