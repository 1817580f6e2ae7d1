// One translation unit per variant, each exporting the same symbol, so that zero_overhead.sh can
// compare their machine code line by line.
#include "chain_staticpy.hpp"

extern "C" double zo_chain(double lr, long long epochs, double momentum, double grad) {
    return zo::staticpy_chain(lr, epochs, momentum, grad);
}
