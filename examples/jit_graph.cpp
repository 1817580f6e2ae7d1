// One function, two modes: a small MLP layer traced by staticpy::jit into a static graph, its IR
// printed, its DOT written, its fused kernels emitted as C++, and its result checked against the
// same graph run op by op (PYNATIVE_MODE: each node by its eager op).
//
//   build/demo/examples/example_jit_graph [graph.dot]      (dot -Tsvg graph.dot > graph.svg)

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main(int argc, char** argv) {
    Generator gen(0);
    auto x = randn(4_c, 8_c, gen);  // a batch of 4 samples, 8 features
    auto w = randn(16_c, 8_c, gen); // linear layer 8 -> 16
    auto b = randn(16_c, gen);

    // A generic lambda: jit traces it with Tracers (in both modes); called directly, it would run
    // on Tensors.
    auto layer = jit([](auto x, auto w, auto b, auto scale) { // scale: a traced float
        auto h = relu(linear(x, w, b)) * scale;          // matmul, bias and relu in its epilogue
        auto z = h - h.mean(1_c, True);                  // a reduction fused with its producer
        return list(softmax(z, -1_c), (z * z).sum(1_c)); // two outputs; z * z read once
    });

    std::cout << "== IR (staticpy::dump) ==\n" << dump(layer, x, w, b, 0.5f) << '\n';

    const std::string dot_path = argc > 1 ? argv[1] : "graph.dot";
    std::ofstream(dot_path) << to_dot(layer, x, w, b, 0.5f);
    std::cout << "== DOT written to " << dot_path << " ==\n\n";

    const std::string cpp = to_cpp(layer, x, w, b, 0.5f);
    std::cout << "== C++ of the fused kernels (staticpy::to_cpp), first lines ==\n"
              << cpp.substr(0, cpp.find("\n\n", cpp.find("void kernel_0")) + 1) << '\n';

    auto graph = layer(x, w, b, 0.5f);
    set_context(PYNATIVE_MODE);
    auto eager = layer(x, w, b, 0.5f);
    set_context(GRAPH_MODE);

    std::cout << "== GRAPH_MODE result ==\n" << graph[1_c] << '\n';
    std::cout << "== PYNATIVE_MODE result ==\n" << eager[1_c] << '\n';
    const bool same = allclose(graph[0_c], eager[0_c], 1e-5, 1e-6) &&
                      allclose(graph[1_c], eager[1_c], 1e-4, 1e-5);
    std::cout << "same numbers in both modes: " << (same ? "True" : "False") << '\n';
    return same ? 0 : 1;
}
