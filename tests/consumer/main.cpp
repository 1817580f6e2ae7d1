#include <staticpy/staticpy.hpp>

int main() {}
