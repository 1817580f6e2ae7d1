#pragma once
// function_ref<R(Args...)>: a non-owning reference to a callable, as C++26's std::function_ref.
// The GEMM's loop nests take their epilogue through it, so that each loop nest is compiled once
// per element type, not once per caller: every epilogue of a graph is a type of its own, and each
// used to instantiate the whole loop nest again. It costs one indirect call per micro-tile.
// (parallel_chunks and parallel_tasks keep their callable's type: taken through a function_ref
// they made the LeNet-5 epoch 3-4 % slower.)
//
//   void for_blocks(function_ref<void(std::int64_t)> body);
//   for_blocks([&](std::int64_t b) { ... });     // the lambda must outlive the call

#include <memory>
#include <type_traits>
#include <utility>

namespace staticpy::kernels {

template <class Signature>
class function_ref;

template <class R, class... Args>
class function_ref<R(Args...)> {
public:
    /// The empty reference: operator bool is false, and it must not be called.
    function_ref() = default;

    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> &&
             std::is_invocable_r_v<R, F&, Args...>)
        function_ref(F&& f) // NOLINT(google-explicit-constructor): converted at the call, as std's
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(object))(
                  std::forward<Args>(args)...);
          }) {}

    explicit operator bool() const { return call_ != nullptr; }
    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_ = nullptr;
    R (*call_)(void*, Args...) = nullptr;
};

} // namespace staticpy::kernels
