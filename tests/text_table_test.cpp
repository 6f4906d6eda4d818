// Plain-text tables: display width (CJK takes two columns) and alignment.
#include "eval/text_table.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace text_table_test {

using namespace tv;

TEST_CASE("text table: display width counts wide characters twice") {
  CHECK(display_width("") == 0);
  CHECK(display_width("abc") == 3);
  CHECK(display_width("1.282x") == 6);
  CHECK(display_width("演示 1") == 6);          // two ideographs, a space, a digit
  CHECK(display_width("（形状，配置）") == 14); // fullwidth punctuation is wide too
  CHECK(display_width("0.96%–1.2%") == 10);     // an en dash is narrow
  CHECK(display_width("é") == 1);               // two bytes, one column
}

TEST_CASE("text table: columns line up with CJK cells") {
  TextTable t({"方法", "测试形状 占最优", "runs"});
  t.add({"专家启发式", "80.1%", "0"});
  t.add({"per-M", "97.5%", "168,432"});
  t.add({"逐形状最优", "100.0%", "368,192"});
  // Columns 10, 15 and 7 display columns wide, two apart; numbers right-aligned.
  CHECK(t.str() == "方法        测试形状 占最优  runs\n"
                   "------------------------------------\n"
                   "专家启发式            80.1%        0\n"
                   "per-M                 97.5%  168,432\n"
                   "逐形状最优           100.0%  368,192\n");
}

} // namespace text_table_test
