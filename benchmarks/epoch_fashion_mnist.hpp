#pragma once
// Fashion-MNIST for the C++ peers of the epoch benchmarks (epoch_libtorch.cpp, epoch_dlib.cpp,
// epoch_dlib_example.cpp): the IDX files of Debian's dataset-fashion-mnist, gzip-compressed (read
// with zlib) or plain, into one float vector of normalised pixels ((x / 255 - mean) / std,
// epoch_support.hpp's constants: torchvision's ToTensor + Normalize) and one label vector. The
// peers normalise once, here, before training; staticpy's DataLoader normalises per batch
// inside the epoch (its ToFloat transform), which its epoch time includes.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

namespace epoch_bench {

/// One split: n images of 28 x 28 normalised pixels, row-major, and their labels 0..9.
struct fashion_mnist_split {
    std::int64_t n = 0;
    std::vector<float> pixels; // n * 784
    std::vector<std::int64_t> labels;
};

namespace detail {

/// The whole file, decompressed when it is gzip (gzread reads plain files as they are).
inline std::vector<unsigned char> read_idx_file(const std::filesystem::path& root,
                                                const std::string& name) {
    std::filesystem::path path = root / (name + ".gz");
    if (!std::filesystem::exists(path))
        path = root / name;
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr)
        throw std::runtime_error("cannot open " + path.string() +
                                 " (apt-get install dataset-fashion-mnist)");
    std::vector<unsigned char> bytes;
    unsigned char buf[1 << 16];
    int got = 0;
    while ((got = gzread(f, buf, sizeof buf)) > 0)
        bytes.insert(bytes.end(), buf, buf + got);
    const bool failed = got < 0;
    gzclose(f);
    if (failed)
        throw std::runtime_error("cannot decompress " + path.string());
    return bytes;
}

/// The big-endian 32-bit word at byte `at`.
inline std::uint32_t be32(const std::vector<unsigned char>& b, std::size_t at) {
    if (at + 4 > b.size())
        throw std::runtime_error("IDX file too short");
    return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
           (std::uint32_t{b[at + 2]} << 8) | std::uint32_t{b[at + 3]};
}

} // namespace detail

/// The training split (train-*) or the test split (t10k-*), normalised with mean and std.
inline fashion_mnist_split load_fashion_mnist(const std::filesystem::path& root, bool train,
                                              float mean, float std) {
    const std::string prefix = train ? "train" : "t10k";
    const auto images = detail::read_idx_file(root, prefix + "-images-idx3-ubyte");
    const auto labels = detail::read_idx_file(root, prefix + "-labels-idx1-ubyte");
    // IDX: magic 0x00000803 (uint8, 3 dimensions), then the sizes; labels 0x00000801.
    if (detail::be32(images, 0) != 0x803 || detail::be32(labels, 0) != 0x801)
        throw std::runtime_error("not an IDX image/label file pair in " + root.string());
    const std::uint32_t n = detail::be32(images, 4);
    if (detail::be32(images, 8) != 28 || detail::be32(images, 12) != 28 ||
        detail::be32(labels, 4) != n || images.size() != 16 + std::size_t{n} * 784 ||
        labels.size() != 8 + std::size_t{n})
        throw std::runtime_error("unexpected IDX sizes in " + root.string());
    fashion_mnist_split s;
    s.n = n;
    s.pixels.resize(std::size_t{n} * 784);
    const float scale = 1.0F / (255.0F * std), shift = mean / std;
    for (std::size_t i = 0; i < s.pixels.size(); ++i)
        s.pixels[i] = static_cast<float>(images[16 + i]) * scale - shift;
    s.labels.assign(labels.begin() + 8, labels.end());
    return s;
}

} // namespace epoch_bench
