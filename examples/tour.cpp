// A walk through staticpy's list and dict: the four operations of MindSpore's graph-mode seed
// (list.extend, list.count, dict.fromkeys, dict.update), then the rest of the API. Each result
// is printed in Python's repr, and each one that is known at compile time is proven so with a
// static_assert: if this file compiles, they were computed by the compiler.

#include <iomanip>
#include <iostream>
#include <string>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {

// One line of the tour: the Python expression, then what staticpy computed for it.
void show(const char* python, const std::string& result) {
    std::cout << "  " << std::left << std::setw(44) << python << " -> " << result << '\n';
}

} // namespace

int main() {
    std::cout << "staticpy " << version << ": Python's list and dict, computed at compile time\n\n";

    // -------------------------------------------------------------------------- the seed
    std::cout << "MindSpore graph mode's four operations:\n";

    // list.extend compiles to MakeList(ListGetItem(a, 0..n-1), ListGetItem(b, 0..m-1)).
    constexpr auto a = list(1_c, 2_c, 3_c, 4_c);
    constexpr auto extended = a.extend(list(5_c, 6_c, 7_c));
    static_assert(extended == list(1_c, 2_c, 3_c, 4_c, 5_c, 6_c, 7_c));
    static_assert(len(extended) == 7);
    show("[1, 2, 3, 4].extend([5, 6, 7])", repr(extended));

    // list.count is a constant computed while the graph is built; Python's == (1 == 1.0 == True).
    constexpr auto mixed = list("a"_s, "b"_s, 20_c, 4_c, "b"_s);
    static_assert(mixed.count("b"_s) == 2);
    static_assert(list(1_c, 1.0_c, True).count(1_c) == 3);
    static_assert(list(1_c, 1.0_c, True).count_same_type(1_c) == 1); // MindSpore's rule
    show("['a', 'b', 20, 4, 'b'].count('b')", repr(mixed.count("b"_s)));
    show("[1, 1.0, True].count(1)", repr(list(1_c, 1.0_c, True).count(1_c)));

    // dict.fromkeys from a list, a tuple, a dict (its keys) or a str (its characters).
    constexpr auto from_list = dict.fromkeys(list("1"_s, "2"_s, "3"_s));
    constexpr auto from_str = dict.fromkeys("abcd"_s, 0_c);
    static_assert(len(from_str) == 4 && from_str["c"_s] == 0);
    static_assert(from_list.get("2"_s) == None);
    show("dict.fromkeys(['1', '2', '3'])", repr(from_list));
    show("dict.fromkeys('abcd', 0)", repr(from_str));

    // dict.update: a key keeps its first position and takes the last value.
    constexpr auto updated = dict("a"_s = 1_c, "b"_s = 2_c).update(dict("c"_s = 3_c, "b"_s = 4_c));
    static_assert(updated.keys() == list("a"_s, "b"_s, "c"_s));
    static_assert(updated["b"_s] == 4);
    show("{'a': 1, 'b': 2}.update({'c': 3, 'b': 4})", repr(updated));

    // -------------------------------------------------------------------------- list
    std::cout << "\nlist:\n";
    constexpr auto l = list(3_c, 1_c, 2_c);
    static_assert(l[-1_c] == 2 && l.index(1_c) == 1 && l.contains(3_c));
    show("l = [3, 1, 2]; l[-1], l.index(1)", repr(std::tuple(l[-1_c], l.index(1_c))));
    show("l.append('x')", repr(l.append("x"_s)));
    show("l.insert(-5, 0)  (clamped)", repr(l.insert(-5_c, 0_c)));
    constexpr auto popped = l.pop(); // (new list, element), as MindSpore returns it
    static_assert(std::get<1>(popped) == 2);
    show("l.pop()  -> (list, element)", repr(popped));
    show("l.remove(1)", repr(l.remove(1_c)));
    static_assert(l.sort() == list(1_c, 2_c, 3_c));
    show("sorted(l, reverse=True)", repr(sorted(l, kw::reverse = True)));
    show("l[::-1]", repr(l[slice(None, None, -1_c)]));
    show("l[1:100]  (clamped)", repr(l[slice(1_c, 100_c)]));
    show("l * 2", repr(l * 2_c));
    static_assert(list(1_c, 2_c) < list(1_c, 3_c));
    show("[1, 2] < [1, 3]", repr(list(1_c, 2_c) < list(1_c, 3_c)));
    show("sum(l), any(l), all([0, 1])", repr(std::tuple(sum(l), any(l), all(list(0_c, 1_c)))));
    show("list(enumerate(['a', 'b']))", repr(enumerate(list("a"_s, "b"_s))));
    show("list(zip([1, 2], 'ab'))", repr(zip(list(1_c, 2_c), "ab"_s)));
    show("[x * 2 for x in l]", repr(map([](auto x) { return x * 2_c; }, l)));
    show("[x for x in l if x > 1]", repr(filter([](auto x) { return x > 1_c; }, l)));

    // Run-time values may sit in a list: then the value-dependent methods run at run time.
    volatile double read_at_run_time = 2.5;
    const double measured = read_at_run_time;
    const auto runtime = list(1.0, measured, 4.0);
    show("[1.0, x, 4.0].index(2.5)", repr(runtime.index(2.5)));
    show("[1.0, x, 4.0].sort(reverse=True)", repr(runtime.sort(kw::reverse = True)));
    try {
        (void)runtime.index(7.0);
    } catch (const ValueError& e) {
        show("[1.0, x, 4.0].index(7.0)", std::string("ValueError: ") + e.what());
    }

    // -------------------------------------------------------------------------- dict
    std::cout << "\ndict:\n";
    constexpr auto config = dict("lr"_s = 0.1, "epochs"_s = 10);
    static_assert(config["epochs"_s] == 10 && config.contains("lr"_s));
    show("config", repr(config));
    show("dict({1: 'a', True: 'b', 1.0: 'c'})",
         repr(dict(pair(1_c, "a"_s), pair(True, "b"_s), pair(1.0_c, "c"_s))));
    show("config | {'lr': 0.5, 'seed': 1}", repr(config | dict("lr"_s = 0.5, "seed"_s = 1)));
    show("config['lr'] = 'auto'  (type changes)", repr(config.setitem("lr"_s, "auto"_s)));
    show("config.pop('lr')", repr(config.pop("lr"_s)));
    show("config.popitem()", repr(config.popitem()));
    show("config.setdefault('seed', 42)", repr(config.setdefault("seed"_s, 42)));
    show("config.get('momentum', 0.9)", repr(config.get("momentum"_s, 0.9)));
    show("list(config.items())", repr(config.items()));
    static_assert(dict("a"_s = 1_c, "b"_s = 2_c) == dict("b"_s = 2_c, "a"_s = 1_c));
    show("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}",
         repr(dict("a"_s = 1_c, "b"_s = 2_c) == dict("b"_s = 2_c, "a"_s = 1_c)));

    std::cout << "\nEvery static_assert above held: those results were computed by the compiler.\n";
    return 0;
}
