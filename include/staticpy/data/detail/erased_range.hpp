#pragma once
// A range of any type behind one type, read one epoch at a time: what any_sampler and
// any_batch_sampler are made of. Python needs none of this, its iterables being one type already.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <ranges>
#include <utility>

#include "staticpy/core/error.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data::detail {

/// Reads one epoch of a range: each call gives the next element, nullopt at the end. The range is
/// kept alive (when owned) by the captured handle. Like a Python generator, a reader that threw
/// is exhausted: the error comes once, then the end.
template <class Held, class Convert>
auto range_reader(Held held, Convert convert) {
    using R = typename Held::element_type;
    struct state {
        Held owner;
        std::ranges::iterator_t<R&> it;
        std::ranges::sentinel_t<R&> end;
        bool started = false;
        bool done = false;
    };
    auto st = std::make_shared<state>(
        state{held, std::ranges::begin(held.get()), std::ranges::end(held.get())});
    return [st, convert]() -> std::optional<decltype(convert(*st->it))> {
        if (st->done)
            return std::nullopt;
        try {
            // The iterator moves past an element only when the next one is asked for: a
            // BatchSampler builds its next batch in ++, and if that throws, the batch before it
            // has already been handed out instead of being lost with the error.
            if (st->started)
                ++st->it;
            st->started = true;
            if (st->it == st->end) {
                st->done = true;
                return std::nullopt;
            }
            return convert(*st->it);
        } catch (...) {
            st->done = true;
            throw;
        }
    };
}

/// The one implementation behind any_sampler and any_batch_sampler: an epoch is begun by start(),
/// which returns a reader of its elements; the range's iterator walks such a reader.
template <class T>
class erased_range {
public:
    using reader = std::function<std::optional<T>()>;

    /// Begins an epoch (a random sampler draws its indices now).
    ///   auto read = sampler.start();
    ///   while (auto i = read()) use(*i);
    [[nodiscard]] reader start() const { return start_(); }
    /// len(sampler); TypeError when the sampler has no length.
    ///   any_sampler s = SequentialSampler(4);
    ///   s.size() == 4
    [[nodiscard]] std::int64_t size() const {
        if (!size_)
            throw TypeError("object of type 'sampler' has no len()");
        return size_();
    }
    /// Whether size() has an answer.
    ///   any_sampler s = std::views::iota(0);   // endless
    ///   s.has_size() == false
    [[nodiscard]] bool has_size() const noexcept { return static_cast<bool>(size_); }

    class iterator {
    public:
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;

        iterator() = default;
        explicit iterator(reader r) : read_(std::make_shared<reader>(std::move(r))) { advance(); }
        const T& operator*() const { return *current_; }
        iterator& operator++() {
            advance();
            return *this;
        }
        void operator++(int) { advance(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) {
            return !it.current_.has_value();
        }

    private:
        void advance() { current_ = (*read_)(); }
        std::shared_ptr<reader> read_;
        std::optional<T> current_;
    };
    /// Range-for over one epoch.
    ///   any_sampler s = std::vector<std::int64_t>{2, 0};
    ///   for (auto i : s) { ... }   // 2, 0
    [[nodiscard]] iterator begin() const { return iterator(start()); }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

protected:
    template <class S, class Convert>
    void assign(S&& s, Convert convert) {
        held<S> h(std::forward<S>(s));
        start_ = [h, convert]() -> reader { return range_reader(h, convert); };
        if constexpr (sized<typename held<S>::element_type>)
            size_ = [h]() { return length(h.get()); };
    }

private:
    std::function<reader()> start_;
    std::function<std::int64_t()> size_;
};

} // namespace staticpy::data::detail
