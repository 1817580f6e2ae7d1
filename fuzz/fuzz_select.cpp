// Which target of fuzz_targets.hpp this fuzz_<target> executable runs (fuzz/CMakeLists.txt
// compiles this file once per target with STATICPY_FUZZ_TARGET set to its name).

#ifndef STATICPY_FUZZ_TARGET
#error "define STATICPY_FUZZ_TARGET as the name of a target in fuzz_targets.hpp"
#endif

#define STATICPY_FUZZ_STR2(x) #x
#define STATICPY_FUZZ_STR(x) STATICPY_FUZZ_STR2(x)

extern "C" const char staticpy_fuzz_target[] = STATICPY_FUZZ_STR(STATICPY_FUZZ_TARGET);
