// expect: staticpy: ValueError: Size mismatch between tensors
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>
#include <staticpy/tensor/creation.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    (void)TensorDataset(zeros<float>(3_c, 2_c), zeros<float>(3_c));
#if STATICPY_EXPECT_FAIL
    (void)TensorDataset(zeros<float>(3_c, 2_c), zeros<float>(4_c));
#endif
}
