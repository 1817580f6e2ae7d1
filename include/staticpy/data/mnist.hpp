#pragma once
// MNIST and Fashion-MNIST as map datasets, as torchvision.datasets.MNIST / FashionMNIST.
//
//   FashionMNIST train(fashion_mnist_root, true);         // 60000 samples
//   auto [image, label] = train[0];                       // [28, 28] uint8 view, int64 label
//   FashionMNIST norm(fashion_mnist_root, true, ToFloat{.mean = 0.2860F, .std = 0.3530F});
//   DataLoader loader(norm, {.batch_size = 64, .shuffle = true});   // [64, 28, 28] float batches
//
// The four IDX files are read once, at construction, into two contiguous tensors (the images
// [N, 28, 28] uint8, the labels [N] int64), so that a sample is a view and a batch is gathered
// with one copy per sample (GatherDataset).

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/error.hpp"
#include "staticpy/data/dataset.hpp"
#include "staticpy/data/detail/index_runs.hpp"
#include "staticpy/data/idx.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

/// Where Debian's dataset-fashion-mnist package installs the Fashion-MNIST files.
///   FashionMNIST ds(fashion_mnist_root);
///   std::filesystem::exists(fashion_mnist_root)   // false when the package is absent
inline const std::filesystem::path fashion_mnist_root = "/usr/share/datasets/fashion-mnist";

/// The transform that leaves a sample as it is (torchvision's transform=None). Pixelwise: a
/// batch of untransformed images is a memcpy.
///   MNIST<NoTransform> ds(root);
///   NoTransform{}(3) == 3
struct NoTransform {
    using value_type = std::uint8_t;
    /// The sample unchanged.
    ///   auto [image, label] = MNIST(root)[0];
    ///   NoTransform{}(image).storage().is_same(image.storage())
    template <class X>
    X operator()(X x) const {
        return x;
    }
    /// n pixels copied as they are (the batch gather's inner step).
    ///   std::uint8_t out[784];
    ///   NoTransform{}.apply(image.data(), out, 784);
    void apply(const std::uint8_t* src, std::uint8_t* dst, std::int64_t n) const noexcept {
        std::memcpy(dst, src, static_cast<std::size_t>(n));
    }
};

/// torchvision's ToTensor() then Normalize((mean,), (std,)): a uint8 image to the default dtype
/// (float32 unless STATICPY_DEFAULT_DTYPE says float64: ToTensor converts to
/// torch.get_default_dtype()), (x / 255 - mean) / std, as a new tensor of the same shape.
/// Pixelwise, so a batch keeps the fast path (each pixel converted straight into the batch).
///   FashionMNIST ds(root, true, ToFloat{.mean = 0.2860F, .std = 0.3530F});
///   ToFloat{}(img)   // values in [0, 1]
struct ToFloat {
    using value_type = default_float_t;
    value_type mean = 0;
    value_type std = 1;

    /// The image as a new tensor of the default dtype, of the same shape.
    ///   auto x = ToFloat{.mean = 0.5F, .std = 0.5F}(image);   // values in [-1, 1]
    ///   x.dtype() == float32
    template <class S>
    Tensor<value_type, S> operator()(const Tensor<std::uint8_t, S>& image) const {
        Tensor<value_type, S> out{image.shape()};
        const auto src = image.contiguous();
        apply(src.data(), out.data(), src.numel());
        return out;
    }
    /// n pixels converted into dst (the batch gather's inner step).
    ///   float out[784];
    ///   ToFloat{}.apply(image.data(), out, 784);   // out[k] == image.data()[k] / 255.f
    void apply(const std::uint8_t* src, value_type* dst, std::int64_t n) const noexcept {
        const value_type scale = value_type(1) / (value_type(255) * std);
        const value_type shift = mean / std;
        for (std::int64_t i = 0; i < n; ++i)
            dst[i] = static_cast<value_type>(src[i]) * scale - shift;
    }
};

/// A transform that maps pixels one by one: value_type is its output element type,
/// apply(src, dst, n) maps n uint8 pixels, and calling it on an image gives a Tensor of
/// value_type of the same shape. The DataLoader gathers such datasets without per-sample tensors,
/// and splits a large batch over the kernels' threads when apply is noexcept.
///   static_assert(PixelTransform<ToFloat>);
///   static_assert(!PixelTransform<std::function<int(int)>>);
template <class F>
concept PixelTransform = requires(const F& f, const std::uint8_t* src, typename F::value_type* dst,
                                  std::int64_t n) {
    f.apply(src, dst, n);
    {
        f(std::declval<const Tensor<std::uint8_t, static_shape<28, 28>>&>())
        } -> std::same_as<Tensor<typename F::value_type, static_shape<28, 28>>>;
};

/// torchvision.datasets.MNIST(root, train, transform, target_transform): the IDX files
/// train-images-idx3-ubyte, train-labels-idx1-ubyte (train) or t10k-... (test), plain or .gz,
/// in `root` (or torchvision's root/MNIST/raw). Sample i is std::tuple(transform(image),
/// target_transform(label)): the image a [28, 28] uint8 view of the images tensor, the label an
/// int64. RuntimeError("Dataset not found: ...") without the files; the readers' ValueErrors for
/// corrupt ones; ValueError when images are not [N, 28, 28] uint8 or counts differ.
///   MNIST train("/data/mnist");
///   auto [image, label] = train[-1];
template <class Transform = NoTransform, class TargetTransform = NoTransform>
class MNIST : public Dataset {
public:
    using image_type = Tensor<std::uint8_t, static_shape<28, 28>>;
    using images_type = Tensor<std::uint8_t, shape<std::int64_t, int_<28>, int_<28>>>;
    using targets_type = Tensor<std::int64_t, dynamic_shape<1>>;

    /// torchvision's MNIST.classes.
    static constexpr std::array<std::string_view, 10> classes{
        "0 - zero", "1 - one", "2 - two",   "3 - three", "4 - four",
        "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine"};

    /// Reads the split's two files now (about 50 MB for the training set).
    ///   MNIST test(root, false);
    ///   test.size() == 10000
    explicit MNIST(const std::filesystem::path& root, bool train = true, Transform transform = {},
                   TargetTransform target_transform = {})
        : MNIST(root, train, std::move(transform), std::move(target_transform), "MNIST") {}

    /// len(ds).
    [[nodiscard]] std::int64_t size() const noexcept { return images_.sizes()[0]; }

    /// ds[i]: (transform(image), target_transform(label)); negative i from the end, IndexError
    /// out of range.
    ///   auto [image, label] = ds[0];
    ///   image(14, 14);   // a pixel, uint8
    [[nodiscard]] auto operator[](std::int64_t i) const {
        image_type image = images_[i];
        const std::int64_t label = targets_(i);
        return std::tuple(std::invoke(transform, std::move(image)),
                          std::invoke(target_transform, label));
    }

    /// The batch default_collate makes of ds[i] for i in `indices`, gathered straight from the
    /// images tensor: one memcpy (or one pixelwise transform) per sample, or per run of
    /// consecutive indices, a large batch split over the kernels' threads. Only with a pixelwise
    /// transform and no target transform.
    ///   std::vector<std::int64_t> idx{7, 3};
    ///   auto [images, labels] = ds.gather(idx);   // [2, 28, 28], [2]
    [[nodiscard]] auto gather(std::span<const std::int64_t> indices) const requires
        PixelTransform<Transform> && std::is_same_v<TargetTransform, NoTransform> {
        using V = typename Transform::value_type;
        if (indices.empty())
            throw IndexError("list index out of range");
        const auto b = static_cast<std::int64_t>(indices.size());
        Tensor<V, shape<std::int64_t, int_<28>, int_<28>>> images{
            shape<std::int64_t, int_<28>, int_<28>>(b, int_<28>{}, int_<28>{})};
        targets_type labels{dynamic_shape<1>(b)};
        constexpr std::int64_t pixels = 28 * 28;
        const std::int64_t n = size();
        const std::uint8_t* src = images_.data();
        const std::int64_t* tsrc = targets_.data();
        V* dst = images.data();
        std::int64_t* ldst = labels.data();
        detail::for_each_index_run(
            indices, n, true, pixels,
            [&](std::int64_t first, std::int64_t at,
                std::int64_t count) noexcept(noexcept(transform.apply(src, dst, pixels))) {
                transform.apply(src + first * pixels, dst + at * pixels, count * pixels);
                std::memcpy(ldst + at, tsrc + first,
                            static_cast<std::size_t>(count) * sizeof(std::int64_t));
            });
        return std::tuple(std::move(images), std::move(labels));
    }

    /// torchvision's .data: all images, [N, 28, 28] uint8 (shared, not copied).
    ///   auto mean = ds.data().to<float>().mean();
    ///   ds.data().sizes()[0] == ds.size()
    [[nodiscard]] const images_type& data() const noexcept { return images_; }
    /// torchvision's .targets: all labels, [N] int64.
    ///   auto y = ds.targets();
    ///   y(0)   // the first label
    [[nodiscard]] const targets_type& targets() const noexcept { return targets_; }
    /// Whether this is the training split (torchvision's .train).
    ///   MNIST test(root, false);
    ///   test.train() == false
    [[nodiscard]] bool train() const noexcept { return train_; }
    /// The root directory given (torchvision's .root).
    ///   MNIST ds("/data/mnist");
    ///   ds.root() == "/data/mnist"
    [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }

    Transform transform;
    TargetTransform target_transform;

protected:
    MNIST(const std::filesystem::path& root, bool train, Transform t, TargetTransform tt,
          std::string_view name)
        : transform(std::move(t)), target_transform(std::move(tt)), train_(train), root_(root) {
        const std::string split = train ? "train" : "t10k";
        const auto image_file = find(root, split + "-images-idx3-ubyte", name);
        const auto label_file = find(root, split + "-labels-idx1-ubyte", name);
        auto images = read_idx<std::uint8_t, 3>(image_file);
        auto labels = read_idx<std::uint8_t, 1>(label_file);
        if (images.sizes()[1] != 28 || images.sizes()[2] != 28)
            throw ValueError("IDX file '" + image_file.string() + "': images of " +
                             staticpy::detail::sizes_text(images.sizes()) +
                             ", expected [N, 28, 28]");
        if (labels.sizes()[0] != images.sizes()[0])
            throw ValueError("IDX file '" + label_file.string() +
                             "': " + std::to_string(labels.sizes()[0]) + " labels for " +
                             std::to_string(images.sizes()[0]) + " images in '" +
                             image_file.string() + "'");
        images_ = images_type(images);
        targets_ = labels.template to<std::int64_t>();
    }

private:
    static std::filesystem::path find(const std::filesystem::path& root, const std::string& file,
                                      std::string_view name) {
        const std::filesystem::path raw = root / std::string(name) / "raw";
        for (const auto& dir : {root, raw})
            for (const char* ext : {"", ".gz"})
                if (std::filesystem::exists(dir / (file + ext)))
                    return dir / (file + ext);
        throw RuntimeError("Dataset not found: no '" + file + "' or '" + file + ".gz' in '" +
                           root.string() + "' (nor in '" + raw.string() +
                           "'); Fashion-MNIST: apt-get install dataset-fashion-mnist, files in " +
                           fashion_mnist_root.string());
    }

    images_type images_;
    targets_type targets_;
    bool train_ = true;
    std::filesystem::path root_;
};

/// torchvision.datasets.FashionMNIST(root, train, transform, target_transform): MNIST's format
/// and file names, Zalando's images; Debian's dataset-fashion-mnist installs them in
/// fashion_mnist_root.
///   FashionMNIST train(fashion_mnist_root);                 // 60000 samples
///   FashionMNIST test(fashion_mnist_root, false, ToFloat{});  // 10000, float images
template <class Transform = NoTransform, class TargetTransform = NoTransform>
class FashionMNIST : public MNIST<Transform, TargetTransform> {
public:
    /// torchvision's FashionMNIST.classes.
    static constexpr std::array<std::string_view, 10> classes{
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
        "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

    /// Reads the split's two files now.
    ///   FashionMNIST ds(fashion_mnist_root, true);
    ///   ds.size() == 60000
    explicit FashionMNIST(const std::filesystem::path& root = fashion_mnist_root, bool train = true,
                          Transform transform = {}, TargetTransform target_transform = {})
        : MNIST<Transform, TargetTransform>(root, train, std::move(transform),
                                            std::move(target_transform), "FashionMNIST") {}
};

} // namespace staticpy::data
