// kernels::function_ref, through which the GEMM takes its epilogue: it calls the referenced
// callable with its arguments, returns its result, sees the callable's state (a reference, not a
// copy), is empty when default-constructed, and lets an exception through. Beside it,
// parallel_chunks and parallel_tasks, which take their callables by type.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include <staticpy/kernels/function_ref.hpp>
#include <staticpy/kernels/parallel.hpp>

using staticpy::kernels::function_ref;

namespace {
std::int64_t sum_of(function_ref<std::int64_t(std::int64_t, std::int64_t)> f) {
    return f(3, 4);
}
} // namespace

TEST_CASE("function_ref: calls, returns, refers and rethrows") {
    int calls = 0;
    auto add = [&](std::int64_t a, std::int64_t b) {
        ++calls;
        return a + b;
    };
    CHECK(sum_of(add) == 7);
    CHECK(sum_of([](std::int64_t a, std::int64_t b) { return a * b; }) == 12);
    CHECK(calls == 1); // the lambda itself was called, not a copy

    const auto constant = [](std::int64_t, std::int64_t) -> std::int64_t { return 42; };
    CHECK(sum_of(constant) == 42);

    function_ref<void(int)> empty;
    CHECK_FALSE(static_cast<bool>(empty));
    std::string seen;
    auto append = [&](int v) { seen += std::to_string(v); };
    function_ref<void(int)> ref = append;
    CHECK(static_cast<bool>(ref));
    ref(1);
    ref(2);
    CHECK(seen == "12");

    function_ref<void()> thrower = [] { throw std::runtime_error("from the callable"); };
    CHECK_THROWS_WITH(thrower(), "from the callable");
}

TEST_CASE("parallel_chunks and parallel_tasks cover their range once") {
    std::int64_t covered[100] = {};
    staticpy::kernels::parallel_chunks(100, 3, [&](std::int64_t b, std::int64_t e, int) {
        for (std::int64_t i = b; i < e; ++i)
            ++covered[i];
    });
    for (std::int64_t c : covered)
        CHECK(c == 1);
    int done[7] = {};
    staticpy::kernels::parallel_tasks(7, 2, [&](int t) { ++done[t]; });
    for (int d : done)
        CHECK(d == 1);
    CHECK_THROWS_AS(staticpy::kernels::parallel_tasks(5, 2,
                                                      [](int t) {
                                                          if (t == 3)
                                                              throw std::invalid_argument("task");
                                                      }),
                    std::invalid_argument);
}
