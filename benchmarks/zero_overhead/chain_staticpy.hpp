#pragma once
// The staticpy side of the zero-overhead check: a training config kept in a dict whose values are
// run-time numbers, transformed by a chain of update / setitem / getitem. Every key is known at
// compile time, so each lookup should compile to a plain member access, as in chain_struct.hpp.

#include <staticpy/containers/dict.hpp>

namespace zo {

inline double staticpy_chain(double lr, long long epochs, double momentum, double grad) {
    using namespace staticpy::literals;
    const auto config = staticpy::dict("lr"_s = lr, "epochs"_s = epochs, "momentum"_s = momentum);
    // Python: state = dict(config); state.update(lr=config["lr"] * 0.5, velocity=0.0)
    auto state = config.update("lr"_s = config["lr"_s] * 0.5, "velocity"_s = 0.0);
    for (long long e = 0; e < state["epochs"_s]; ++e) {
        // Python: state["velocity"] = ...; setitem returns the new dict, of the same type here.
        state = state.setitem("velocity"_s,
                              state["momentum"_s] * state["velocity"_s] - state["lr"_s] * grad);
        state["lr"_s] *= 0.9; // in place, through the reference that getitem returns
    }
    return state["velocity"_s] + state["lr"_s];
}

} // namespace zo
