#pragma once
// A progress bar for loops over a DataLoader (or any range), in tqdm's format.
//
//   for (auto& [x, y] : progress(loader, {.desc = "epoch 1"})) train(x, y);
//   // epoch 1:  45%|####5     | 423/938 [00:03<00:04, 125.31it/s]
//
// It writes to stderr with \r updates, as tqdm does, and only when stdout is a terminal: in a
// pipe, a log file or a test run it stays silent, so that output meant for files keeps no
// control characters.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>

#if __has_include(<unistd.h>)
#include <unistd.h>
#define STATICPY_HAS_ISATTY 1
#endif

#include "staticpy/core/error.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

/// progress()'s keyword arguments, tqdm's where they exist. `out` (default std::cerr), `enabled`
/// (default: whether stdout is a terminal) and `clock` (seconds; default a steady clock) can be
/// injected, for tests and for logging to a stream of one's own.
///   progress(loader, {.desc = "train", .min_interval = 0.5});
///   progress(loader, {.out = &log, .enabled = true});
struct ProgressOptions {
    std::string desc{};
    std::ostream* out = nullptr;
    std::optional<bool> enabled{};
    double min_interval = 0.1; // tqdm's mininterval: seconds between redraws
    int bar_width = 10;
    std::optional<std::int64_t> total{}; // default: len(range) when it has one
    std::function<double()> clock{};
};

/// tqdm's time format: "01:05", or "1:02:03" from an hour on.
///   format_interval(65) == "01:05"
///   format_interval(3723) == "1:02:03"
inline std::string format_interval(double seconds) {
    const auto t = static_cast<std::int64_t>(seconds);
    const std::int64_t h = t / 3600;
    const std::int64_t m = (t / 60) % 60;
    const std::int64_t s = t % 60;
    char buf[48];
    if (h > 0)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h),
                      static_cast<long long>(m), static_cast<long long>(s));
    else
        std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(m),
                      static_cast<long long>(s));
    return buf;
}

/// tqdm.format_meter: the line drawn for n items done of `total` (nullopt: unknown) after
/// `elapsed` seconds, with tqdm's ASCII bar. Rate in it/s (s/it below one item a second), "?"
/// before it is known; ETA = (total - n) / rate; a postfix (tqdm's set_postfix_str) after the rate.
///   format_meter(5, 10, 2.0) == " 50%|#####     | 5/10 [00:02<00:02,  2.50it/s]"
///   format_meter(5, std::nullopt, 2.0, "load") == "load: 5it [00:02,  2.50it/s]"
///   format_meter(5, std::nullopt, 2.0, "", 10, "loss=1") == "5it [00:02,  2.50it/s, loss=1]"
inline std::string format_meter(std::int64_t n, std::optional<std::int64_t> total, double elapsed,
                                const std::string& desc = {}, int bar_width = 10,
                                const std::string& postfix = {}) {
    std::string out = desc.empty() ? std::string() : desc + ": ";
    const double rate = elapsed > 0 && n > 0 ? static_cast<double>(n) / elapsed : 0.0;
    char num[64];
    std::string rate_text;
    if (rate <= 0) {
        rate_text = "?it/s";
    } else if (rate >= 1) {
        std::snprintf(num, sizeof num, "%5.2f", rate);
        rate_text = std::string(num) + "it/s";
    } else {
        std::snprintf(num, sizeof num, "%5.2f", 1.0 / rate);
        rate_text = std::string(num) + "s/it";
    }
    if (!postfix.empty())
        rate_text += ", " + postfix;
    if (!total || *total <= 0) {
        return out + std::to_string(n) + "it [" + format_interval(elapsed) + ", " + rate_text + "]";
    }
    const double frac = std::min(1.0, static_cast<double>(n) / static_cast<double>(*total));
    std::snprintf(num, sizeof num, "%3.0f%%", frac * 100.0);
    out += num;
    // tqdm's ascii charset " 123456789#": whole cells '#', the partial one a digit of tenths.
    const auto tenths = static_cast<std::int64_t>(frac * bar_width * 10);
    const std::int64_t full = tenths / 10;
    std::string bar(static_cast<std::size_t>(full), '#');
    if (full < bar_width) {
        const std::int64_t part = tenths % 10;
        bar += part == 0 ? ' ' : static_cast<char>('0' + part);
        bar.append(static_cast<std::size_t>(bar_width - full - 1), ' ');
    }
    const std::string remaining =
        rate > 0 ? format_interval(static_cast<double>(*total - n) / rate) : "?";
    return out + "|" + bar + "| " + std::to_string(n) + "/" + std::to_string(*total) + " [" +
           format_interval(elapsed) + "<" + remaining + ", " + rate_text + "]";
}

namespace detail {

inline bool stdout_is_terminal() {
#ifdef STATICPY_HAS_ISATTY
    return ::isatty(STDOUT_FILENO) == 1;
#else
    return false;
#endif
}

/// The bar's state over one pass: counts, times, and what was drawn last.
class meter {
public:
    meter(const ProgressOptions& o, std::optional<std::int64_t> total)
        : opts_(o),
          total_(total),
          enabled_(o.enabled.value_or(stdout_is_terminal())),
          out_(o.out != nullptr ? o.out : &std::cerr) {
        if (!opts_.clock)
            opts_.clock = [] {
                return std::chrono::duration<double>(
                           std::chrono::steady_clock::now().time_since_epoch())
                    .count();
            };
        start_ = last_draw_ = opts_.clock();
        draw(start_);
    }
    meter(const meter&) = delete;
    meter& operator=(const meter&) = delete;
    ~meter() { close(); }

    void update() {
        ++n_;
        if (!enabled_)
            return;
        const double now = opts_.clock();
        if (now - last_draw_ >= opts_.min_interval)
            draw(now);
    }
    /// The final line and a newline, once (the end of the loop, or a break).
    void close() {
        if (closed_)
            return;
        closed_ = true;
        if (!enabled_)
            return;
        draw(opts_.clock());
        *out_ << '\n' << std::flush;
    }
    [[nodiscard]] std::int64_t n() const noexcept { return n_; }
    /// The text after the rate from the next redraw on.
    void set_postfix(std::string text) { postfix_ = std::move(text); }

private:
    void draw(double now) {
        if (!enabled_)
            return;
        last_draw_ = now;
        std::string line =
            format_meter(n_, total_, now - start_, opts_.desc, opts_.bar_width, postfix_);
        const std::size_t len = line.size();
        if (len < last_len_) // blank out what a longer previous line left
            line.append(last_len_ - len, ' ');
        last_len_ = len;
        *out_ << '\r' << line << std::flush;
    }

    ProgressOptions opts_;
    std::optional<std::int64_t> total_;
    bool enabled_;
    std::ostream* out_;
    std::int64_t n_ = 0;
    double start_ = 0;
    double last_draw_ = 0;
    std::size_t last_len_ = 0;
    bool closed_ = false;
    std::string postfix_;
};

} // namespace detail

/// A range that iterates `range` and draws a progress bar (see progress()). Each begin() is a
/// new pass with a new bar; the bar is finished (final line, newline) at the end of the pass, or
/// when the range is destroyed after an early break.
template <class R>
class Progress {
    using held_range = detail::held<R>;
    using range_type = typename held_range::element_type;
    using inner_iterator = std::ranges::iterator_t<range_type&>;
    using inner_sentinel = std::ranges::sentinel_t<range_type&>;

public:
    template <class A>
    Progress(A&& range, ProgressOptions options)
        : range_(std::forward<A>(range)), opts_(std::move(options)) {}

    struct sentinel {
        inner_sentinel end;
    };

    class iterator {
    public:
        using value_type = std::iter_value_t<inner_iterator>;
        using difference_type = std::ptrdiff_t;

        iterator(inner_iterator it, std::shared_ptr<detail::meter> m)
            : it_(std::move(it)), meter_(std::move(m)) {}
        decltype(auto) operator*() const { return *it_; }
        iterator& operator++() {
            ++it_;
            meter_->update();
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, const sentinel& s) {
            const bool done = it.it_ == s.end;
            if (done)
                it.meter_->close();
            return done;
        }

    private:
        inner_iterator it_;
        std::shared_ptr<detail::meter> meter_;
    };

    /// A new pass: the bar starts at 0.
    ///   auto bar = progress(loader);
    ///   for (auto& b : bar) { ... }
    iterator begin() {
        std::optional<std::int64_t> total = opts_.total;
        if (!total) {
            if constexpr (detail::sized<range_type>) {
                try {
                    total = detail::length(range_.get());
                } catch (const TypeError&) { // a DataLoader over an unsized iterable dataset
                }
            }
        }
        auto it = std::ranges::begin(range_.get());
        meter_ = std::make_shared<detail::meter>(opts_, total);
        return iterator(std::move(it), meter_);
    }
    /// The end of the pass (reaching it finishes the bar).
    ///   auto bar = progress(items);
    ///   for (auto it = bar.begin(); it != bar.end(); ++it) { ... }
    sentinel end() { return sentinel{std::ranges::end(range_.get())}; }

    /// How many items the current (or last) pass has gone through.
    ///   for (auto& b : bar) {}
    ///   bar.n() == loader.size()
    [[nodiscard]] std::int64_t n() const noexcept { return meter_ ? meter_->n() : 0; }

    /// tqdm's set_postfix_str: text shown after the rate from the next redraw of this pass on
    /// (the training loss, say).
    ///   auto bar = progress(loader);
    ///   for (auto& [x, y] : bar) bar.set_postfix_str("loss=" + std::to_string(step(x, y)));
    void set_postfix_str(std::string text) {
        if (meter_)
            meter_->set_postfix(std::move(text));
    }

private:
    held_range range_;
    ProgressOptions opts_;
    std::shared_ptr<detail::meter> meter_;
};

/// tqdm(loader): iterate `range` (a DataLoader, or any range; an lvalue is referenced, an rvalue
/// owned) while a bar shows the count, the rate and the time left on stderr, updated in place
/// with \r; silent when stdout is not a terminal (ProgressOptions::enabled overrides).
///   for (auto& [x, y] : progress(loader)) train(x, y);
///   for (auto& batch : progress(loader, {.desc = "epoch 2"})) { ... }
template <std::ranges::input_range R>
Progress<R> progress(R&& range, ProgressOptions options = {}) {
    return Progress<R>(std::forward<R>(range), std::move(options));
}

} // namespace staticpy::data
