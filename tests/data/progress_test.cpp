// The progress bar: tqdm's format, \r updates on an injected stream with an injected clock, and
// silence when stdout is not a terminal.

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include <unistd.h>

using namespace staticpy;
using namespace staticpy::data;

namespace {
/// A clock that advances one second each time it is read.
struct ticking_clock {
    std::shared_ptr<double> now = std::make_shared<double>(100.0);
    double operator()() const { return (*now)++; }
};

struct Range {
    std::int64_t n = 0;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const { return i; }
};
} // namespace

TEST_CASE("format_meter: tqdm's line") {
    CHECK(format_meter(5, 10, 2.0) == " 50%|#####     | 5/10 [00:02<00:02,  2.50it/s]");
    CHECK(format_meter(0, 10, 0.0) == "  0%|          | 0/10 [00:00<?, ?it/s]");
    CHECK(format_meter(10, 10, 4.0, "epoch 1") ==
          "epoch 1: 100%|##########| 10/10 [00:04<00:00,  2.50it/s]");
    CHECK(format_meter(423, 938, 3.38) == " 45%|####5     | 423/938 [00:03<00:04, 125.15it/s]");
    CHECK(format_meter(1, 4, 2.5) == " 25%|##5       | 1/4 [00:02<00:07,  2.50s/it]");
    CHECK(format_meter(5, std::nullopt, 2.0, "load") == "load: 5it [00:02,  2.50it/s]");
    CHECK(format_meter(5, 10, 2.0, "", 4) == " 50%|##  | 5/10 [00:02<00:02,  2.50it/s]");
    CHECK(format_meter(5, 10, 2.0, "", 10, "loss=0.512") ==
          " 50%|#####     | 5/10 [00:02<00:02,  2.50it/s, loss=0.512]");
    CHECK(format_meter(5, std::nullopt, 2.0, "", 10, "loss=1") == "5it [00:02,  2.50it/s, loss=1]");
    CHECK(format_interval(65) == "01:05");
    CHECK(format_interval(3723) == "1:02:03");
}

TEST_CASE("progress: updates in place on the stream, a final line and a newline") {
    std::ostringstream out;
    std::vector<int> items{1, 2, 3, 4};
    int sum = 0;
    for (int v : progress(
             items, {.out = &out, .enabled = true, .min_interval = 0, .clock = ticking_clock{}}))
        sum += v;
    CHECK(sum == 10);
    // The clock reads 100 at the start, then one more second at each update and at the end.
    CHECK(out.str() == "\r  0%|          | 0/4 [00:00<?, ?it/s]"
                       "\r 25%|##5       | 1/4 [00:01<00:03,  1.00it/s]"
                       "\r 50%|#####     | 2/4 [00:02<00:02,  1.00it/s]"
                       "\r 75%|#######5  | 3/4 [00:03<00:01,  1.00it/s]"
                       "\r100%|##########| 4/4 [00:04<00:00,  1.00it/s]"
                       "\r100%|##########| 4/4 [00:05<00:00,  1.25s/it]\n");
}

TEST_CASE("progress: set_postfix_str shows its text after the rate from the next redraw") {
    std::ostringstream out;
    std::vector<int> items{1, 2, 3};
    auto bar = progress(
        items, {.out = &out, .enabled = true, .min_interval = 0, .clock = ticking_clock{}});
    bar.set_postfix_str("before the pass"); // no pass yet: nothing to show it on
    for (int v : bar)
        bar.set_postfix_str("loss=" + std::to_string(v));
    CHECK(out.str() == "\r  0%|          | 0/3 [00:00<?, ?it/s]"
                       "\r 33%|###3      | 1/3 [00:01<00:02,  1.00it/s, loss=1]"
                       "\r 67%|######6   | 2/3 [00:02<00:01,  1.00it/s, loss=2]"
                       "\r100%|##########| 3/3 [00:03<00:00,  1.00it/s, loss=3]"
                       "\r100%|##########| 3/3 [00:04<00:00,  1.33s/it, loss=3]\n");
}

TEST_CASE("progress: redraws at most every min_interval, over a DataLoader, and after a break") {
    std::ostringstream out;
    DataLoader loader(Range{10}, {.batch_size = 2});
    auto bar = progress(loader, {.desc = "train",
                                 .out = &out,
                                 .enabled = true,
                                 .min_interval = 2.5,
                                 .clock = ticking_clock{}});
    std::int64_t batches = 0;
    for (auto& batch : bar) {
        CHECK(batch.numel() == 2);
        ++batches;
    }
    CHECK(batches == 5);
    CHECK(bar.n() == 5);
    const std::string s = out.str();
    CHECK(s.rfind("train:", 0) == std::string::npos); // every line starts with \r
    CHECK(s.find("\rtrain:   0%|          | 0/5 [00:00<?, ?it/s]") == 0);
    CHECK(s.find("\rtrain:  60%|######    | 3/5 [00:03<00:02,  1.00it/s]") != std::string::npos);
    CHECK(s.find("1/5") == std::string::npos); // skipped: less than 2.5 s after the last draw
    CHECK(s.substr(s.size() - 1) == "\n");

    std::ostringstream early;
    {
        auto partial = progress(
            loader, {.out = &early, .enabled = true, .min_interval = 0, .clock = ticking_clock{}});
        for (auto& batch : partial) {
            if (batch(0) == 4)
                break;
        }
    } // the bar is finished when the range goes away
    const std::string e = early.str();
    CHECK(e.find(" 2/5 ") != std::string::npos);
    CHECK(e.find(" 3/5 ") == std::string::npos);
    CHECK(e.back() == '\n');

    std::ostringstream unsized;
    std::vector<int> items{1, 2};
    for (int v : progress(items, {.out = &unsized,
                                 .enabled = true,
                                 .min_interval = 0,
                                 .total = std::int64_t{0},
                                 .clock = ticking_clock{}}))
        (void)v;
    CHECK(unsized.str().find("2it [") != std::string::npos);
}

TEST_CASE("progress: silent when disabled, and by default when stdout is not a terminal") {
    std::ostringstream off;
    std::vector<int> items{1, 2, 3};
    int n = 0;
    for (int v : progress(items, {.out = &off, .enabled = false}))
        n += v;
    CHECK(n == 6);
    CHECK(off.str().empty());

    std::ostringstream automatic;
    for (int v : progress(items, {.out = &automatic}))
        (void)v;
    if (::isatty(STDOUT_FILENO) == 0)
        CHECK(automatic.str().empty());
    else
        WARN("stdout is a terminal: the bar was drawn, as it should be");
}
