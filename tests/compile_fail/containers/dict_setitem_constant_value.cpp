// expect: staticpy: TypeError: d[k] = v cannot assign in place
// d['epochs'] = 20 where d['epochs'] is the compile-time 10_c: the value lives in the dict's type.
#include <staticpy/containers/dict.hpp>

using namespace staticpy::literals;

int main() {
    auto d = staticpy::dict("lr"_s = 0.1, "epochs"_s = 10_c);
    d["lr"_s] = 0.2;                              // a run-time value: assigned in place
    static_assert(d["epochs"_s] == 10_c);         // a constant still reads as itself
    auto d2 = d.setitem("epochs"_s, 20);          // the way out: a new dict
    d2["epochs"_s] = 30;
#if STATICPY_EXPECT_FAIL
    d["epochs"_s] = 20;
#endif
}
