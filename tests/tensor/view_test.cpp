#include <array>
#include <cstdint>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;
using staticpy::dynamic_shape;
using staticpy::int_;
using staticpy::shape;
using staticpy::static_shape;
using A2 = std::array<std::int64_t, 2>;
using A3 = std::array<std::int64_t, 3>;

template <class T>
using shape_of = typename std::remove_cvref_t<T>::shape_type;

TEST_CASE("select and t[i] drop a dimension and share storage", "[tensor][view]") {
    auto t = staticpy::arange<float>(0, 6).view(2_c, 3_c);
    auto row = t[1];
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(row)>, static_shape<3>>);
    row(0) = 30; // write through the view, read from the base
    REQUIRE(t(1, 0) == 30);
    auto col = t.select(1_c, 2);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(col)>, static_shape<2>>);
    REQUIRE(col(1) == 5);
    REQUIRE(col.stride(0) == 3);
    auto rcol = t.select(1, 2); // run-time dim: extents dynamic
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(rcol)>, dynamic_shape<1>>);
    REQUIRE(rcol(0) == 2);
    auto last = t[-1];
    REQUIRE(last(2) == 5);
    auto scalar = t[0][2];
    STATIC_REQUIRE(decltype(scalar)::rank == 0);
    REQUIRE(scalar.item() == 2);
    REQUIRE_THROWS_WITH(t.select(1, 3),
                        "select(): index 3 out of range for tensor of size [2, 3] at dimension 1");
    REQUIRE_THROWS_WITH(t.select(2, 0),
                        "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST_CASE("slice clamps as Python and keeps static extents where it can", "[tensor][view]") {
    auto t = staticpy::arange<std::int64_t>(0, 10);
    auto s = t.slice(0, 2, 8, 3);
    REQUIRE(s.numel() == 2);
    REQUIRE(s(0) == 2);
    REQUIRE(s(1) == 5);
    REQUIRE(s.stride(0) == 3);
    REQUIRE(s.storage_offset() == 2);
    REQUIRE(t.slice(0, -3, 100).numel() == 3);
    REQUIRE(t.slice(0, 8, 2).numel() == 0);
    REQUIRE(t.slice(0, -100, 2)(1) == 1);
    REQUIRE(t[staticpy::slice(1, 4)].numel() == 3);
    REQUIRE(t[staticpy::slice(staticpy::None, staticpy::None, 4)](2) == 8);
    REQUIRE_THROWS_AS(t.slice(0, 0, 5, 0), staticpy::ValueError);
    REQUIRE_THROWS_WITH(t.slice(0, 0, 5, -1), "step must be greater than zero");
    s(1) = 50;
    REQUIRE(t(5) == 50);

    auto m = staticpy::zeros(4_c, 6_c);
    auto cs = m.slice(1_c, 1_c, 5_c, 2_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(cs)>, static_shape<4, 2>>);
    auto ds = m.slice(1_c, 1, 5);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(ds)>, shape<int_<4>, std::int64_t>>);
    REQUIRE(ds.size(1) == 4);
    auto n = m.narrow(0_c, 1, 2);
    REQUIRE(n.size(0) == 2);
    REQUIRE_THROWS_WITH(m.narrow(0, 3, 2), "start (3) + length (2) exceeds dimension size (4).");
}

TEST_CASE("transpose, t() and permute swap sizes and strides", "[tensor][view]") {
    auto x = staticpy::zeros(2_c, 3_c, 4_c);
    auto tr = x.transpose(0_c, -1_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(tr)>, static_shape<4, 3, 2>>);
    REQUIRE(tr.strides() == A3{1, 4, 12});
    REQUIRE_FALSE(tr.is_contiguous());
    auto rt = x.transpose(0, 2);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(rt)>, dynamic_shape<3>>);
    REQUIRE(rt.sizes() == A3{4, 3, 2});
    auto p = x.permute(2_c, 0_c, 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(p)>, static_shape<4, 2, 3>>);
    REQUIRE(p.strides() == A3{1, 12, 4});
    auto rp = x.permute(1, 2, 0);
    REQUIRE(rp.sizes() == A3{3, 4, 2});
    REQUIRE(rp.strides() == A3{4, 1, 12});
    REQUIRE_THROWS_WITH(x.permute(0, 0, 1), "permute(): duplicate dims are not allowed.");
    auto m = staticpy::arange<float>(0, 6).view(2_c, 3_c);
    auto mt = m.t();
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(mt)>, static_shape<3, 2>>);
    REQUIRE(mt(2, 1) == 5);
    mt(0, 1) = 9;
    REQUIRE(m(1, 0) == 9);
}

TEST_CASE("view and reshape: no copy when strides allow, copy otherwise", "[tensor][view]") {
    auto x = staticpy::arange<float>(0, 6);
    auto v = x.view(2_c, 3_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(v)>, static_shape<2, 3>>);
    REQUIRE(v.storage().is_same(x.storage()));
    auto s = staticpy::zeros(2_c, 3_c);
    auto inferred = s.view(3_c, -1_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(inferred)>, static_shape<3, 2>>);
    auto rinf = s.view(-1, 2);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(rinf)>, dynamic_shape<2>>);
    REQUIRE(rinf.size(0) == 3);
    auto flat = s.flatten();
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(flat)>, static_shape<6>>);
    REQUIRE(flat.storage().is_same(s.storage()));

    auto t = v.t(); // 3x2, not contiguous
    REQUIRE_THROWS_AS(t.view(6), staticpy::RuntimeError);
    REQUIRE_THROWS_WITH(
        t.view(6), "view size is not compatible with input tensor's size and stride (at least one "
                   "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    auto r = t.reshape(6); // copies
    REQUIRE_FALSE(r.storage().is_same(x.storage()));
    REQUIRE(r(1) == 3);
    REQUIRE(r(2) == 1);
    auto r2 = t.reshape(3, 1, 2); // a view is possible: splitting/adding size-1 dims
    REQUIRE(r2.storage().is_same(x.storage()));
    auto tv = t.view(3_c, 1_c, 2_c);
    REQUIRE(tv(2, 0, 1) == 5);
    REQUIRE_THROWS_AS(x.view(2, 4), staticpy::RuntimeError);
    REQUIRE_THROWS_WITH(x.view(2, 4), "shape '[2, 4]' is invalid for input of size 6");
    REQUIRE_THROWS_WITH(x.reshape(-1, -1), "only one dimension can be inferred");
    REQUIRE_THROWS_WITH(x.reshape(4, -1), "shape '[4, -1]' is invalid for input of size 6");
    REQUIRE(x.reshape(shape(3_c, 2_c)).size(0) == 3);
}

TEST_CASE("expand and broadcast_to use stride 0", "[tensor][view]") {
    auto v = staticpy::arange<float>(0, 3).view(3_c);
    auto e = v.expand(2_c, 3_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(e)>, static_shape<2, 3>>);
    REQUIRE(e.strides() == A2{0, 1});
    REQUIRE(e(1, 2) == 2);
    auto c = staticpy::arange<float>(0, 3).view(3_c, 1_c);
    auto ce = c.expand(-1_c, 4_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(ce)>, static_shape<3, 4>>);
    REQUIRE(ce.strides() == A2{1, 0});
    REQUIRE(ce(2, 3) == 2);
    REQUIRE(ce.storage().is_same(c.storage()));
    auto b = c.broadcast_to(shape(2_c, 3_c, 5));
    REQUIRE(b.sizes() == A3{2, 3, 5});
    REQUIRE(b.strides() == A3{0, 1, 0});
    auto d = staticpy::zeros(3, 1);
    REQUIRE_THROWS_WITH(d.expand(3, 4).expand(2, 4),
                        "The expanded size of the tensor (2) must match the existing size (3) at "
                        "non-singleton dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 4]");
    REQUIRE_THROWS_WITH(
        d.expand(-1, 3, 4),
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
        "dimension 0");
    auto like = v.expand_as(staticpy::zeros(4_c, 3_c));
    REQUIRE(like.size(0) == 4);
    auto ec = e.contiguous();
    REQUIRE(ec.strides() == A2{3, 1});
    REQUIRE(ec(1, 1) == 1);
}

TEST_CASE("squeeze and unsqueeze", "[tensor][view]") {
    auto x = staticpy::zeros(2_c, 3_c);
    auto u = x.unsqueeze(0_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(u)>, static_shape<1, 2, 3>>);
    auto u2 = x.unsqueeze(-1_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(u2)>, static_shape<2, 3, 1>>);
    REQUIRE(u2.strides() == A3{3, 1, 1});
    auto u1 = x.unsqueeze(1);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(u1)>, dynamic_shape<3>>);
    REQUIRE(u1.sizes() == A3{2, 1, 3});
    REQUIRE(u1.strides() == A3{3, 3, 1});
    REQUIRE_THROWS_WITH(x.unsqueeze(3),
                        "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    auto s = u.squeeze(0_c);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(s)>, static_shape<2, 3>>);
    auto same = x.squeeze(0_c); // size 2: unchanged, as PyTorch
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(same)>, static_shape<2, 3>>);
    auto all = staticpy::zeros(1_c, 2_c, 1_c).squeeze();
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(all)>, static_shape<2>>);
    auto d = staticpy::zeros(1, 4);
    auto ds = d.squeeze(0);
    STATIC_REQUIRE(std::is_same_v<shape_of<decltype(ds)>, dynamic_shape<1>>);
    REQUIRE(ds.size(0) == 4);
    REQUIRE_THROWS_AS(d.squeeze(1), staticpy::RuntimeError);
    REQUIRE(s.storage().is_same(x.storage()));
}
