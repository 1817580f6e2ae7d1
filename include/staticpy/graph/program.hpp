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
// The program is a type (program<instr...>); the run-time side is one pointer per slot to a node
// object of that slot (node_pointers_t), for the payloads.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/indexed.hpp"
#include "staticpy/core/selection.hpp"
#include "staticpy/graph/node.hpp"

namespace staticpy::graph {

/// One numbered node: its type, the key it is deduplicated by, its operands' slots.
template <class Node, class Key, std::size_t... Operands>
struct instr {
    using node = Node;
    using key = Key;
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

template <std::size_t Unique>
struct unique_key {};
template <class Node, std::size_t... Operands>
struct node_key {};

namespace detail {

/// The position of the first of Ts that is T (sizeof...(Ts) if none).
template <class T, class... Ts>
inline constexpr std::size_t first_index = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? false : (++i, true)) && ...);
    return i;
}();

/// The slot of Prog's instruction whose key is Key (Prog::size if none).
template <class Key, class Prog>
struct find_key;
template <class Key, class... Is>
struct find_key<Key, program<Is...>>
    : std::integral_constant<std::size_t, first_index<Key, typename Is::key...>> {};

template <class Prog, class I>
struct append;
template <class... Is, class I>
struct append<program<Is...>, I> {
    using type = program<Is..., I>;
};

template <class Node, class Prog, bool Speculative>
struct number;

template <class Prog, bool Speculative, class Children, std::size_t... Slots>
struct number_children {
    using prog = Prog;
    using slots = std::index_sequence<Slots...>;
};
template <class Prog, bool Sp, class C, class... Cs, std::size_t... Slots>
struct number_children<Prog, Sp, std::tuple<C, Cs...>, Slots...>
    : number_children<typename number<C, Prog, Sp>::prog, Sp, std::tuple<Cs...>, Slots...,
                      number<C, Prog, Sp>::slot> {};

template <class Node, class Prog, bool Speculative, class Slots>
struct number_node;
template <class Node, class Prog, bool Speculative, std::size_t... S>
struct number_node<Node, Prog, Speculative, std::index_sequence<S...>> {
    // Speculative numbering merges nodes with payloads too; the payloads are compared when the
    // graph is collected (collect_nodes), and a mismatch falls back to the exact numbering.
    using key = std::conditional_t<Node::has_payload && !Speculative, unique_key<Prog::size>,
                                   node_key<Node, S...>>;
    static constexpr std::size_t slot = find_key<key, Prog>::value;
    using prog = std::conditional_t<slot == Prog::size,
                                    typename append<Prog, instr<Node, key, S...>>::type, Prog>;
};

/// The slot of the first instruction of Prog whose node is Node (Prog::size if none).
template <class Node, class Prog>
struct find_node;
template <class Node, class... Is>
struct find_node<Node, program<Is...>>
    : std::integral_constant<std::size_t, first_index<Node, typename Is::node...>> {};

/// Numbers Node's operands, then Node.
template <class Node, class Prog, bool Speculative>
struct number_walk {
    using operands = number_children<Prog, Speculative, typename Node::children_type>;
    using result =
        number_node<Node, typename operands::prog, Speculative, typename operands::slots>;
    using prog = typename result::prog;
    static constexpr std::size_t slot = result::slot;
};
/// A node numbered before: its slot, Prog unchanged.
template <class Prog, std::size_t Slot>
struct number_found {
    using prog = Prog;
    static constexpr std::size_t slot = Slot;
};

/// Numbers Node (its operands first) into Prog: ::prog after it, ::slot its slot.
/// A node type met again is its earlier slot without a walk of its operands, wherever numbering
/// it again could only find the same slot: always when speculative, and in the exact numbering
/// when no node under it has a payload (a payload node gets a new slot at each visit). Graphs
/// are DAGs whose types are trees (a backward graph names forward nodes again and again), so
/// without this shortcut each mention re-walks the whole subtree under it.
template <class Node, class Prog, bool Speculative>
struct number
    : std::conditional_t<
          (Speculative || !contains_payload_v<Node>)&&find_node<Node, Prog>::value != Prog::size,
          number_found<Prog, find_node<Node, Prog>::value>, number_walk<Node, Prog, Speculative>> {
};

/// The most node visits exact_visits counts: past it, the exact numbering is too costly to make.
inline constexpr std::size_t exact_visits_limit = std::size_t{1} << 16;

/// How many nodes number<Node, Prog, false> visits, at most exact_visits_limit: a node with a
/// payload under it is walked at each mention, operands included; any other node once. One
/// instantiation per node type, so it is cheap where the numbering it predicts is not (each
/// mention of a shared subtree doubles what is under it).
template <class Node, class Children = typename Node::children_type>
struct exact_visits;
template <class Node, class... Cs>
struct exact_visits<Node, std::tuple<Cs...>> {
    static constexpr std::size_t value =
        contains_payload_v<Node>
            ? std::min(exact_visits_limit, (std::size_t{1} + ... + exact_visits<Cs>::value))
            : 1;
};

template <std::size_t... S>
constexpr std::array<std::size_t, sizeof...(S)> slots_array(std::index_sequence<S...>) {
    return {S...};
}

} // namespace detail

/// The program of the graph whose outputs are the nodes Roots..., and the slot of each output.
/// Speculative: nodes with run-time attributes are merged too when their types and operands
/// are equal (valid only when their payloads turn out equal: see collect_nodes).
///   using P = program_of<false, Root>;   P::prog::size, P::roots[0]
template <bool Speculative, class... Roots>
struct program_of {
    using numbered = detail::number_children<program<>, Speculative, std::tuple<Roots...>>;
    using prog = typename numbered::prog;
    static constexpr std::array<std::size_t, sizeof...(Roots)> roots =
        detail::slots_array(typename numbered::slots{});
};

/// One pointer per slot of Prog to the node object of that slot (its payload: scalar values,
/// dims): slot S's points to a Prog::node_at<S>, which node_of<Prog, S> gives back. Untyped, in
/// an array rather than a tuple of the typed pointers: a program has one or two hundred slots,
/// and a tuple of as many types costs each of its users compile time (std::get, the constraints
/// of its constructors, and function names that spell the whole tuple).
template <class Prog>
using node_pointers_t = std::array<const void*, Prog::size>;

/// The node object of slot S.
template <class Prog, std::size_t S>
const typename Prog::template node_at<S>& node_of(const node_pointers_t<Prog>& nodes) {
    return *static_cast<const typename Prog::template node_at<S>*>(nodes[S]);
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

/// Records node n and every node under it in the program Final, where a node's slot is the
/// first of its type: so it is in a speculative numbering (one slot per type), and in the exact
/// one for a node without payloads under it. Each node type is one instantiation (the walk does
/// not carry the program numbered so far), and a payload-free subtree recorded once is not
/// walked again: a backward graph's types name the forward nodes over and over.
/// slot = &n. The pointers live as long as the traced call's nodes (collect_nodes' callers
/// use them within it). Not inlined: inlined into a caller whose nodes are locals, g++ 12's
/// -Wdangling-pointer takes the store for an escape and reports it.
[[gnu::noinline]] inline void record_at(const void*& slot, const void* node) {
    slot = node;
}

/// ptrs is the first of Final's node pointers. A plain pointer, not the std::array: these
/// functions are the same code for programs of different sizes, and once g++ 12 has folded two
/// of them into one, its -Warray-bounds takes the smaller program's array for the larger one's.
template <class Final, class Node>
void collect_by_type(const Node& n, const void** ptrs, bool& equal) {
    const void*& slot = ptrs[find_node<Node, Final>::value];
    if constexpr (!contains_payload_v<Node>) {
        if (slot != nullptr)
            return;
    }
    std::apply([&](const auto&... c) { (collect_by_type<Final>(c, ptrs, equal), ...); },
               n.children);
    if constexpr (Node::has_payload)
        if (slot != nullptr && !payload_equal(*static_cast<const Node*>(slot), n))
            equal = false;
    record_at(slot, &n);
}

template <class Final, class Prog, class Node>
void collect_exact(const Node& n, const void** ptrs, bool& equal);

template <class Final, class Prog, std::size_t I, class... Cs>
void collect_exact_children(const std::tuple<Cs...>& children, const void** ptrs, bool& equal) {
    if constexpr (I < sizeof...(Cs)) {
        const auto& c = std::get<I>(children);
        collect_exact<Final, Prog>(c, ptrs, equal);
        collect_exact_children<
            Final, typename number<std::remove_cvref_t<decltype(c)>, Prog, false>::prog, I + 1>(
            children, ptrs, equal);
    }
}

/// The run-time mirror of the exact numbering number<Node, Prog, false>, where a node with a
/// payload under it gets slots of its own at each visit.
template <class Final, class Prog, class Node>
void collect_exact(const Node& n, const void** ptrs, bool& equal) {
    if constexpr (!contains_payload_v<Node>) {
        collect_by_type<Final>(n, ptrs, equal);
    } else {
        collect_exact_children<Final, Prog, 0>(n.children, ptrs, equal);
        record_at(ptrs[number<Node, Prog, false>::slot], &n);
    }
}
} // namespace detail

/// The final program's node pointers for the output nodes `roots`; `equal` is cleared when a
/// speculative numbering merged nodes whose payloads differ (the program is then invalid).
template <class Final, bool Speculative, class... Roots>
node_pointers_t<Final> collect_nodes(bool& equal, const Roots&... roots) {
    node_pointers_t<Final> ptrs{};
    if constexpr (Speculative)
        (detail::collect_by_type<Final>(roots, ptrs.data(), equal), ...);
    else
        detail::collect_exact_children<Final, program<>, 0>(std::tuple<const Roots&...>(roots...),
                                                            ptrs.data(), equal);
    return ptrs;
}

// ---- fusion regions -----------------------------------------------------------------------------

/// The slots a fused kernel rooted at slot `root` evaluates: root, and every operand reached from
/// it through elementwise nodes; the slots it reads from memory (Prog::read_in) are where it
/// stops.
template <class Prog>
constexpr std::array<bool, Prog::size> region_members(std::size_t root) {
    std::array<bool, Prog::size> m{};
    m[root] = true;
    for (std::size_t s = root + 1; s-- > 0;) {
        if (!m[s] || Prog::read_in(s, root))
            continue;
        for (std::size_t k = 0; k < Prog::arity[s]; ++k)
            m[Prog::operand_slots[s][k]] = true;
    }
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

/// Every region's leaves at once: leaves[R][M] is region<Prog, R>::is_leaf(M), computed in one
/// loop over the program rather than one region instantiation per slot (the epilogue analysis
/// asks it of every pair of slots).
template <class Prog>
inline constexpr auto region_leaves = [] {
    constexpr std::size_t N = Prog::size;
    std::array<std::array<bool, N + 1>, N + 1> leaves{};
    for (std::size_t root = 0; root < N; ++root) {
        const auto member = region_members<Prog>(root);
        for (std::size_t s = 0; s < N; ++s)
            leaves[root][s] = member[s] && Prog::read_in(s, root);
    }
    return leaves;
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
        for (std::size_t m = 0; m < N; ++m)
            n[m] += leaves[region][m];
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

/// What the epilogue analysis asks of each node, as arrays indexed by slot (one instantiation
/// per program; the analysis is then plain loops over them, not a template per pair of slots).
template <class Prog>
struct epilogue_facts;
template <class... Is>
struct epilogue_facts<program<Is...>> {
    /// A floating-point element type's code (float 1, double 2, long double 3), 0 for others.
    template <class T>
    static constexpr int float_code = std::is_same_v<T, float>         ? 1
                                      : std::is_same_v<T, double>      ? 2
                                      : std::is_same_v<T, long double> ? 3
                                                                       : 0;
    template <class M>
    static constexpr bool hosts() {
        if constexpr (M::kind == node_kind::matmul)
            return M::shape_type::rank == 2;
        else if constexpr (M::kind == node_kind::opaque)
            return requires {
                M::op_type::runs_epilogue;
            };
        else
            return false;
    }
    /// Whether a value of this shape is a matrix as large as any it is combined with: rank 2,
    /// neither extent a compile-time 1 (a bias row or column broadcasts; a dynamic extent may
    /// not).
    template <class Shape>
    static constexpr bool full_matrix() {
        if constexpr (Shape::rank != 2)
            return false;
        else
            return !std::is_same_v<shape_extent_t<Shape, 0>, int_<1>> &&
                   !std::is_same_v<shape_extent_t<Shape, 1>, int_<1>>;
    }
    static constexpr std::array<int, sizeof...(Is) + 1> element{
        float_code<typename Is::node::value_type>..., 0};
    static constexpr std::array<std::size_t, sizeof...(Is) + 1> rank{Is::node::shape_type::rank...,
                                                                     0};
    /// Whether the node can run a fused region's kernel in its epilogue: a 2-D matmul (the
    /// GEMM, kernels/gemm.hpp), or an op that declares it (`runs_epilogue`: conv2d, over each
    /// run of its result).
    static constexpr std::array<bool, sizeof...(Is) + 1> host{hosts<typename Is::node>()..., false};
    static constexpr std::array<bool, sizeof...(Is) + 1> is_matmul{
        (Is::node::kind == node_kind::matmul)..., false};
    static constexpr std::array<bool, sizeof...(Is) + 1> is_full_matrix{
        full_matrix<typename Is::node::shape_type>()..., false};
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
        std::size_t full_leaves = 0;
        for (std::size_t s = 0; s < N; ++s)
            full_leaves += leaves[r][s] && facts::is_full_matrix[s];
        for (std::size_t m = 0; m < N; ++m) {
            const bool other_full_matrix = full_leaves > (facts::is_full_matrix[m] ? 1 : 0);
            if (facts::host[m] && facts::element[m] == facts::element[r] &&
                facts::rank[m] == facts::rank[r] && leaves[r][m] && readers[m] == 1 &&
                (!facts::is_matmul[m] || !other_full_matrix)) {
                found[r] = m;
                break;
            }
        }
    }
    return found;
}

} // namespace staticpy::graph
