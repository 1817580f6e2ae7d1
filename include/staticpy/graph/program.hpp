#pragma once
// A graph as a program: its nodes numbered in post-order, each distinct node once. This is where
// common-subexpression elimination happens, as value numbering over types: a node whose type and
// operand slots equal an earlier node's *is* that node, and reuses its slot, so it is evaluated
// once. Nodes with run-time attributes (has_payload: a scalar's value, a run-time dim) always get
// a slot of their own, as nothing at compile time says that two of them are equal.
//
//   relu(x * w) + (x * w)   numbers as   %0 = x, %1 = w, %2 = mul(%0, %1), %3 = relu(%2),
//                                        %4 = add(%3, %2)        (x * w appears once)
//
// The numbering is a constant expression over values (number_graph): each node type is the
// address of its facts (facts_of), and the walk compares addresses where a walk over types
// would instantiate a template per step. The program is then a type (program<instr...>), built
// once; the run-time side is one pointer per slot to a node object of that slot
// (node_pointers_t), for the payloads.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/indexed.hpp"
#include "staticpy/core/selection.hpp"
#include "staticpy/graph/node.hpp"

namespace staticpy::graph {

/// One numbered node: its type and its operands' slots.
template <class Node, std::size_t... Operands>
struct instr {
    using node = Node;
    static constexpr std::size_t arity = sizeof...(Operands);
    static constexpr std::array<std::size_t, sizeof...(Operands)> operands{Operands...};
};

namespace detail {
template <class I, std::size_t W>
constexpr std::array<std::size_t, W> padded_operands() {
    std::array<std::size_t, W> a{};
    for (std::size_t k = 0; k < I::arity; ++k)
        a[k] = I::operands[k];
    return a;
}
template <class I, std::size_t W>
constexpr std::array<bool, W> operand_reads() {
    std::array<bool, W> a{};
    for (std::size_t k = 0; k < I::arity; ++k)
        a[k] = reads_operand<typename I::node>(k);
    return a;
}
} // namespace detail

template <class... Instrs>
struct program {
    /// The program itself, also where it is reached through a class derived from it (the short
    /// name a trace gives it, graph::program_key).
    using program_type = program;
    static constexpr std::size_t size = sizeof...(Instrs);
    /// The S-th instruction, picked in one step (core/indexed.hpp), not by std::tuple_element's
    /// recursion over a hundred instructions.
    template <std::size_t S>
    using instr_at = indexed::type_at<S, indexed::pack<Instrs...>>;
    template <std::size_t S>
    using node_at = typename instr_at<S>::node;
    static constexpr std::array<bool, sizeof...(Instrs) + 1> materialized{
        Instrs::node::materialized..., false};
    static constexpr std::array<bool, sizeof...(Instrs) + 1> is_input{
        (Instrs::node::kind == node_kind::input)..., false};
    static constexpr std::array<bool, sizeof...(Instrs) + 1> is_reduce{
        (Instrs::node::kind == node_kind::reduce)..., false};
    /// Operand slots of every instruction, and how many each has; `width` is the most any has
    /// (3 for where, one per tensor for cat).
    static constexpr std::array<std::size_t, sizeof...(Instrs) + 1> arity{Instrs::arity..., 0};
    static constexpr std::size_t width = std::max({std::size_t{1}, Instrs::arity...});
    static constexpr std::array<std::array<std::size_t, width>, sizeof...(Instrs) + 1>
        operand_slots{detail::padded_operands<Instrs, width>()...,
                      std::array<std::size_t, width>{}};
    /// Whether each operand's values are used (false: only its shape, see opaque::reads).
    static constexpr std::array<std::array<bool, width>, sizeof...(Instrs) + 1> operand_reads{
        detail::operand_reads<Instrs, width>()..., std::array<bool, width>{}};
    /// The slots whose values are in memory: the materialized nodes, and each fused value that a
    /// matmul or an opaque op reads (relu(conv2d(x)) under max_pool2d). Such a value is computed
    /// once, kept, and read as a leaf by every other kernel that uses it: a training step's
    /// backward reads relu's result for its mask instead of computing it again from the
    /// convolution's, which then has one reader and runs the ReLU in its epilogue. (A reduction
    /// still fuses its operand's computation.)
    static constexpr std::array<bool, sizeof...(Instrs) + 1> stored = [] {
        std::array<bool, sizeof...(Instrs) + 1> kept = materialized;
        constexpr std::array<bool, sizeof...(Instrs) + 1> is_number{
            is_number_node_v<typename Instrs::node>..., false};
        // (The materialized nodes with operands are the matmuls, the opaque ops and the
        // reductions.)
        for (std::size_t s = 0; s < sizeof...(Instrs); ++s)
            if (materialized[s] && !is_reduce[s])
                for (std::size_t k = 0; k < arity[s]; ++k)
                    if (operand_reads[s][k] && !is_number[operand_slots[s][k]])
                        kept[operand_slots[s][k]] = true;
        return kept;
    }();
    /// Whether slot s is a stored fused value (not a materialized node): its own kernel computes
    /// it once, when the evaluator reaches it.
    static constexpr bool kept_fused(std::size_t s) { return stored[s] && !materialized[s]; }
    /// Whether slot s is read from memory by the kernel of region `root`: a materialized node
    /// (the root itself when it is one), or a stored value other than the root's own.
    static constexpr bool read_in(std::size_t s, std::size_t root) {
        return materialized[s] || (stored[s] && s != root);
    }
};

namespace detail {

/// What the numbering needs of a node type, as a value: its operands' facts, and whether it, or
/// a node under it, carries run-time attributes. One per node type, so a type is the address of
/// its facts, and the numbering compares addresses.
struct node_facts {
    const node_facts* const* operands;
    std::size_t arity;
    bool has_payload;
    bool contains_payload;
    /// 0 for a leaf, else one more than its highest operand's: nodes of one type have one
    /// height, so the numbering looks a node up among the slots of its height only.
    std::size_t height;
};
template <class Node, class Children = typename Node::children_type>
struct facts_of;
template <class Node, class... Cs>
struct facts_of<Node, operands<Cs...>> {
    static constexpr std::array<const node_facts*, sizeof...(Cs)> operands{
        &facts_of<Cs>::value...};
    static constexpr node_facts value{
        operands.data(), sizeof...(Cs), Node::has_payload, contains_payload_v<Node>,
        sizeof...(Cs) == 0 ? 0 : 1 + std::max({std::size_t{0}, facts_of<Cs>::value.height...})};
};

inline constexpr std::size_t no_slot = static_cast<std::size_t>(-1);

/// A numbered graph while it is built: each slot's node (its facts) and operand slots (slot s's
/// are operand[first_operand[s]] ... operand[first_operand[s + 1] - 1]), and each output's slot.
/// The slots are also listed by their nodes' heights (node_facts::height), in slot order, and a
/// node is looked up among those of its height: a search of every slot per node visited made the
/// numbering quadratic in the program (a 32-layer MLP's training step ran past clang's limit of
/// steps in one constant expression).
struct numbering {
    std::vector<const node_facts*> node;
    std::vector<std::size_t> first_operand{0};
    std::vector<std::size_t> operand;
    std::vector<std::size_t> roots;
    std::vector<std::vector<std::size_t>> slots_of_height;

    [[nodiscard]] constexpr std::size_t size() const { return node.size(); }
    [[nodiscard]] constexpr std::size_t operand_count() const { return operand.size(); }
    /// The first slot whose node is n (size() if none).
    [[nodiscard]] constexpr std::size_t slot_of(const node_facts* n) const {
        if (n->height < slots_of_height.size())
            for (const std::size_t s : slots_of_height[n->height])
                if (node[s] == n)
                    return s;
        return size();
    }
    /// The first slot whose node is n with the operand slots ops[0 .. n->arity) (size() if none).
    [[nodiscard]] constexpr std::size_t slot_of(const node_facts* n, const std::size_t* ops) const {
        if (n->height < slots_of_height.size())
            for (const std::size_t s : slots_of_height[n->height]) {
                if (node[s] != n)
                    continue;
                bool same = true;
                for (std::size_t k = 0; k < n->arity; ++k)
                    same = same && operand[first_operand[s] + k] == ops[k];
                if (same)
                    return s;
            }
        return size();
    }
    /// Appends a slot for node n with the operand slots ops[0 .. n->arity).
    constexpr void push(const node_facts* n, const std::size_t* ops) {
        if (n->height >= slots_of_height.size())
            slots_of_height.resize(n->height + 1);
        slots_of_height[n->height].push_back(size());
        node.push_back(n);
        for (std::size_t k = 0; k < n->arity; ++k)
            operand.push_back(ops[k]);
        first_operand.push_back(operand.size());
    }
};

/// Numbers the graphs under the output nodes `roots` in post-order, operands first, each
/// distinct node once. A node is its operands' slots and its type: a node of the same type on
/// the same operand slots is the same value, and reuses that slot. Nodes with run-time
/// attributes (has_payload) get a slot at each mention, unless Speculative (then their payloads
/// are compared when the graph is collected: collect_nodes). A node type met again is its first
/// slot without a walk of its operands wherever the walk could only find that slot: always when
/// speculative, and otherwise when no node under it has a payload. Graphs are DAGs whose types
/// are trees (a backward graph names the forward nodes again and again), so without this each
/// mention would walk the whole subtree under it. The walk keeps its own stack (a deep graph is
/// deeper than the compilers' limits on recursion in a constant expression).
constexpr numbering number_graph(bool speculative, const node_facts* const* roots,
                                 std::size_t root_count) {
    numbering g;
    struct frame {
        const node_facts* node;
        std::size_t first; // where its operands' slots start in `numbered`
    };
    std::vector<frame> frames;
    std::vector<std::size_t> numbered; // the operand slots of the nodes on `frames`, so far
    // n's slot where it has one without a walk, else no_slot and a frame to walk it.
    const auto enter = [&](const node_facts* n) {
        if (speculative || !n->contains_payload) {
            const std::size_t s = g.slot_of(n);
            if (s != g.size())
                return s;
        }
        frames.push_back({n, numbered.size()});
        return no_slot;
    };
    for (std::size_t r = 0; r < root_count; ++r) {
        std::size_t slot = enter(roots[r]);
        while (!frames.empty()) {
            const frame f = frames.back();
            const std::size_t have = numbered.size() - f.first;
            if (have < f.node->arity) {
                const std::size_t s = enter(f.node->operands[have]);
                if (s != no_slot)
                    numbered.push_back(s);
                continue;
            }
            slot = g.size();
            if (speculative || !f.node->has_payload)
                slot = g.slot_of(f.node, numbered.data() + f.first);
            if (slot == g.size())
                g.push(f.node, numbered.data() + f.first);
            numbered.resize(f.first);
            frames.pop_back();
            if (!frames.empty())
                numbered.push_back(slot);
        }
        g.roots.push_back(slot);
    }
    return g;
}

/// A numbered graph as constants: number_graph's result, and for each slot a path from an
/// output by which its node is reached: slot s's node is operand `position[s]` of slot
/// `parent[s]`'s node, or output `position[s]` (parent no_slot). Each slot's parent is a reader
/// nearest the outputs, so the paths, which the slots' types and node pointers are derived
/// along (slot_node, collect_nodes), stay short.
template <std::size_t N, std::size_t E, std::size_t R>
struct numbered_graph {
    std::array<std::size_t, N + 1> first_operand{};
    std::array<std::size_t, E + 1> operand{};
    std::array<std::size_t, R + 1> roots{};
    std::array<std::size_t, N + 1> parent{};
    std::array<std::size_t, N + 1> position{};
};
template <std::size_t N, std::size_t E, std::size_t R>
constexpr numbered_graph<N, E, R> freeze(const numbering& g) {
    numbered_graph<N, E, R> out{};
    for (std::size_t s = 0; s <= N; ++s)
        out.first_operand[s] = g.first_operand[s];
    for (std::size_t e = 0; e < E; ++e)
        out.operand[e] = g.operand[e];
    std::array<std::size_t, N + 1> depth{};
    for (std::size_t s = 0; s < N; ++s)
        depth[s] = no_slot;
    for (std::size_t r = R; r-- > 0;) {
        out.roots[r] = g.roots[r];
        depth[g.roots[r]] = 0;
        out.parent[g.roots[r]] = no_slot;
        out.position[g.roots[r]] = r;
    }
    // Readers come after their operands, so when slot u is reached its depth is final.
    for (std::size_t u = N; u-- > 0;)
        for (std::size_t k = 0; k < g.first_operand[u + 1] - g.first_operand[u]; ++k) {
            const std::size_t o = g.operand[g.first_operand[u] + k];
            if (depth[u] + 1 < depth[o]) {
                depth[o] = depth[u] + 1;
                out.parent[o] = u;
                out.position[o] = k;
            }
        }
    return out;
}

template <class Numbering, std::size_t S, bool Output = Numbering::graph.parent[S] == no_slot>
struct slot_node;
/// Slot S's node type: an output's.
template <class Numbering, std::size_t S>
struct slot_node<Numbering, S, true> {
    using type = indexed::type_at<Numbering::graph.position[S], typename Numbering::outputs>;
};
/// Slot S's node type: its parent's operand's.
template <class Numbering, std::size_t S>
struct slot_node<Numbering, S, false> {
    using type = child_t<Numbering::graph.position[S],
                         typename slot_node<Numbering, Numbering::graph.parent[S]>::type>;
};

/// The most node visits exact_visits counts: past it, the exact numbering is too costly to make.
inline constexpr std::size_t exact_visits_limit = std::size_t{1} << 16;

/// How many nodes the exact numbering visits, at most exact_visits_limit: a node with a payload
/// under it is walked at each mention, operands included; any other node once. One
/// instantiation per node type, so it is cheap where the numbering it predicts is not (each
/// mention of a shared subtree doubles what is under it).
template <class Node, class Children = typename Node::children_type>
struct exact_visits;
template <class Node, class... Cs>
struct exact_visits<Node, operands<Cs...>> {
    static constexpr std::size_t value =
        contains_payload_v<Node>
            ? std::min(exact_visits_limit, (std::size_t{1} + ... + exact_visits<Cs>::value))
            : 1;
};

/// The slot of the first instruction of Prog whose node is Node (Prog::size if none).
template <class Node, class Prog>
struct find_node;
template <class Node, class... Is>
struct find_node<Node, program<Is...>> {
    // An array, not a fold over the instructions (clang limits a fold to 256 operands).
    static constexpr std::size_t value = [] {
        constexpr std::array<bool, sizeof...(Is) + 1> same{
            std::is_same_v<Node, typename Is::node>..., true};
        std::size_t i = 0;
        while (!same[i])
            ++i;
        return i;
    }();
};

} // namespace detail

namespace detail {
template <class... Roots>
inline constexpr std::array<const node_facts*, sizeof...(Roots)> output_facts{
    &facts_of<Roots>::value...};
template <bool Speculative, class... Roots>
constexpr numbering number_outputs() {
    return number_graph(Speculative, output_facts<Roots...>.data(), sizeof...(Roots));
}
/// The numbered graph of the outputs Roots... (number_graph, frozen), for program_of.
template <bool Speculative, class... Roots>
struct numbered_outputs {
    static constexpr bool speculative = Speculative;
    using outputs = indexed::pack<Roots...>;
    // The arrays' sizes from one numbering, the arrays from a second (a constant expression's
    // vectors cannot outlive it; the compilers keep no result to reuse).
    static constexpr std::array<std::size_t, 2> sizes = [] {
        const numbering g = number_outputs<Speculative, Roots...>();
        return std::array<std::size_t, 2>{g.size(), g.operand_count()};
    }();
    static constexpr std::size_t size = sizes[0];
    static constexpr std::size_t operand_count = sizes[1];
    static constexpr auto graph =
        freeze<size, operand_count, sizeof...(Roots)>(number_outputs<Speculative, Roots...>());
};
} // namespace detail

/// The program of the graph whose outputs are the nodes Roots..., and the slot of each output.
/// Speculative: nodes with run-time attributes are merged too when their types and operands
/// are equal (valid only when their payloads turn out equal: see collect_nodes).
///   using P = program_of<false, Root>;   P::prog::size, P::roots[0]
template <bool Speculative, class... Roots>
struct program_of : detail::numbered_outputs<Speculative, Roots...> {
private:
    using numbered = detail::numbered_outputs<Speculative, Roots...>;
    template <std::size_t S, std::size_t... K>
    static auto instr_of(std::index_sequence<K...>)
        -> instr<typename detail::slot_node<numbered, S>::type,
                 numbered::graph.operand[numbered::graph.first_operand[S] + K]...>;
    template <std::size_t... S>
    static auto program_from(std::index_sequence<S...>)
        -> program<decltype(instr_of<S>(std::make_index_sequence<numbered::graph.first_operand[S + 1] -
                                                                 numbered::graph.first_operand[S]>{}))...>;

public:
    using prog = decltype(program_from(std::make_index_sequence<numbered::size>{}));
    static constexpr std::array<std::size_t, sizeof...(Roots)> roots = [] {
        std::array<std::size_t, sizeof...(Roots)> r{};
        for (std::size_t k = 0; k < sizeof...(Roots); ++k)
            r[k] = numbered::graph.roots[k];
        return r;
    }();
};

/// One pointer per slot of Prog to the node object of that slot (its payload: scalar values,
/// dims): slot S's points to a Prog::node_at<S>, which node_of<Prog, S> gives back. Untyped, in
/// an array rather than a tuple of the typed pointers: a program has one or two hundred slots,
/// and a tuple of as many types costs each of its users compile time (std::get, the constraints
/// of its constructors, and function names that spell the whole tuple).
template <class Prog>
using node_pointers_t = std::array<const void*, Prog::size>;

namespace detail {
/// The node of type Node at `p` (a reference), or, for a node type that holds no data, a new one
/// (p unused): such a node (most nodes of a training step) is its type, so collect_nodes does not
/// point its slot at the traced object. (A value, not a reference to one object per type: such
/// an object would be a symbol per node type in the program's object file, named by the node's
/// whole type.)
template <class Node>
decltype(auto) node_at_pointer(const void* p) {
    if constexpr (!holds_data_v<Node>)
        return Node{};
    else
        return *static_cast<const Node*>(p);
}
} // namespace detail

/// The node object of slot S: a const reference, or a value for a node that holds no data.
template <class Prog, std::size_t S>
decltype(auto) node_of(const node_pointers_t<Prog>& nodes) {
    return detail::node_at_pointer<typename Prog::template node_at<S>>(nodes[S]);
}

// ---- payload equality: when two nodes of one type are the same value
// ------------------------------

template <class T, std::size_t A>
bool payload_equal(const scalar<T, A>& a, const scalar<T, A>& b) {
    // Bitwise: 0.0 and -0.0 differ (x * -0.0), and a NaN is the same NaN.
    if constexpr (std::is_floating_point_v<T>)
        return std::memcmp(&a.value, &b.value, sizeof(T)) == 0;
    else
        return a.value == b.value;
}
template <class T, class S>
bool payload_equal(const captured<T, S>& a, const captured<T, S>& b) {
    return a.tensor.data() == b.tensor.data() && a.tensor.sizes() == b.tensor.sizes() &&
           a.tensor.strides() == b.tensor.strides();
}
template <reduce_kind K, bool Keep, class Dim, class C>
bool payload_equal(const reduce<K, Keep, Dim, C>& a, const reduce<K, Keep, Dim, C>& b) {
    return reduce<K, Keep, Dim, C>::plan::mask(a.dim) == reduce<K, Keep, Dim, C>::plan::mask(b.dim);
}
template <class Op, class... Cs>
bool payload_equal(const opaque<Op, Cs...>& a, const opaque<Op, Cs...>& b) {
    if constexpr (requires { a.op.args == b.op.args; })
        return a.op.args == b.op.args;
    else
        return false;
}

namespace detail {

/// slot = node. The pointers live as long as the traced call's nodes (collect_nodes' callers
/// use them within it). Not inlined: inlined into a caller whose nodes are locals, g++ 12's
/// -Wdangling-pointer takes the store for an escape and reports it.
[[gnu::noinline]] inline void record_at(const void*& slot, const void* node) {
    slot = node;
}

/// Points slot S at its node: an output, or its parent's operand (numbered_graph's paths; the
/// parent, a later slot, is pointed at first). ptrs is the first of the node pointers: a plain
/// pointer, not the std::array, as these functions are the same code for programs of different
/// sizes, and once g++ 12 has folded two of them into one, its -Warray-bounds takes the smaller
/// program's array for the larger one's.
template <class Numbering, std::size_t S>
void point_at(const void** ptrs, const void* const* outputs) {
    constexpr std::size_t parent = Numbering::graph.parent[S];
    constexpr std::size_t position = Numbering::graph.position[S];
    if constexpr (parent == no_slot) {
        record_at(ptrs[S], outputs[position]);
    } else {
        using node = typename Numbering::prog::template node_at<parent>;
        record_at(ptrs[S], &child<position>(*static_cast<const node*>(ptrs[parent])));
    }
}

/// Clears `equal` where a node with a payload in n's graph differs from the node of its slot in
/// the speculative program Prog, which merged all nodes of its type. Walks every mention of the
/// nodes with payloads under them, and nothing else.
template <class Prog, class Node>
void check_payloads(const Node& n, const void* const* ptrs, bool& equal) {
    if constexpr (contains_payload_v<Node>) {
        if constexpr (Node::has_payload)
            if (!payload_equal(node_at_pointer<Node>(ptrs[find_node<Node, Prog>::value]), n))
                equal = false;
        apply_children([&](const auto&... c) { (check_payloads<Prog>(c, ptrs, equal), ...); }, n);
    }
}

/// The slots whose node objects collect_nodes points at: the nodes that hold data (node_of makes
/// the others), latest first, so that a slot's parent is pointed at before it (the parent of a
/// node that holds data holds it too, and stores it: operands).
template <class Prog>
inline constexpr auto pointed_slots = [] {
    constexpr std::array<bool, Prog::size> holds = []<std::size_t... S>(std::index_sequence<S...>) {
        return std::array<bool, Prog::size>{holds_data_v<typename Prog::template node_at<S>>...};
    }
    (std::make_index_sequence<Prog::size>{});
    constexpr std::size_t count =
        static_cast<std::size_t>(std::count(holds.begin(), holds.end(), true));
    std::array<std::size_t, count> slots{};
    std::size_t n = 0;
    for (std::size_t s = Prog::size; s-- > 0;)
        if (holds[s])
            slots[n++] = s;
    return slots;
}();
} // namespace detail

/// The node pointers of Numbering's program (a program_of) for the output nodes `roots`;
/// `equal` is cleared when a speculative numbering merged nodes whose payloads differ (the
/// program is then invalid). Only the slots whose nodes hold data are pointed at
/// (pointed_slots): a training step's graph has few, and each slot pointed at is a function.
template <class Numbering, class... Roots>
node_pointers_t<typename Numbering::prog> collect_nodes(bool& equal, const Roots&... roots) {
    using P = typename Numbering::prog;
    node_pointers_t<P> ptrs{};
    const std::array<const void*, sizeof...(Roots) + 1> outputs{&roots..., nullptr};
    constexpr auto& slots = detail::pointed_slots<P>;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        indexed::in_order{
            (detail::point_at<Numbering, slots[I]>(ptrs.data(), outputs.data()), 0)...};
    }
    (std::make_index_sequence<slots.size()>{});
    if constexpr (Numbering::speculative)
        indexed::in_order{(detail::check_payloads<P>(roots, ptrs.data(), equal), 0)...};
    return ptrs;
}

// ---- fusion regions -----------------------------------------------------------------------------

/// The slots a fused kernel rooted at slot `root` evaluates: root, and every operand reached from
/// it through elementwise nodes; the slots it reads from memory (Prog::read_in) are where it
/// stops.
namespace detail {
/// Walks the fused kernel rooted at slot `root` from the root through its members, stopping at
/// those it reads from memory: visit(s, leaf) once per member s (leaf: read from memory).
/// first_visit(s) marks s and says whether it was unmarked. Linear in the region's size, not the
/// program's. stack: scratch, empty.
template <class Prog, class FirstVisit, class Visit>
constexpr void walk_region(std::size_t root, std::vector<std::size_t>& stack,
                           FirstVisit&& first_visit, Visit&& visit) {
    first_visit(root);
    stack.push_back(root);
    while (!stack.empty()) {
        const std::size_t s = stack.back();
        stack.pop_back();
        const bool leaf = Prog::read_in(s, root);
        visit(s, leaf);
        if (!leaf)
            for (std::size_t k = 0; k < Prog::arity[s]; ++k)
                if (first_visit(Prog::operand_slots[s][k]))
                    stack.push_back(Prog::operand_slots[s][k]);
    }
}
} // namespace detail

template <class Prog>
constexpr std::array<bool, Prog::size> region_members(std::size_t root) {
    std::array<bool, Prog::size> m{};
    std::vector<std::size_t> stack;
    detail::walk_region<Prog>(
        root, stack,
        [&](std::size_t s) {
            const bool first = !m[s];
            m[s] = true;
            return first;
        },
        [](std::size_t, bool) {});
    return m;
}

/// The fused kernel rooted at slot Root: its members (region_members), the leaves among them
/// (read from memory, `leaf`), and the numbers it reads from the node (`number`).
template <class Prog, std::size_t Root>
struct region {
    static constexpr std::size_t N = Prog::size;
    static constexpr std::array<bool, N> member = region_members<Prog>(Root);
    /// A member read from memory (Prog::read_in).
    static constexpr std::array<bool, N> leaf = [] {
        std::array<bool, N> l{};
        for (std::size_t s = 0; s < N; ++s)
            l[s] = member[s] && Prog::read_in(s, Root);
        return l;
    }();
    static constexpr bool is_leaf(std::size_t s) { return leaf[s]; }
    static constexpr std::size_t leaf_count = selection::count(leaf);
    /// Leaf slot s's position among the leaves (the loop nest's operand index).
    static constexpr std::array<std::size_t, N + 1> leaf_index = selection::ranks(leaf);
    /// The leaf slots, in slot order: leaf_slots[leaf_index[s]] == s. Code that visits the
    /// leaves visits these, not every slot of the program testing is_leaf: a region has a few
    /// leaves, a program a hundred slots, and each slot visited is a function instantiated.
    static constexpr auto leaf_slots = selection::chosen<leaf_count>(leaf);
    /// The member slots in slot order (operands before their users), and each member's position
    /// among them: a kernel keeps its values by that position.
    static constexpr std::size_t member_count = selection::count(member);
    static constexpr auto members = selection::chosen<member_count>(member);
    static constexpr std::array<std::size_t, N + 1> member_index = selection::ranks(member);
};

/// How many times slot S is used as an operand, plus once per output that is S.
template <class Prog, std::size_t S, std::size_t NumRoots>
constexpr std::size_t use_count(const std::array<std::size_t, NumRoots>& roots) {
    std::size_t n = 0;
    for (std::size_t s = 0; s < Prog::size; ++s)
        for (std::size_t k = 0; k < Prog::arity[s]; ++k)
            n += Prog::operand_slots[s][k] == S;
    for (std::size_t r : roots)
        n += r == S;
    return n;
}

namespace detail {
/// The leaves of the regions rooted at every slot, as lists: region r's leaves (its
/// region<Prog, r>::leaf_slots) are leaf[first[r]] ... leaf[first[r + 1] - 1], in slot order.
template <std::size_t N, std::size_t E>
struct leaf_lists {
    std::array<std::size_t, N + 1> first{};
    std::array<std::size_t, E + 1> leaf{};
};

/// Every region's leaves, appended region by region (first[r]: where region r's start). Each
/// region is walked through its members only (walk_region), one array marking the slots each
/// walk has seen (seen[s] == root + 1): linear in the regions' sizes. (A walk over every slot per
/// region, or a slots-by-slots table, is quadratic in the program: a 16-layer MLP's training step
/// then ran past clang's limit of steps in one constant expression.)
template <class Prog>
constexpr std::vector<std::size_t> region_leaf_list(std::vector<std::size_t>& first) {
    std::vector<std::size_t> leaves, seen(Prog::size, 0), stack;
    for (std::size_t root = 0; root < Prog::size; ++root) {
        first.push_back(leaves.size());
        const std::size_t begin = leaves.size();
        walk_region<Prog>(
            root, stack,
            [&](std::size_t s) {
                const bool first_visit = seen[s] != root + 1;
                seen[s] = root + 1;
                return first_visit;
            },
            [&](std::size_t s, bool leaf) {
                if (leaf)
                    leaves.push_back(s);
            });
        std::sort(leaves.begin() + static_cast<std::ptrdiff_t>(begin), leaves.end());
    }
    first.push_back(leaves.size());
    return leaves;
}
template <class Prog>
inline constexpr std::size_t region_leaf_count = [] {
    std::vector<std::size_t> first;
    return region_leaf_list<Prog>(first).size();
}();
} // namespace detail

/// Every region's leaves at once (detail::leaf_lists), computed in one walk of the program rather
/// than one region instantiation per slot: the epilogue analysis asks them of every slot.
template <class Prog>
inline constexpr auto region_leaves = [] {
    detail::leaf_lists<Prog::size, detail::region_leaf_count<Prog>> lists{};
    std::vector<std::size_t> first;
    const std::vector<std::size_t> leaves = detail::region_leaf_list<Prog>(first);
    for (std::size_t r = 0; r <= Prog::size; ++r)
        lists.first[r] = first[r];
    for (std::size_t e = 0; e < leaves.size(); ++e)
        lists.leaf[e] = leaves[e];
    return lists;
}();

/// How many fused kernels (or materialized nodes directly) read each materialized slot M: the
/// kernel of each stored value (computed once, however many read it), and each output's kernel
/// and each reduction's, count once if M is among their leaves (a reduction computes its operand
/// again, stored or not); a materialized operand or output that is M itself counts too. Every
/// slot's count in one pass over the program.
template <class Prog, std::size_t NumRoots>
constexpr std::array<std::size_t, Prog::size + 1>
reader_counts(const std::array<std::size_t, NumRoots>& roots) {
    constexpr std::size_t N = Prog::size;
    const auto& leaves = region_leaves<Prog>;
    std::array<std::size_t, N + 1> n{};
    const auto count_leaves_of = [&](std::size_t region) {
        for (std::size_t e = leaves.first[region]; e < leaves.first[region + 1]; ++e)
            ++n[leaves.leaf[e]];
    };
    for (std::size_t s = 0; s < N; ++s) {
        if (Prog::kept_fused(s))
            count_leaves_of(s);
        else if (Prog::materialized[s])
            for (std::size_t k = 0; k < Prog::arity[s]; ++k) {
                const std::size_t o = Prog::operand_slots[s][k];
                if (Prog::operand_reads[s][k] && (Prog::is_reduce[s] || !Prog::kept_fused(o)))
                    count_leaves_of(o);
            }
    }
    for (std::size_t r : roots)
        if (!Prog::kept_fused(r))
            count_leaves_of(r);
    return n;
}

namespace detail {
// What the epilogue analysis asks of one node, as templates of that node's type (or shape) alone:
// as static members of epilogue_facts<program<...>>, each node's question was a function named by
// the whole program too, a hundred of them per program, none shared between programs.

/// A floating-point element type's code (float 1, double 2, long double 3), 0 for others.
template <class T>
inline constexpr int float_code = std::is_same_v<T, float>         ? 1
                                  : std::is_same_v<T, double>      ? 2
                                  : std::is_same_v<T, long double> ? 3
                                                                   : 0;
/// Whether node M can run a fused region's kernel in its epilogue: a 2-D matmul (the GEMM,
/// kernels/gemm.hpp), or an op that declares it (`runs_epilogue`: conv2d, over each run of its
/// result).
template <class M>
constexpr bool hosts_epilogue() {
    if constexpr (M::kind == node_kind::matmul)
        return M::shape_type::rank == 2;
    else if constexpr (M::kind == node_kind::opaque)
        return requires {
            M::op_type::runs_epilogue;
        };
    else
        return false;
}
/// Whether a value of this shape is a matrix as large as any it is combined with: rank 2, neither
/// extent a compile-time 1 (a bias row or column broadcasts; a dynamic extent may not).
template <class Shape>
constexpr bool full_matrix() {
    if constexpr (Shape::rank != 2)
        return false;
    else
        return !std::is_same_v<shape_extent_t<Shape, 0>, int_<1>> &&
               !std::is_same_v<shape_extent_t<Shape, 1>, int_<1>>;
}
} // namespace detail

/// What the epilogue analysis asks of each node, as arrays indexed by slot (one instantiation
/// per program; the analysis is then plain loops over them, not a template per pair of slots).
template <class Prog>
struct epilogue_facts;
template <class... Is>
struct epilogue_facts<program<Is...>> {
    static constexpr std::array<int, sizeof...(Is) + 1> element{
        detail::float_code<typename Is::node::value_type>..., 0};
    static constexpr std::array<std::size_t, sizeof...(Is) + 1> rank{Is::node::shape_type::rank...,
                                                                     0};
    /// Whether the node can run a fused region's kernel in its epilogue (detail::hosts_epilogue).
    static constexpr std::array<bool, sizeof...(Is) + 1> host{
        detail::hosts_epilogue<typename Is::node>()..., false};
    static constexpr std::array<bool, sizeof...(Is) + 1> is_matmul{
        (Is::node::kind == node_kind::matmul)..., false};
    static constexpr std::array<bool, sizeof...(Is) + 1> is_full_matrix{
        detail::full_matrix<typename Is::node::shape_type>()..., false};
};

/// The slot whose epilogue each slot R's fused kernel runs in (Prog::size if none): a float or
/// double matmul or convolution of R's dtype and rank (epilogue_facts::host) that no kernel but
/// R's reads. The GEMM or convolution then writes R's buffer and R's kernel runs over each
/// finished block of it. A matmul not when R's kernel also reads a matrix as large as the product
/// (a parameter it updates, an activation): the GEMM finishes its blocks panel by panel, column
/// block after column block, and that matrix, read in the same order, costs more than one flat
/// pass after the GEMM. (A convolution finishes its result image by image, channel by channel,
/// the order of memory.) Only a fused (not materialized) floating-point R has one.
template <class Prog, std::size_t NumRoots>
constexpr std::array<std::size_t, Prog::size + 1>
epilogue_slots(const std::array<std::size_t, NumRoots>& roots) {
    constexpr std::size_t N = Prog::size;
    using facts = epilogue_facts<typename Prog::program_type>;
    const auto& leaves = region_leaves<Prog>;
    const auto readers = reader_counts<Prog>(roots);
    std::array<std::size_t, N + 1> found{};
    for (std::size_t r = 0; r <= N; ++r) {
        found[r] = N;
        if (r == N || Prog::materialized[r] || facts::element[r] == 0)
            continue;
        // (Region r's leaves, in slot order.)
        const std::size_t begin = leaves.first[r], end = leaves.first[r + 1];
        std::size_t full_leaves = 0;
        for (std::size_t e = begin; e < end; ++e)
            full_leaves += facts::is_full_matrix[leaves.leaf[e]];
        for (std::size_t e = begin; e < end; ++e) {
            const std::size_t m = leaves.leaf[e];
            const bool other_full_matrix = full_leaves > (facts::is_full_matrix[m] ? 1 : 0);
            if (facts::host[m] && facts::element[m] == facts::element[r] &&
                facts::rank[m] == facts::rank[r] && readers[m] == 1 &&
                (!facts::is_matmul[m] || !other_full_matrix)) {
                found[r] = m;
                break;
            }
        }
    }
    return found;
}

} // namespace staticpy::graph
