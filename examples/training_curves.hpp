#pragma once
// The training example's picture: the training loss over the steps and the test accuracy over the
// epochs, one line per model, as an SVG file any browser opens. A plain writer: the example needs
// two line charts, not a plotting library.
//
//   training_curves curves;
//   curves.add_loss("MLP", step, loss);          // as many points as logged
//   curves.add_accuracy("MLP", epoch, accuracy); // accuracy in [0, 1]
//   curves.write_svg("train_fashion_mnist.svg");

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

class training_curves {
public:
    void add_loss(const std::string& model, double step, double loss) {
        series(loss_, model).emplace_back(step, loss);
    }
    void add_accuracy(const std::string& model, double epoch, double accuracy) {
        series(accuracy_, model).emplace_back(epoch, 100 * accuracy);
    }

    /// Two charts side by side: loss against steps, test accuracy (%) against epochs.
    void write_svg(const std::string& path) const {
        std::ofstream out(path);
        if (!out)
            throw std::runtime_error("cannot write " + path);
        out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * chart_w << "\" height=\""
            << chart_h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
            << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        chart(out, 0, "training loss", "step", loss_);
        chart(out, chart_w, "test accuracy (%)", "epoch", accuracy_);
        out << "</svg>\n";
    }

private:
    using points = std::vector<std::pair<double, double>>;
    using named_series = std::vector<std::pair<std::string, points>>; // in the order added

    static constexpr int chart_w = 480, chart_h = 360;
    static constexpr int left = 60, right = 20, top = 40, bottom = 50;

    static points& series(named_series& all, const std::string& model) {
        for (auto& [name, p] : all)
            if (name == model)
                return p;
        all.emplace_back(model, points{});
        return all.back().second;
    }

    static std::string number(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", v);
        return buf;
    }

    /// Rounded tick positions covering [lo, hi]: about five.
    static std::vector<double> ticks(double lo, double hi) {
        const double span = hi > lo ? hi - lo : 1;
        const double raw = span / 5;
        const double magnitude = std::pow(10, std::floor(std::log10(raw)));
        double step = magnitude;
        for (double m : {1.0, 2.0, 5.0, 10.0})
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
        std::vector<double> t;
        for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step)
            t.push_back(v);
        return t;
    }

    static void chart(std::ofstream& out, int x0, const std::string& title,
                      const std::string& x_label, const named_series& all) {
        static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
        double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
        for (const auto& [name, p] : all)
            for (const auto& [x, y] : p) {
                xmin = std::min(xmin, x);
                xmax = std::max(xmax, x);
                ymin = std::min(ymin, y);
                ymax = std::max(ymax, y);
            }
        if (!(xmin <= xmax)) // no points
            xmin = 0, xmax = 1, ymin = 0, ymax = 1;
        if (xmin == xmax)
            xmin -= 1, xmax += 1;
        if (ymin == ymax)
            ymin -= 1, ymax += 1;
        const double pad = 0.05 * (ymax - ymin);
        ymin -= pad;
        ymax += pad;
        const int w = chart_w - left - right, h = chart_h - top - bottom;
        const auto px = [&](double x) { return x0 + left + (x - xmin) / (xmax - xmin) * w; };
        const auto py = [&](double y) { return top + (ymax - y) / (ymax - ymin) * h; };

        out << "<text x=\"" << x0 + chart_w / 2 << "\" y=\"22\" text-anchor=\"middle\" "
            << "font-size=\"15\">" << title << "</text>\n";
        out << "<rect x=\"" << x0 + left << "\" y=\"" << top << "\" width=\"" << w << "\" height=\""
            << h << "\" fill=\"none\" stroke=\"#444\"/>\n";
        for (double t : ticks(xmin, xmax))
            out << "<line x1=\"" << px(t) << "\" y1=\"" << top + h << "\" x2=\"" << px(t)
                << "\" y2=\"" << top + h + 5 << "\" stroke=\"#444\"/><text x=\"" << px(t)
                << "\" y=\"" << top + h + 18 << "\" text-anchor=\"middle\">" << number(t)
                << "</text>\n";
        for (double t : ticks(ymin, ymax))
            out << "<line x1=\"" << x0 + left << "\" y1=\"" << py(t) << "\" x2=\"" << x0 + left + w
                << "\" y2=\"" << py(t) << "\" stroke=\"#ddd\"/><text x=\"" << x0 + left - 6
                << "\" y=\"" << py(t) + 4 << "\" text-anchor=\"end\">" << number(t) << "</text>\n";
        out << "<text x=\"" << x0 + left + w / 2 << "\" y=\"" << chart_h - 12
            << "\" text-anchor=\"middle\">" << x_label << "</text>\n";
        std::size_t k = 0;
        for (const auto& [name, p] : all) {
            const char* colour = colours[k % 4];
            out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" "
                << "points=\"";
            for (const auto& [x, y] : p)
                out << px(x) << ',' << py(y) << ' ';
            out << "\"/>\n";
            for (const auto& [x, y] : p)
                if (p.size() < 30) // few points (epochs): mark each
                    out << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\""
                        << colour << "\"/>\n";
            const int ly = top + 16 + 16 * static_cast<int>(k);
            out << "<line x1=\"" << x0 + left + w - 110 << "\" y1=\"" << ly - 4 << "\" x2=\""
                << x0 + left + w - 90 << "\" y2=\"" << ly - 4 << "\" stroke=\"" << colour
                << "\" stroke-width=\"2\"/><text x=\"" << x0 + left + w - 85 << "\" y=\"" << ly
                << "\">" << name << "</text>\n";
            ++k;
        }
    }

    named_series loss_, accuracy_;
};
