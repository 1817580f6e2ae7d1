// expect: staticpy: TypeError: d[k] = v cannot assign in place
// d['name'] = 'sgd' where d['name'] is 'adam'_s: the value's type would change (and without the
// check, str's item-building = would silently do nothing).
#include <staticpy/containers/dict.hpp>

using namespace staticpy::literals;

int main() {
    auto d = staticpy::dict("name"_s = "adam"_s);
    d["name"_s] = "adam"_s;                             // the same constant: nothing changes
    auto d2 = d | staticpy::dict("name"_s = "sgd"_s);  // the way out: a new dict
    static_assert(d2["name"_s] == "sgd"_s);
#if STATICPY_EXPECT_FAIL
    d["name"_s] = "sgd"_s;
#endif
}
