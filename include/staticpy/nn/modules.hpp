#pragma once
// staticpy::nn modules: layers that hold their parameters (PyTorch's nn.Module), composed at
// compile time, with the parameters as one staticpy dict keyed by PyTorch's names.
//
//   auto model = nn::Sequential(nn::Linear<784, 128>{}, nn::ReLU{}, nn::Linear<128, 10>{});
//   auto y = model(x);                          // forward with the model's own parameters
//   auto params = model.parameters();           // dict("0.weight"_s = ..., "0.bias"_s = ...,
//                                               //      "2.weight"_s = ..., "2.bias"_s = ...)
//   nn::optim::SGD opt(params, {.lr = 0.1});    // handles: the optimiser updates the model
//   auto loss_fn = [&](const auto& p, const auto& x, const auto& y) {
//       return nn::functional::cross_entropy(nn::functional_call(model, p, x), y);
//   };
//   auto [loss, grads] = jit(value_and_grad(loss_fn))(params, x, y);   // grads: the same keys
//
// A module M provides some of
//   M::own_parameters() const    its own parameters, a dict keyed by their names ("weight",
//                                "bias") of pointers to its tensor members (dict("weight"_s =
//                                &weight): what to(device) moves), or of tensor handles (then
//                                to() is a compile error): the layers
//   M::own_buffers() const       its own buffers, likewise (BatchNorm's "running_mean",
//                                "running_var", "num_batches_tracked"): state that is not trained
//   M::children() const          its submodules, a dict of pointers keyed by their names
//                                ("fc1", or "0" in a Sequential): the composite modules; they
//                                point to members of *this (train() relies on it)
// and always
//   M::forward(self, x...) const the forward pass, where self["weight"_s] is a parameter and
//                                self["fc1"_s] a child, callable as self["fc1"_s](x), and
//                                self.module().training the mode
// and nn::Module<M> (its base) adds parameters(): the own parameters and every child's, each
// child's names after its own and a dot ("fc1.weight"), as PyTorch's named_parameters();
// buffers(), likewise; state_dict(), both in PyTorch's order; model(x); named_parameters();
// named_buffers(); the mode: `training` (true until eval()), train(mode), eval(), which set it
// in the module and every submodule; to(device), cuda(), cpu(), which move every parameter and
// buffer. A user's module is a plain struct of that shape:
//
//   struct MLP : nn::Module<MLP> {
//       nn::Linear<784, 128> fc1;
//       nn::Linear<128, 10> fc2;
//       auto children() const { return dict("fc1"_s = &fc1, "fc2"_s = &fc2); }
//       auto forward(const auto& self, const auto& x) const {
//           return self["fc2"_s](relu(self["fc1"_s](x)));
//       }
//   };
//
// self is the module bound to a dict of parameters (nn::functional_call(model, params, x), as
// torch.func.functional_call) whose keys are parameters()' and whose values are tensors, autodiff
// tape Vars or graph tracers; model(x) binds model.parameters(). Forward passes read the
// parameters through self rather than through the members because a traced graph is a C++
// type: the tensors a gradient is taken with respect to must be arguments of the traced function,
// not members read behind its back (MindSpore's Parameters are implicit graph inputs; C++ cannot
// swap a member's type for a tracer's).
//
// Shapes flow at compile time: Linear<In, Out>'s weight is Tensor<float, shape<Out, In>>, and an
// input whose last size is a compile-time number other than In is a compile error, PyTorch's
// "mat1 and mat2 shapes cannot be multiplied" with the sizes in the failing requirement
// (raise::mat1_and_mat2_shapes<batch, input size, in_features, out_features>, batch -1 when it is
// a run-time size). A run-time size that does not fit is linear()'s RuntimeError.
//
// Initialisation is PyTorch's default (nn.Linear.reset_parameters: kaiming_uniform_ with
// a = sqrt(5), i.e. U(-1/sqrt(in), 1/sqrt(in)), for the weight, U(-1/sqrt(in), 1/sqrt(in)) for the
// bias), drawn from a Generator: the default one unless the layer is given one. The numbers
// are not PyTorch's (its generator is another one), their distribution is.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/for_each.hpp>
#include <boost/hana/unpack.hpp>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/fixed_string.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/tensor.hpp"

namespace staticpy {

namespace raise {
/// Linear's input [Batch x InputSize] (Batch -1: a run-time size) does not fit its weight,
/// [InFeatures x OutFeatures] as mat2: PyTorch's "mat1 and mat2 shapes cannot be multiplied
/// (64x784 and 100x10)".
template <std::int64_t Batch, std::int64_t InputSize, std::int64_t InFeatures,
          std::int64_t OutFeatures>
inline constexpr bool mat1_and_mat2_shapes = false;
} // namespace raise

namespace nn {

namespace detail {

/// d with Prefix before every key: prefixed<"fc1.">(dict("weight"_s = w)) is
/// dict("fc1.weight"_s = w).
template <fixed_string Prefix, class Dict>
auto prefixed(const Dict& d) {
    return boost::hana::unpack(d.entries, [](const auto&... item) {
        return dict(
            (str<Prefix + std::remove_cvref_t<decltype(item.key)>::text>{} = item.value)...);
    });
}

/// Whether M has submodules (children()), and whether one of them is called Name.
template <class M>
concept has_children = requires(const M& m) {
    m.children();
};
template <class M, fixed_string Name>
constexpr bool has_child() {
    if constexpr (has_children<M>)
        return decltype(std::declval<const M&>().children().contains(str<Name>{}))::value;
    else
        return false;
}

/// The last size of X's shape when it is a compile-time number, else -1.
template <class X>
constexpr std::int64_t static_last_size() {
    using S = typename X::shape_type;
    if constexpr (S::rank == 0)
        return -1;
    else
        return S::static_extents[S::rank - 1];
}

/// The first size of X's shape when X is a matrix with a compile-time first size, else -1.
template <class X>
constexpr std::int64_t static_batch_size() {
    using S = typename X::shape_type;
    if constexpr (S::rank != 2)
        return -1;
    else
        return S::static_extents[0];
}

/// A tensor of a module's own_parameters() or own_buffers(): the value itself, or what it points
/// to (a module may give pointers to its members, which to() moves).
template <class V>
const auto& tensor_handle(const V& v) {
    if constexpr (std::is_pointer_v<V>)
        return *v;
    else
        return v;
}

/// A dict of a module's tensors as handles.
template <class... Items>
auto tensor_handles(const dict_t<Items...>& d) {
    return boost::hana::unpack(d.entries, [](const auto&... item) {
        return dict((std::remove_cvref_t<decltype(item.key)>{} = tensor_handle(item.value))...);
    });
}

/// M's own parameters: own_parameters(), or none, as handles.
template <class M>
auto own_parameters_of(const M& m) {
    if constexpr (requires { m.own_parameters(); })
        return tensor_handles(m.own_parameters());
    else
        return dict();
}

/// M's own buffers: own_buffers(), or none, as handles.
template <class M>
auto own_buffers_of(const M& m) {
    if constexpr (requires { m.own_buffers(); })
        return tensor_handles(m.own_buffers());
    else
        return dict();
}

/// Each tensor of a module's own_parameters() or own_buffers() dict (pointers to the members of
/// a module that is not const: the const may be cast away, as train() does for children())
/// replaced by its copy on `device`.
template <class... Items>
void move_tensors(const dict_t<Items...>& d, const Device& device) {
    boost::hana::for_each(d.entries, [&](const auto& item) {
        using V = std::remove_cvref_t<decltype(item.value)>;
        static_assert(std::is_pointer_v<V>,
                      "staticpy: TypeError: module.to(device) moves the tensors that "
                      "own_parameters() and own_buffers() point to: return pointers to the "
                      "members, dict(\"weight\"_s = &weight), not tensor handles");
        if constexpr (std::is_pointer_v<V>) {
            auto& tensor = *const_cast<std::remove_const_t<std::remove_pointer_t<V>>*>(item.value);
            tensor = tensor.to(device);
        }
    });
}

/// The dict `own`, then state(child) of each of M's children (in children()' order), each
/// child's keys after its name and a dot: how parameters(), buffers() and state_dict() recurse.
template <class M, class Own, class State>
auto with_children(const M& m, const Own& own, const State& state) {
    if constexpr (has_children<M>) {
        return boost::hana::unpack(m.children().entries, [&](const auto&... child) {
            return dict(
                own, prefixed<std::remove_cvref_t<decltype(child.key)>::text + fixed_string(".")>(
                         state(*child.value))...);
        });
    } else {
        return own;
    }
}

} // namespace detail

/// A module bound to parameters: what a module's forward pass gets as `self`. self["name"_s] is
/// the module's child of that name, bound in turn (callable: self["fc1"_s](x)), or else the
/// parameter Prefix + name of the parameters (a dict with the model's parameters()' keys).
template <class M, fixed_string Prefix, class Parameters>
class Bound {
public:
    Bound(const M& module, const Parameters& parameters)
        : module_(&module), parameters_(&parameters) {}

    template <fixed_string Name>
    decltype(auto) operator[](str<Name> name) const {
        if constexpr (detail::has_child<M, Name>()) {
            const auto& child = *module_->children()[name];
            using child_type = std::remove_cvref_t<decltype(child)>;
            return Bound<child_type, Prefix + Name + fixed_string("."), Parameters>(child,
                                                                                    *parameters_);
        } else {
            return (*parameters_)[str<Prefix + Name>{}];
        }
    }

    /// The bound module's forward pass.
    template <class... X>
    auto operator()(const X&... x) const {
        return module_->forward(*this, x...);
    }

    /// The module itself (its settings: a LeakyReLU's slope, a layer's sizes).
    [[nodiscard]] const M& module() const noexcept { return *module_; }

private:
    const M* module_;
    const Parameters* parameters_;
};

/// torch.func.functional_call(model, parameters, x): model's forward pass with other parameters
/// (parameters()' keys; tensors, tape Vars or graph tracers), e.g. the ones grad differentiates.
template <class M, class Parameters, class... X>
auto functional_call(const M& model, const Parameters& parameters, const X&... x) {
    return Bound<M, fixed_string(""), Parameters>(model, parameters)(x...);
}

namespace optim {
class state_value;
} // namespace optim
struct IncompatibleKeys;
/// Declared here with its default (a function template's defaults are given once, in its first
/// declaration), defined in nn/checkpoint.hpp: what module.load_state_dict calls.
template <class M>
IncompatibleKeys
load_state_dict(M& module, const std::map<std::string, optim::state_value, std::less<>>& state_dict,
                bool strict = true);

/// What every module shares, on top of its own_parameters(), own_buffers(), children() and
/// forward() (CRTP).
template <class Derived>
class Module {
public:
    /// PyTorch's module.training: whether the module is in training mode (true until eval()).
    /// Layers that behave differently in the two modes (Dropout, BatchNorm) read it in their
    /// forward pass, as self.module().training.
    bool training = true;

    /// PyTorch's module.train(mode=True): sets the mode of the module and of every submodule;
    /// returns the module.
    ///   model.train();            model.train(false);   // as model.eval()
    Derived& train(bool mode = true) {
        training = mode;
        if constexpr (detail::has_children<Derived>) {
            // children() is const and points to members of *this; *this is not const here, so
            // its members are not either, and the const may be cast away.
            boost::hana::unpack(self().children().entries, [&](const auto&... child) {
                (const_cast<std::remove_cvref_t<decltype(*child.value)>*>(child.value)->train(mode),
                 ...);
            });
        }
        return static_cast<Derived&>(*this);
    }

    /// PyTorch's module.eval(): train(false).
    Derived& eval() { return train(false); }

    /// PyTorch's module.to(device): moves every parameter and buffer of the module and of its
    /// submodules to `device`, in place (each member tensor replaced by its copy there); returns
    /// the module. Handles taken before (parameters(), an optimiser's) keep the old tensors, so
    /// move a model before making its optimiser, as PyTorch advises.
    ///   model.to(kCUDA);   model.cuda();   model.cpu();
    Derived& to(const Device& device) {
        if constexpr (requires { self().own_parameters(); })
            detail::move_tensors(self().own_parameters(), device);
        if constexpr (requires { self().own_buffers(); })
            detail::move_tensors(self().own_buffers(), device);
        if constexpr (detail::has_children<Derived>) {
            // As in train(): the children are members of *this, which is not const here.
            boost::hana::unpack(self().children().entries, [&](const auto&... child) {
                (const_cast<std::remove_cvref_t<decltype(*child.value)>*>(child.value)->to(device),
                 ...);
            });
        }
        return static_cast<Derived&>(*this);
    }

    /// PyTorch's module.cuda(device=None): to() the current CUDA device (cuda:index).
    Derived& cuda(int index = -1) { return to(Device(DeviceType::CUDA, index)); }

    /// PyTorch's module.cpu(): to() the CPU.
    Derived& cpu() { return to(Device{}); }

    /// The parameters by PyTorch's names: the own ones, then each child's after its name and a
    /// dot ("0.weight", "fc1.bias"), as handles of the modules' tensors.
    auto parameters() const {
        return detail::with_children(self(), detail::own_parameters_of(self()),
                                     [](const auto& child) { return child.parameters(); });
    }

    /// The buffers by PyTorch's names (named_buffers()): the own ones, then each child's after
    /// its name and a dot ("1.running_mean"), as handles of the modules' tensors.
    auto buffers() const {
        return detail::with_children(self(), detail::own_buffers_of(self()),
                                     [](const auto& child) { return child.buffers(); });
    }

    /// model(x): the forward pass with the module's own parameters.
    template <class... X>
    auto operator()(const X&... x) const {
        const auto params = parameters();
        return functional_call(self(), params, x...);
    }

    /// The parameters by name: the dict parameters() gives (PyTorch's named_parameters()).
    auto named_parameters() const { return parameters(); }

    /// The buffers by name: the dict buffers() gives (PyTorch's named_buffers()).
    auto named_buffers() const { return buffers(); }

    /// What a checkpoint holds, in PyTorch's order (its _save_to_state_dict, then the children's
    /// recursively): the module's own parameters, then its own buffers, then each child's
    /// state_dict() after its name and a dot. Handles of the modules' tensors.
    ///   nn::Sequential(nn::Linear<4, 8>{}, nn::BatchNorm1d<8>{}).state_dict().keys()
    ///   // ['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var',
    ///   //  '1.num_batches_tracked']
    auto state_dict() const {
        return detail::with_children(
            self(), dict(detail::own_parameters_of(self()), detail::own_buffers_of(self())),
            [](const auto& child) { return child.state_dict(); });
    }

    /// PyTorch's module.load_state_dict(state_dict, strict=True): nn::load_state_dict(*this, ...)
    /// of nn/checkpoint.hpp (included by <staticpy/nn.hpp>), its errors PyTorch's. A template, so
    /// that nothing of it is needed before nn/checkpoint.hpp is included.
    ///   model.load_state_dict(nn::load("model.safetensors"));
    template <class StateDict>
    auto load_state_dict(const StateDict& state_dict, bool strict = true) {
        return nn::load_state_dict(static_cast<Derived&>(*this), state_dict, strict);
    }

private:
    const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// =================================================================================================
// Layers
// =================================================================================================

namespace detail {

/// What nn.Linear and nn.Conv2d share: a weight [Out, ...] and an optional bias [Out] of element
/// type T, their names, and PyTorch's reset_parameters for both: kaiming_uniform_ with a =
/// sqrt(5) for the weight, then U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias (no draws for it
/// when fan_in is 0), fan_in being the weight's size(1) times its kernel's size.
template <bool Bias, class T, std::int64_t Out, std::int64_t... WeightRest>
struct weight_and_bias {
    using weight_type = decltype(empty<T>(int_<Out>{}, int_<WeightRest>{}...));
    using bias_type = std::conditional_t<Bias, decltype(empty<T>(int_<Out>{})), none_t>;
    static constexpr std::int64_t fan_in = (WeightRest * ... * 1);

    weight_type weight;
    bias_type bias;

    explicit weight_and_bias(Generator& gen)
        : weight(empty<T>(int_<Out>{}, int_<WeightRest>{}...)) {
        if constexpr (Bias)
            bias = empty<T>(int_<Out>{});
        reset_parameters(gen);
    }

    /// PyTorch's reset_parameters.
    void reset_parameters(Generator& gen = default_generator()) {
        init::kaiming_uniform_(weight, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
        if constexpr (Bias) {
            if constexpr (fan_in > 0) {
                const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
                init::uniform_(bias, -bound, bound, gen);
            } else {
                init::zeros_(bias);
            }
        }
    }

    auto own_parameters() const {
        if constexpr (Bias)
            return dict(str<"weight">{} = &weight, str<"bias">{} = &bias);
        else
            return dict(str<"weight">{} = &weight);
    }
};

} // namespace detail

/// nn.Linear(in_features, out_features, bias): y = x @ weight^T + bias, weight [Out, In].
///   nn::Linear<784, 128> fc;                 // from the default generator
///   nn::Linear<784, 128, false> no_bias(gen); // from a Generator, without bias
template <std::int64_t InFeatures, std::int64_t OutFeatures, bool Bias = true,
          class T = default_float_t>
class Linear : public Module<Linear<InFeatures, OutFeatures, Bias, T>>,
               public detail::weight_and_bias<Bias, T, OutFeatures, InFeatures> {
    static_assert(InFeatures >= 0 && OutFeatures >= 0,
                  "staticpy: RuntimeError: Trying to create tensor with negative dimension");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: nn.Linear's parameters need a floating-point dtype");

public:
    static constexpr std::int64_t in_features = InFeatures;
    static constexpr std::int64_t out_features = OutFeatures;
    using parameters_type = detail::weight_and_bias<Bias, T, OutFeatures, InFeatures>;

    /// Initialised as PyTorch's nn.Linear (reset_parameters), from the default generator.
    Linear() : Linear(default_generator()) {}
    /// Initialised as PyTorch's nn.Linear, from gen.
    explicit Linear(Generator& gen) : parameters_type(gen) {}

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        constexpr std::int64_t size = detail::static_last_size<X>();
        if constexpr (size >= 0 && size != InFeatures) {
            static_assert(raise::mat1_and_mat2_shapes<detail::static_batch_size<X>(), size,
                                                      InFeatures, OutFeatures>,
                          "staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                          "(the input's last size is not the nn::Linear's in_features)");
            return x; // not linear(): its own error would follow this one
        } else if constexpr (Bias)
            return linear(x, self[str<"weight">{}], self[str<"bias">{}]);
        else
            return linear(x, self[str<"weight">{}]);
    }
};

// ---- activations --------------------------------------------------------------------------------

/// nn.Identity: x itself.
struct Identity : Module<Identity> {
    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        return x;
    }
};

/// nn.ReLU, nn.GELU, nn.Tanh, nn.Sigmoid, nn.SiLU: the elementwise function of the same name.
#define STATICPY_NN_ACTIVATION(Name, function)                                                     \
    struct Name : Module<Name> {                                                                   \
        template <class Self, class X>                                                             \
        auto forward(const Self&, const X& x) const {                                              \
            return function(x);                                                                    \
        }                                                                                          \
    };
STATICPY_NN_ACTIVATION(ReLU, relu)
STATICPY_NN_ACTIVATION(GELU, gelu)
STATICPY_NN_ACTIVATION(Tanh, tanh)
STATICPY_NN_ACTIVATION(Sigmoid, sigmoid)
STATICPY_NN_ACTIVATION(SiLU, silu)
#undef STATICPY_NN_ACTIVATION

/// nn.LeakyReLU(negative_slope = 0.01).
struct LeakyReLU : Module<LeakyReLU> {
    double negative_slope = 0.01;

    LeakyReLU() = default;
    explicit LeakyReLU(double slope) : negative_slope(slope) {}

    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        return leaky_relu(x, negative_slope);
    }
};

/// nn.Softmax(dim) and nn.LogSoftmax(dim), the dim a compile-time int: nn::Softmax{1_c}.
#define STATICPY_NN_ACTIVATION_ALONG_DIM(Name, function)                                           \
    template <class Dim>                                                                           \
    struct Name : Module<Name<Dim>> {                                                              \
        Dim dim{};                                                                                 \
        constexpr Name() = default;                                                                \
        constexpr explicit Name(Dim d) : dim(d) {}                                                 \
        template <class Self, class X>                                                             \
        auto forward(const Self&, const X& x) const {                                              \
            return function(x, dim);                                                               \
        }                                                                                          \
    };
STATICPY_NN_ACTIVATION_ALONG_DIM(Softmax, softmax)
STATICPY_NN_ACTIVATION_ALONG_DIM(LogSoftmax, log_softmax)
#undef STATICPY_NN_ACTIVATION_ALONG_DIM

// =================================================================================================
// Sequential
// =================================================================================================

/// nn.Sequential(layers...): each layer's output is the next one's input. The parameters of
/// layer i are named "i.<name>" ("0.weight"), as PyTorch names them.
///   nn::Sequential model(nn::Linear<784, 128>{}, nn::ReLU{}, nn::Linear<128, 10>{});
///   model[0_c].weight                        // the first layer
template <class... Layers>
class Sequential : public Module<Sequential<Layers...>> {
public:
    static constexpr std::size_t size = sizeof...(Layers);

    explicit Sequential(Layers... layers) : layers_(std::move(layers)...) {}

    /// model[i_c]: layer i (a reference: its parameters are the model's).
    template <long long I>
    const auto& operator[](int_<I>) const {
        static_assert(I >= 0 && I < static_cast<long long>(size),
                      "staticpy: IndexError: index out of range in nn.Sequential");
        return std::get<I>(layers_);
    }
    template <long long I>
    auto& operator[](int_<I>) {
        static_assert(I >= 0 && I < static_cast<long long>(size),
                      "staticpy: IndexError: index out of range in nn.Sequential");
        return std::get<I>(layers_);
    }

    /// The layers, named by their index: "0", "1", ...
    auto children() const {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return dict((str<decimal_fixed_string<I>()>{} = &std::get<I>(layers_))...);
        }
        (std::index_sequence_for<Layers...>{});
    }

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        return forward_from<0>(self, x);
    }

private:
    template <std::size_t I, class Self, class X>
    auto forward_from(const Self& self, const X& x) const {
        if constexpr (I == size)
            return x;
        else
            return forward_from<I + 1>(self, self[str<decimal_fixed_string<I>()>{}](x));
    }

    std::tuple<Layers...> layers_;
};

template <class... Layers>
Sequential(Layers...) -> Sequential<Layers...>;

} // namespace nn

} // namespace staticpy
