// The SVG writer and plots: escaping, finite output for degenerate data, ticks, and the
// well-formedness check itself.
#include "experiments/svg.hpp"
#include "experiments/svg_plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <doctest/doctest.h>
#include <limits>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace svg_plot_test {

using namespace tv;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

/// A picture a browser can show: well-formed and without non-finite numbers anywhere.
void check_picture(const std::string& svg) {
  INFO(svg.substr(0, 2000));
  CHECK(svg.rfind("<svg", 0) == 0);
  const auto problems = svg_problems(svg);
  for (const auto& p : problems)
    INFO(p);
  CHECK(problems.empty());
  const std::string l = lower(svg);
  CHECK(l.find("nan") == std::string::npos);
  CHECK(l.find("inf\"") == std::string::npos);
  CHECK(l.find("inf ") == std::string::npos);
  CHECK(l.find("inf,") == std::string::npos);
}

} // namespace

TEST_CASE("svg_plot: xml_escape escapes markup, drops forbidden controls, repairs bad UTF-8") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(xml_escape(std::string("x\x01y\tz\n", 6)) == "xy\tz\n");
  CHECK(xml_escape("M \xe2\x89\xa4 128 \xe2\x80\x93 ok") == "M \xe2\x89\xa4 128 \xe2\x80\x93 ok");
  CHECK(xml_escape("bad \xff byte") == "bad ? byte");
  CHECK(xml_escape("cut \xe2\x89") == "cut ??"); // truncated sequence
  CHECK(xml_escape("\xed\xa0\x80") == "???");    // UTF-16 surrogate
  CHECK(xml_escape("\xc0\xaf") == "??");         // overlong encoding
}

TEST_CASE("svg_plot: svg_number is finite and short") {
  CHECK(svg_number(1.0) == "1");
  CHECK(svg_number(2.5) == "2.5");
  CHECK(svg_number(-0.001) == "0");
  CHECK(svg_number(kNaN) == "0");
  CHECK(svg_number(kInf) == "0");
  CHECK(svg_number(12.345) == "12.35");
}

TEST_CASE("svg_plot: text with markup is escaped inside the document") {
  LinePlot p;
  p.title = "<script>alert('x')</script> & \"more\"";
  p.x_label = "a < b";
  p.y_label = "c > d";
  p.series.push_back({"s & t", {0, 1, 2}, {1, 2, 3}, {}, {}, false});
  const std::string svg = render_svg(p);
  check_picture(svg);
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;more&quot;") !=
        std::string::npos);
  CHECK(svg.find("s &amp; t") != std::string::npos);
}

TEST_CASE("svg_plot: degenerate line plots stay finite and well-formed") {
  SUBCASE("one point") {
    LinePlot p;
    p.series.push_back({"one", {5}, {1.25}, {}, {}, false});
    const std::string svg = render_svg(p);
    check_picture(svg);
    CHECK(svg.find("<circle") != std::string::npos); // a single point is still drawn
  }
  SUBCASE("all values equal, with a flat band") {
    LinePlot p;
    p.series.push_back({"flat", {0, 1, 2, 3}, {2, 2, 2, 2}, {2, 2, 2, 2}, {2, 2, 2, 2}, false});
    check_picture(render_svg(p));
  }
  SUBCASE("all zeros, x all equal") {
    LinePlot p;
    p.series.push_back({"zero", {7, 7, 7}, {0, 0, 0}, {}, {}, true});
    check_picture(render_svg(p));
  }
  SUBCASE("no series, empty series, and non-finite values only") {
    LinePlot p;
    check_picture(render_svg(p));
    p.series.push_back({"empty", {}, {}, {}, {}, false});
    p.series.push_back(
        {"bad", {kNaN, 1, kInf}, {1, kNaN, 2}, {kNaN, kNaN, kNaN}, {kInf, 1, 2}, false});
    const std::string svg = render_svg(p);
    check_picture(svg);
  }
  SUBCASE("huge and tiny magnitudes") {
    LinePlot p;
    p.series.push_back({"huge", {0, 1}, {1e300, -1e300}, {}, {}, false});
    p.series.push_back({"tiny", {0, 1e-300}, {1e-300, 2e-300}, {}, {}, false});
    check_picture(render_svg(p));
  }
}

TEST_CASE("svg_plot: degenerate categorical plots stay finite and well-formed") {
  SUBCASE("no categories") {
    CategoryPlot p;
    p.series = {"a"};
    p.values = {{}};
    check_picture(render_svg(p));
  }
  SUBCASE("one category, one value, log axis") {
    CategoryPlot p;
    p.categories = {"only"};
    p.series = {"runs"};
    p.values = {{1234}};
    p.log_y = true;
    p.value_labels = true;
    const std::string svg = render_svg(p);
    check_picture(svg);
    CHECK(svg.find(">1,234<") != std::string::npos);
  }
  SUBCASE("log axis with zeros, negatives and non-finite values only") {
    CategoryPlot p;
    p.categories = {"a", "b", "c"};
    p.series = {"s"};
    p.values = {{0, -3, kNaN}};
    p.log_y = true;
    const std::string svg = render_svg(p);
    check_picture(svg);
    CHECK(svg.find("<rect x=\"") != std::string::npos);
  }
  SUBCASE("all equal dots with a reference line, ragged value rows, long labels") {
    CategoryPlot p;
    p.categories = {std::string(80, 'x'), "<b>", "c"};
    p.series = {"s1", "s2", "s3"};
    p.values = {{1, 1, 1}, {1}, {}};
    p.dots = true;
    p.reference = 1.0;
    const std::string svg = render_svg(p);
    check_picture(svg);
    CHECK(svg.find("&lt;b&gt;") != std::string::npos);
  }
  SUBCASE("bars with negative values") {
    CategoryPlot p;
    p.categories = {"up", "down"};
    p.series = {"delta"};
    p.values = {{2.5, -1.5}};
    p.value_labels = true;
    check_picture(render_svg(p));
  }
}

TEST_CASE("svg_plot: axis ticks cover the range in 1-2-5 steps or decades") {
  const auto t = axis_ticks(0, 1, false);
  REQUIRE(t.size() >= 3);
  CHECK(t.front() == doctest::Approx(0));
  CHECK(t.back() == doctest::Approx(1));
  const double step = t[1] - t[0];
  const double mant = step / std::pow(10.0, std::floor(std::log10(step)));
  CHECK((std::abs(mant - 1) < 1e-9 || std::abs(mant - 2) < 1e-9 || std::abs(mant - 5) < 1e-9));
  for (std::size_t i = 1; i < t.size(); ++i)
    CHECK(t[i] > t[i - 1]);

  const auto d = axis_ticks(1000, 1e6, true);
  REQUIRE(d.size() == 4);
  CHECK(d[0] == doctest::Approx(1000));
  CHECK(d[3] == doctest::Approx(1e6));

  CHECK(axis_ticks(3, 3, false) == std::vector<double>{3});
  CHECK(!axis_ticks(kNaN, 1, false).empty());
  CHECK(!axis_ticks(5, 1, false).empty()); // reversed bounds
  CHECK(axis_ticks(1, 1e60, true).size() <= 11);
}

TEST_CASE("svg_plot: tick labels") {
  CHECK(tick_label(368192, 100000) == "368,192");
  CHECK(tick_label(1.2, 0.1) == "1.2");
  CHECK(tick_label(1.25, 0.05) == "1.25");
  CHECK(tick_label(2, 1) == "2");
  CHECK(tick_label(-0.0, 0.1) == "0.0");
  CHECK(tick_label(kNaN, 1) == "");
}

TEST_CASE("svg_plot: svg_problems finds what would break a browser") {
  CHECK(svg_problems("<svg a=\"1\"><g><text>ok &amp; fine</text></g></svg>\n").empty());
  CHECK(!svg_problems("<html></html>").empty());
  CHECK(!svg_problems("<svg><g></svg>").empty());
  CHECK(!svg_problems("<svg><g></g>").empty());
  CHECK(!svg_problems("<svg><text>a & b</text></svg>").empty());
  CHECK(!svg_problems("<svg><rect x=\"nan\"/></svg>").empty());
  CHECK(!svg_problems("<svg><rect x=\"-inf\"/></svg>").empty());
  CHECK(!svg_problems("<svg><rect x=1/></svg>").empty());
  CHECK(!svg_problems("<svg></svg><svg></svg>").empty());
  CHECK(!svg_problems("<svg><rect x=\"1\"").empty());
  CHECK(svg_problems("<svg><!-- a < b --><text>x</text></svg>").empty());
}

} // namespace svg_plot_test
