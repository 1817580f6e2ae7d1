#pragma once
// staticpy::nn::init: PyTorch 1.13's torch.nn.init, the in-place initialisers of parameters
// (uniform_, normal_, trunc_normal_, constant_, ones_, zeros_, eye_, xavier_uniform_,
// xavier_normal_, kaiming_uniform_, kaiming_normal_) and calculate_gain.
//
//   auto w = empty<float>(128_c, 784_c);   // nn.Linear(784, 128).reset_parameters():
//   auto b = empty<float>(128_c);
//   nn::init::kaiming_uniform_(w, std::sqrt(5.0));           // U(-1/sqrt(784), 1/sqrt(784))
//   nn::init::uniform_(b, -1 / std::sqrt(784.0), 1 / std::sqrt(784.0));
//   staticpy::Generator gen(0);
//   nn::init::normal_(w, 0.0, 0.02, gen);                    // from a generator of one's own
//
// A Tensor is a handle: each initialiser writes the elements of the tensor it is given (a view
// writes through to what it views, contiguous or strided) and returns that handle. The random
// ones draw from the generator passed last (the default generator otherwise, its mutex held
// meanwhile), one draw per element in row-major order, so one seed gives the same values whatever
// the tensor's strides: uniform_(t, 0, 1, gen) and normal_(t, 0, 1, gen) write what rand(...,
// gen) and randn(..., gen) would return. They take float and double tensors (another element
// type is a compile error "staticpy: TypeError: ..."); constant_, ones_, zeros_ and eye_ take any,
// as PyTorch's fill_ does.
//
// Errors are PyTorch's: ValueError for what nn/init.py raises (an unknown nonlinearity or mode,
// fan-in of a tensor of fewer than 2 dims, eye_ of another rank; Python's ZeroDivisionError, which
// staticpy has not, is a ValueError "float division by zero (...)"), RuntimeError for what
// uniform_ and normal_ check in ATen (a range from > to, a negative std). The tensor's rank is a
// compile-time constant, yet a wrong rank throws at run time, as in PyTorch. Not provided:
// dirac_, orthogonal_ (a QR factorisation) and sparse_. PyTorch's warnings (a zero-element tensor
// given to kaiming_, a mean far outside trunc_normal_'s [a, b]) are not printed.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/value.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::nn::init {

namespace detail {

template <class T>
inline constexpr bool is_float_or_double_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// A number in an ATen message as its TORCH_CHECK prints it (a C++ stream: %g, 6 digits): "2",
/// "-0.5", "3e+38", "nan".
inline std::string number_text(double value) {
    std::array<char, 32> buf{};
    const auto [end, ec] =
        std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::general, 6);
    (void)ec; // 32 characters hold any %g of 6 digits
    return std::string(buf.data(), end);
}

/// Python's ZeroDivisionError (which staticpy reports as a ValueError, as lr_scheduler does): a
/// float division by zero in nn/init.py's arithmetic.
[[noreturn]] inline void zero_division(std::string_view why) {
    throw ValueError("float division by zero (" + std::string(why) + ")");
}

/// Tensor.uniform_'s checks (ATen's uniform_impl_): both bounds finite in T, from <= to, and
/// to - from representable in T.
template <class T>
void check_uniform_bounds(double from, double to) {
    constexpr double lowest = std::numeric_limits<T>::lowest();
    constexpr double max = std::numeric_limits<T>::max();
    constexpr std::string_view dtype = std::is_same_v<T, float> ? "float" : "double";
    constexpr std::string_view scalar_type = std::is_same_v<T, float> ? "Float" : "Double";
    if (!(from >= lowest && from <= max))
        throw RuntimeError("from is out of bounds for " + std::string(dtype));
    if (!(to >= lowest && to <= max))
        throw RuntimeError("to is out of bounds for " + std::string(dtype));
    if (!(from <= to))
        throw RuntimeError("uniform_ expects to return a [from, to) range, but found from=" +
                           number_text(from) + " > to=" + number_text(to));
    if (!(to - from <= max))
        throw RuntimeError("uniform_ expects to-from <= std::numeric_limits<" +
                           std::string(scalar_type) + ">::max(), but found to=" + number_text(to) +
                           " and from=" + number_text(from) +
                           " which result in to-from to exceed the limit");
}

/// Tensor.normal_'s check (ATen's CHECK_NORMAL_STD): NaN fails it too.
inline void check_normal_std(double std_dev) {
    if (!(std_dev >= 0.0))
        throw RuntimeError("normal expects std >= 0.0, but found std " + number_text(std_dev));
}

/// Writes draw() into each element of `tensor`, in row-major order, through the strided walk
/// Tensor::fill_ uses: the n-th draw lands on the n-th element whatever the strides.
template <class T, class S, class Draw>
void assign_each(Tensor<T, S>& tensor, Draw&& draw) {
    T* const base = tensor.storage().data();
    staticpy::detail::for_each_offset(tensor.sizes(), tensor.storage_offset(), tensor.strides(),
                                      [&](std::int64_t offset) { base[offset] = draw(); });
}

/// erf^-1(y) in double precision (C++ has no erfinv; trunc_normal_ needs it, as PyTorch's
/// erfinv_): ±inf at ±1, NaN outside [-1, 1]. Winitzki's closed form (relative error below 2e-3
/// in the middle, worse in the tails) starts three Halley steps on erf(x) = |y|, each of which
/// triples the correct digits: two reach full precision for |y| < 0.99, the third is for the
/// tails (y = 1 - 2^-k, k up to 52: within an ulp). Where erf(x) is near 1 the residual is taken
/// from erfc, since erf(x) - y would have lost its digits.
inline double erfinv(double y) {
    if (!(y >= -1.0 && y <= 1.0))
        return std::numeric_limits<double>::quiet_NaN();
    if (y == 1.0 || y == -1.0)
        return std::copysign(std::numeric_limits<double>::infinity(), y);
    if (y == 0.0)
        return y; // keeps the sign of zero
    constexpr double pi = 3.14159265358979323846;
    constexpr double winitzki_a = 0.147;
    const double ay = std::fabs(y);
    const double log_one_minus_y2 = std::log((1.0 - ay) * (1.0 + ay)); // exact 1 - ay near 1
    const double c = 2.0 / (pi * winitzki_a) + log_one_minus_y2 / 2.0;
    double x = std::sqrt(std::sqrt(c * c - log_one_minus_y2 / winitzki_a) - c);
    for (int step = 0; step < 3; ++step) {
        const double residual = ay < 0.5 ? std::erf(x) - ay : (1.0 - ay) - std::erfc(x);
        const double slope = 2.0 / std::sqrt(pi) * std::exp(-x * x); // erf'(x)
        const double newton = residual / slope;
        x -= newton / (1.0 + x * newton); // Halley's step, with erf''(x) = -2x erf'(x)
    }
    return std::copysign(x, y);
}

/// nn/init.py's _calculate_fan_in_and_fan_out: (size(1), size(0)), each times the receptive
/// field (the product of the sizes after the first two).   auto [fan_in, fan_out] = ...
template <class T, class S>
std::pair<std::int64_t, std::int64_t> fan_in_and_fan_out(const Tensor<T, S>& tensor) {
    if constexpr (Tensor<T, S>::rank < 2) {
        throw ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
    } else {
        const auto& sizes = tensor.sizes();
        std::int64_t receptive_field_size = 1;
        for (std::size_t d = 2; d < sizes.size(); ++d)
            receptive_field_size *= sizes[d];
        return {sizes[1] * receptive_field_size, sizes[0] * receptive_field_size};
    }
}

/// Whether `mode`, lowercased (ASCII), is `lowercase`: nn/init.py compares mode.lower().
inline bool lowercased_equals(std::string_view mode, std::string_view lowercase) {
    return std::equal(
        mode.begin(), mode.end(), lowercase.begin(), lowercase.end(),
        [](char m, char l) { return (m >= 'A' && m <= 'Z' ? m - 'A' + 'a' : m) == l; });
}

/// nn/init.py's _calculate_correct_fan: fan_in or fan_out as `mode` says (checked first).
template <class T, class S>
std::int64_t correct_fan(const Tensor<T, S>& tensor, std::string_view mode) {
    const bool fan_in = lowercased_equals(mode, "fan_in");
    if (!fan_in && !lowercased_equals(mode, "fan_out")) {
        std::string lowered(mode);
        for (char& c : lowered)
            if (c >= 'A' && c <= 'Z')
                c = static_cast<char>(c - 'A' + 'a');
        throw ValueError("Mode " + lowered +
                         " not supported, please use one of ['fan_in', 'fan_out']");
    }
    const auto [in, out] = fan_in_and_fan_out(tensor);
    return fan_in ? in : out;
}

/// A negative_slope that nn/init.py refuses: not an int or float (a bool, a str, ...). None
/// (staticpy::None) is no slope, as in Python; std::optional<double> takes the other overload.
template <class P>
inline constexpr bool is_non_number_param_v =
    !std::is_same_v<std::remove_cvref_t<P>, std::optional<double>> &&
    !std::is_same_v<std::remove_cvref_t<P>, std::nullopt_t> && kind_v<P> != kind::integer &&
    kind_v<P> != kind::floating;

} // namespace detail

// =================================================================================================
// calculate_gain
// =================================================================================================

/// torch.nn.init.calculate_gain: the recommended gain for a nonlinearity (nn.functional's name):
/// 1 for linear, conv{1,2,3}d, conv_transpose{1,2,3}d and sigmoid; 5/3 for tanh; sqrt(2) for
/// relu; sqrt(2 / (1 + negative_slope^2)) for leaky_relu (param, default 0.01); 3/4 for selu.
///   calculate_gain("leaky_relu", 0.2)   // 1.3867504905630728
inline double calculate_gain(std::string_view nonlinearity, std::optional<double> param = {}) {
    constexpr std::string_view gain_one[] = {
        "linear",           "conv1d",           "conv2d",           "conv3d",
        "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid"};
    if (std::find(std::begin(gain_one), std::end(gain_one), nonlinearity) != std::end(gain_one))
        return 1.0;
    if (nonlinearity == "tanh")
        return 5.0 / 3;
    if (nonlinearity == "relu")
        return std::sqrt(2.0);
    if (nonlinearity == "leaky_relu") {
        const double negative_slope = param.value_or(0.01);
        return std::sqrt(2.0 / (1 + negative_slope * negative_slope));
    }
    if (nonlinearity == "selu")
        return 3.0 / 4; // found empirically by PyTorch (pytorch/pytorch#50664)
    throw ValueError("Unsupported nonlinearity " + std::string(nonlinearity));
}

/// calculate_gain with a param that is no number (a bool, a str): Python's isinstance check
/// refuses it for leaky_relu, "negative_slope True not a valid number"; the other
/// nonlinearities ignore their param. None is no param.
template <class P>
requires detail::is_non_number_param_v<P>
double calculate_gain(std::string_view nonlinearity, const P& param) {
    if constexpr (kind_v<P> != kind::none) {
        if (nonlinearity == "leaky_relu")
            throw ValueError("negative_slope " + str_of(param) + " not a valid number");
    }
    return calculate_gain(nonlinearity);
}

// =================================================================================================
// Fills
// =================================================================================================

/// torch.nn.init.constant_: every element `val` (converted to the element type, as fill_).
template <class T, class S, class V>
requires std::is_arithmetic_v<V> Tensor<T, S> constant_(Tensor<T, S> tensor, V val) {
    tensor.fill_(static_cast<T>(val));
    return tensor;
}

/// torch.nn.init.ones_: every element 1.
template <class T, class S>
Tensor<T, S> ones_(Tensor<T, S> tensor) {
    tensor.fill_(T(1));
    return tensor;
}

/// torch.nn.init.zeros_: every element 0.
template <class T, class S>
Tensor<T, S> zeros_(Tensor<T, S> tensor) {
    tensor.fill_(T(0));
    return tensor;
}

/// torch.nn.init.eye_: the identity matrix of a 2-D tensor (ones on the main diagonal of a
/// rectangular one); another rank is ValueError("Only tensors with 2 dimensions are supported").
template <class T, class S>
Tensor<T, S> eye_(Tensor<T, S> tensor) {
    if constexpr (Tensor<T, S>::rank != 2) {
        throw ValueError("Only tensors with 2 dimensions are supported");
    } else {
        tensor.fill_(T(0));
        const std::int64_t diagonal = std::min(tensor.sizes()[0], tensor.sizes()[1]);
        for (std::int64_t i = 0; i < diagonal; ++i)
            tensor(i, i) = T(1);
        return tensor;
    }
}

// =================================================================================================
// Random fills
// =================================================================================================

/// torch.nn.init.uniform_: values from U(a, b), a + (b - a) u with u as rand draws it (24 random
/// bits for float, 53 for double). RuntimeError (ATen's text) unless a <= b, both finite in T.
template <class T, class S>
Tensor<T, S> uniform_(Tensor<T, S> tensor, double a = 0.0, double b = 1.0,
                      Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::uniform_ needs a float or double tensor");
    detail::check_uniform_bounds<T>(a, b);
    const auto lock = staticpy::detail::lock_if_default(gen);
    const double width = b - a;
    detail::assign_each(tensor, [&] {
        return static_cast<T>(
            a + width * static_cast<double>(staticpy::detail::uniform_sample<T>(gen)));
    });
    return tensor;
}

/// torch.nn.init.normal_: values from N(mean, std^2), mean + std z with z as randn draws it.
/// RuntimeError("normal expects std >= 0.0, but found std -1") for a negative std.
template <class T, class S>
Tensor<T, S> normal_(Tensor<T, S> tensor, double mean = 0.0, double std_dev = 1.0,
                     Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::normal_ needs a float or double tensor");
    detail::check_normal_std(std_dev);
    const auto lock = staticpy::detail::lock_if_default(gen);
    detail::assign_each(tensor, [&] { return static_cast<T>(mean + std_dev * gen.normal()); });
    return tensor;
}

/// torch.nn.init.trunc_normal_: values from N(mean, std^2) truncated to [a, b], by PyTorch's
/// method: u uniform in [2 cdf(alpha) - 1, 2 cdf(beta) - 1) (alpha, beta: a and b standardised),
/// then mean + std sqrt(2) erfinv(u), clamped to [a, b]. One draw per element (53 bits, also for
/// float tensors: the tails need them). It is exact for any [a, b], and best where a <= mean <= b
/// (far outside, cdf rounds to 0 or 1 and the values pile up at a bound, as in PyTorch).
template <class T, class S>
Tensor<T, S> trunc_normal_(Tensor<T, S> tensor, double mean = 0.0, double std_dev = 1.0,
                           double a = -2.0, double b = 2.0, Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::trunc_normal_ needs a float or double tensor");
    if (std_dev == 0.0)
        detail::zero_division("trunc_normal_: std is 0");
    const auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
    const double low = 2 * norm_cdf((a - mean) / std_dev) - 1;
    const double high = 2 * norm_cdf((b - mean) / std_dev) - 1;
    detail::check_uniform_bounds<T>(low, high); // PyTorch's tensor.uniform_(low, high)
    const auto lock = staticpy::detail::lock_if_default(gen);
    const double width = high - low;
    const double scale = std_dev * std::sqrt(2.0);
    detail::assign_each(tensor, [&] {
        const double x = detail::erfinv(low + width * gen.uniform()) * scale + mean;
        return static_cast<T>(std::min(std::max(x, a), b)); // clamp_(min=a, max=b); NaN stays
    });
    return tensor;
}

// =================================================================================================
// Xavier (Glorot) and Kaiming (He)
// =================================================================================================

/// torch.nn.init.xavier_uniform_: U(-bound, bound), bound = gain sqrt(6 / (fan_in + fan_out)).
template <class T, class S>
Tensor<T, S> xavier_uniform_(Tensor<T, S> tensor, double gain = 1.0,
                             Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::xavier_uniform_ needs a float or double tensor");
    const auto [fan_in, fan_out] = detail::fan_in_and_fan_out(tensor);
    if (fan_in + fan_out == 0)
        detail::zero_division("xavier_uniform_: fan_in + fan_out is 0");
    const double std_dev = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
    // The uniform bounds with that standard deviation.
    const double bound = std::sqrt(3.0) * std_dev;
    return init::uniform_(std::move(tensor), -bound, bound, gen);
}

/// torch.nn.init.xavier_normal_: N(0, std^2), std = gain sqrt(2 / (fan_in + fan_out)).
template <class T, class S>
Tensor<T, S> xavier_normal_(Tensor<T, S> tensor, double gain = 1.0,
                            Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::xavier_normal_ needs a float or double tensor");
    const auto [fan_in, fan_out] = detail::fan_in_and_fan_out(tensor);
    if (fan_in + fan_out == 0)
        detail::zero_division("xavier_normal_: fan_in + fan_out is 0");
    const double std_dev = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
    return init::normal_(std::move(tensor), 0.0, std_dev, gen);
}

/// torch.nn.init.kaiming_uniform_: U(-bound, bound), bound = gain sqrt(3 / fan), fan as `mode`
/// says ("fan_in" or "fan_out", any case), gain = calculate_gain(nonlinearity, a) (a: the
/// negative slope of a leaky_relu). A zero-element tensor is left as it is. nn.Linear's and
/// nn.Conv's reset_parameters use a = sqrt(5): bound 1 / sqrt(fan_in).
template <class T, class S>
Tensor<T, S> kaiming_uniform_(Tensor<T, S> tensor, double a = 0.0, std::string_view mode = "fan_in",
                              std::string_view nonlinearity = "leaky_relu",
                              Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::kaiming_uniform_ needs a float or double tensor");
    if (tensor.numel() == 0)
        return tensor; // PyTorch warns "Initializing zero-element tensors is a no-op"
    const std::int64_t fan = detail::correct_fan(tensor, mode);
    const double std_dev = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
    // The uniform bounds with that standard deviation.
    const double bound = std::sqrt(3.0) * std_dev;
    return init::uniform_(std::move(tensor), -bound, bound, gen);
}

/// torch.nn.init.kaiming_normal_: N(0, std^2), std = gain / sqrt(fan), with kaiming_uniform_'s
/// arguments.
template <class T, class S>
Tensor<T, S> kaiming_normal_(Tensor<T, S> tensor, double a = 0.0, std::string_view mode = "fan_in",
                             std::string_view nonlinearity = "leaky_relu",
                             Generator& gen = default_generator()) {
    static_assert(detail::is_float_or_double_v<T>,
                  "staticpy: TypeError: nn::init::kaiming_normal_ needs a float or double tensor");
    if (tensor.numel() == 0)
        return tensor; // PyTorch warns "Initializing zero-element tensors is a no-op"
    const std::int64_t fan = detail::correct_fan(tensor, mode);
    const double std_dev = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
    return init::normal_(std::move(tensor), 0.0, std_dev, gen);
}

} // namespace staticpy::nn::init
