// expect: staticpy: TypeError: unhashable type: 'list'
// {[1]: 'a'}: Python's TypeError, word for word.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    (void)staticpy::dict(staticpy::pair(1_c, "a"_s));
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict(staticpy::pair(staticpy::list(1_c), "a"_s));
#endif
}
