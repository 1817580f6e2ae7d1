#pragma once
// The hand-written side of the zero-overhead check: the computation of chain_staticpy.hpp with
// plain structs, the code staticpy's dict should compile down to.

namespace zo {

struct config_t {
    double lr;
    long long epochs;
    double momentum;
};

struct state_t {
    double lr;
    long long epochs;
    double momentum;
    double velocity;
};

inline double struct_chain(double lr, long long epochs, double momentum, double grad) {
    const config_t config{lr, epochs, momentum};
    state_t state{config.lr * 0.5, config.epochs, config.momentum, 0.0};
    for (long long e = 0; e < state.epochs; ++e) {
        state.velocity = state.momentum * state.velocity - state.lr * grad;
        state.lr *= 0.9;
    }
    return state.velocity + state.lr;
}

} // namespace zo
