#pragma once
// The same computation on a raw hana::map, for reference: what staticpy's dict is measured against
// at compile time (compile_cost.py) should cost nothing at run time either.

#include <boost/hana/at_key.hpp>
#include <boost/hana/map.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>

namespace zo {

inline double hana_chain(double lr, long long epochs, double momentum, double grad) {
    namespace hana = boost::hana;
    constexpr auto k_lr = hana::string_c<'l', 'r'>;
    constexpr auto k_epochs = hana::string_c<'e', 'p', 'o', 'c', 'h', 's'>;
    constexpr auto k_momentum = hana::string_c<'m', 'o', 'm', 'e', 'n', 't', 'u', 'm'>;
    constexpr auto k_velocity = hana::string_c<'v', 'e', 'l', 'o', 'c', 'i', 't', 'y'>;
    const auto config = hana::make_map(hana::make_pair(k_lr, lr), hana::make_pair(k_epochs, epochs),
                                       hana::make_pair(k_momentum, momentum));
    auto state = hana::make_map(
        hana::make_pair(k_lr, config[k_lr] * 0.5), hana::make_pair(k_epochs, config[k_epochs]),
        hana::make_pair(k_momentum, config[k_momentum]), hana::make_pair(k_velocity, 0.0));
    for (long long e = 0; e < state[k_epochs]; ++e) {
        state[k_velocity] = state[k_momentum] * state[k_velocity] - state[k_lr] * grad;
        state[k_lr] *= 0.9;
    }
    return state[k_velocity] + state[k_lr];
}

} // namespace zo
