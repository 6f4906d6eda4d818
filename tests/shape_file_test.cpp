#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "models/shape_file.hpp"

#include "support/mutate.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace shape_file_test {

using namespace tv;

namespace {

/// The InputError message parsing `text` throws, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    parse_shape_csv(text, "shapes.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("shape_file: parses required and optional columns") {
  const auto shapes = parse_shape_csv("name,M,N,K,dtype,weight\n"
                                      "a,1,4096,4096,bf16,2.5\n"
                                      "b,128,6144,4096,fp16,0\n",
                                      "s.csv");
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].name == "a");
  CHECK(shapes[0].M == 1);
  CHECK(shapes[0].N == 4096);
  CHECK(shapes[0].K == 4096);
  CHECK(shapes[0].dtype == DType::bf16);
  CHECK(shapes[0].weight == 2.5);
  CHECK(shapes[1].M == 128);
  CHECK(shapes[1].N == 6144);
  CHECK(shapes[1].dtype == DType::f16);
  CHECK(shapes[1].weight == 0.0);
}

TEST_CASE("shape_file: optional columns default to bf16 and weight 1") {
  const auto shapes = parse_shape_csv("name,M,N,K\nx,2,3,4\n", "s.csv");
  REQUIRE(shapes.size() == 1);
  CHECK(shapes[0].dtype == DType::bf16);
  CHECK(shapes[0].weight == 1.0);
  CHECK(parse_shape_csv("name,M,N,K,dtype\nx,2,3,4,f32\n", "s")[0].dtype == DType::f32);
  CHECK(parse_shape_csv("name,M,N,K,weight\nx,2,3,4,7\n", "s")[0].weight == 7.0);
}

TEST_CASE("shape_file: column order does not matter") {
  const auto a = parse_shape_csv("name,M,N,K,dtype,weight\nx,2,3,4,fp8,0.5\n", "a");
  const auto b = parse_shape_csv("weight,K,dtype,N,name,M\n0.5,4,fp8,3,x,2\n", "b");
  CHECK(a == b);
  CHECK(b[0].M == 2);
  CHECK(b[0].N == 3);
  CHECK(b[0].K == 4);
}

TEST_CASE("shape_file: spaces, CRLF, blank lines and comments") {
  const auto shapes = parse_shape_csv("# a comment before the header\r\n"
                                      "\r\n"
                                      " name , M , N , K \r\n"
                                      "  # indented comment\r\n"
                                      "   \r\n"
                                      " x y , 16 ,\t32, 64 \r\n"
                                      "z,1,2,3", // no final newline
                                      "s.csv");
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].name == "x y");
  CHECK(shapes[0].M == 16);
  CHECK(shapes[0].N == 32);
  CHECK(shapes[0].K == 64);
  CHECK(shapes[1].name == "z");
  CHECK(shapes[1].K == 3);
  // Skipped lines still count: the bad row is physical line 4.
  CHECK(error_of("name,M,N,K\r\n# c\r\n\r\nx,0,1,1\r\n") ==
        "shapes.csv:4: M must be a positive integer, got '0'");
}

TEST_CASE("shape_file: a UTF-8 byte order mark before the header is ignored") {
  const auto shapes = parse_shape_csv("\xEF\xBB\xBFname,M,N,K\nx,1,2,3\n", "bom.csv");
  REQUIRE(shapes.size() == 1);
  CHECK(shapes[0].name == "x");
}

TEST_CASE("shape_file: header errors") {
  CHECK(error_of("name,M,N\nx,1,2\n") == "shapes.csv:1: missing column 'K' (header has: name,M,N)");
  CHECK(error_of("# c\nM,N,K\n1,2,3\n") ==
        "shapes.csv:2: missing column 'name' (header has: M,N,K)");
  CHECK(error_of("name,M,N,K,flavour\nx,1,2,3,a\n") ==
        "shapes.csv:1: unknown column 'flavour' (expected name, M, N, K, dtype, weight, layout)");
  CHECK(error_of("name,M,N,K,M\nx,1,2,3,4\n") == "shapes.csv:1: duplicate column 'M'");
  // A hipBLASLt log given as shapes points to the option that reads it.
  CHECK(error_of("- {function: matmul, M: 16, N: 8, K: 4}\n") ==
        "shapes.csv:1: unknown column '- {function: matmul' (expected name, M, N, K, dtype, "
        "weight, layout); this looks like a hipBLASLt log: read it with --workload-log");
}

TEST_CASE("shape_file: bad sizes") {
  const std::string head = "name,M,N,K\n";
  CHECK(error_of(head + "x,0,1,1\n") == "shapes.csv:2: M must be a positive integer, got '0'");
  CHECK(error_of(head + "x,-4,1,1\n") == "shapes.csv:2: M must be a positive integer, got '-4'");
  CHECK(error_of(head + "x,1,abc,1\n") == "shapes.csv:2: N must be a positive integer, got 'abc'");
  CHECK(error_of(head + "x,1,1,12abc\n") ==
        "shapes.csv:2: K must be a positive integer, got '12abc'");
  CHECK(error_of(head + "x,1.5,1,1\n") == "shapes.csv:2: M must be a positive integer, got '1.5'");
  CHECK(error_of(head + "x,,1,1\n") == "shapes.csv:2: M must be a positive integer, got ''");
  CHECK(error_of(head + "x,+3,1,1\n") == "shapes.csv:2: M must be a positive integer, got '+3'");
  CHECK(error_of(head + "x,1,1,2147483649\n") ==
        "shapes.csv:2: K must be at most 2^31 (2147483648), got '2147483649'");
  CHECK(error_of(head + "x,99999999999999999999999,1,1\n") ==
        "shapes.csv:2: M must be at most 2^31 (2147483648), got '99999999999999999999999'");
  CHECK(error_of(head + "x,-99999999999999999999999,1,1\n") ==
        "shapes.csv:2: M must be a positive integer, got '-99999999999999999999999'");
  // The limit itself is allowed.
  CHECK(parse_shape_csv(head + "x,2147483648,1,1\n", "s")[0].M == 2147483648LL);
}

TEST_CASE("shape_file: bad dtype and weight") {
  CHECK(error_of("name,M,N,K,dtype\nx,1,1,1,bf16\ny,1,1,1,int4\n") ==
        "shapes.csv:3: unknown dtype 'int4' (expected bf16, f16, f32, fp8)");
  CHECK(error_of("name,M,N,K,dtype\nx,1,1,1,\n") ==
        "shapes.csv:2: unknown dtype '' (expected bf16, f16, f32, fp8)");
  const std::string head = "name,M,N,K,weight\n";
  for (const char* bad : {"-1", "abc", "", "inf", "nan", "1e999", "2x"})
    CHECK(error_of(head + "x,1,1,1," + bad + "\n") ==
          std::string("shapes.csv:2: weight must be a finite number >= 0, got '") + bad + "'");
  CHECK(error_of(head + "x,1,1,1,0\ny,1,1,1,0\n") ==
        "shapes.csv: all weights are zero (at least one must be positive)");
  CHECK(parse_shape_csv(head + "x,1,1,1,1e-3\n", "s")[0].weight == 1e-3);
}

TEST_CASE("shape_file: row errors") {
  CHECK(error_of("name,M,N,K\na,1,1,1\nb,1,1\n") == "shapes.csv:3: expected 4 fields, got 3");
  CHECK(error_of("name,M,N,K\na,1,1,1,5\n") == "shapes.csv:2: expected 4 fields, got 5");
  CHECK(error_of("name,M,N,K\n\n,1,1,1\n") == "shapes.csv:3: empty name");
  CHECK(error_of("name,M,N,K\n  ,1,1,1\n") == "shapes.csv:2: empty name");
  CHECK(error_of("name,M,N,K\n# c\nx,1,1,1\ny,1,1,1\n\nx,2,2,2\n") ==
        "shapes.csv:6: duplicate shape name 'x' (first on line 3)");
}

TEST_CASE("shape_file: empty sets") {
  // With a header, what is missing is a shape; without one, the message gives the header too.
  const std::string after_header = "shapes.csv: no shapes: the header is there, but no line after "
                                   "it holds a shape (one a line, e.g. "
                                   "'llama3-8b:qkv:M16,16,6144,4096')";
  CHECK(error_of("name,M,N,K\n") == after_header);
  CHECK(error_of("name,M,N,K\n# only comments\n\n") == after_header);
  const std::string empty = "shapes.csv: no shapes: expected the header "
                            "'name,M,N,K[,dtype][,weight][,layout]' and then one shape a line, "
                            "e.g. 'llama3-8b:qkv:M16,16,6144,4096' (the columns after K are "
                            "optional)";
  CHECK(error_of("") == empty);
  CHECK(error_of("# nothing\n") == empty);
}

TEST_CASE("shape_file: format then parse round-trips") {
  std::vector<Shape> shapes(4);
  shapes[0] = {1, 4096, 4096, DType::bf16, "a:qkv:M1", 1.0};
  shapes[1] = {8192, 28672, 4096, DType::fp8, "b", 0.1};
  shapes[2] = {3, 5, 7, DType::f32, "c c", 1.0 / 3.0};
  shapes[3] = {2147483648LL, 1, 2, DType::f16, "d", 0.0};
  const std::string text = format_shape_csv(shapes);
  CHECK(text.substr(0, text.find('\n')) == "name,M,N,K,dtype,weight");
  CHECK(parse_shape_csv(text, "round") == shapes);
  // A shape without a name is written under its MxNxK label so the file loads back.
  std::vector<Shape> unnamed(1);
  unnamed[0].M = 2;
  unnamed[0].N = 3;
  unnamed[0].K = 4;
  CHECK(parse_shape_csv(format_shape_csv(unnamed), "u")[0].name == "2x3x4");
  // Names the CSV cannot hold are refused instead of written corrupt.
  for (const char* bad : {"a,b", "#x", " x", "x\ny"}) {
    std::vector<Shape> one(1);
    one[0].name = bad;
    CHECK_THROWS_AS(format_shape_csv(one), InputError);
  }
}

TEST_CASE("shape_file: the optional layout column") {
  const auto shapes = parse_shape_csv("name,M,N,K,dtype,layout\n"
                                      "a,128,4096,4096,bf16,NT\n"
                                      "b,128,4096,4096,bf16,NN\n"
                                      "c,128,4096,4096,bf16,\n"
                                      "d,1,2,3,f16,TT\n",
                                      "s.csv");
  REQUIRE(shapes.size() == 4);
  CHECK(shapes[0].layout == "NT");
  CHECK(shapes[1].layout == "NN");
  CHECK(shapes[2].layout.empty()); // an empty field: unspecified
  CHECK(shapes[3].layout == "TT");
  CHECK(shapes[3].dtype == DType::f16);
  // Two layouts of one M, N, K are different shapes; a file without the column has none.
  CHECK(!(shapes[0] == shapes[1]));
  CHECK(parse_shape_csv("name,M,N,K\nx,2,3,4\n", "s")[0].layout.empty());
  CHECK(parse_shape_csv("Layout,name,M,N,K\nTN,x,2,3,4\n", "s")[0].layout == "TN");

  // Bad layouts name the file and line; layouts are upper case and exactly two letters.
  CHECK(error_of("name,M,N,K,layout\nx,1,2,3,NN\ny,1,2,3,XY\n") ==
        "shapes.csv:3: unknown layout 'XY' (expected NN, NT, TN or TT)");
  CHECK(error_of("name,M,N,K,layout\nx,1,2,3,nt\n") ==
        "shapes.csv:2: unknown layout 'nt' (expected NN, NT, TN or TT)");
  CHECK(error_of("name,M,N,K,layout\nx,1,2,3,NNN\n") ==
        "shapes.csv:2: unknown layout 'NNN' (expected NN, NT, TN or TT)");
  CHECK(error_of("name,M,N,K,layout,layout\nx,1,2,3,NN,NN\n") ==
        "shapes.csv:1: duplicate column 'layout'");

  // The column is written only when some shape has a layout, and reads back exactly.
  const std::string text = format_shape_csv(shapes);
  CHECK(text.substr(0, text.find('\n')) == "name,M,N,K,dtype,weight,layout");
  CHECK(text.find("\nc,128,4096,4096,bf16,1,\n") != std::string::npos);
  CHECK(parse_shape_csv(text, "round") == shapes);
  std::vector<Shape> plain(1);
  plain[0].name = "p";
  CHECK(format_shape_csv(plain) == "name,M,N,K,dtype,weight\np,1,1,1,bf16,1\n");
  plain[0].layout = "nn";
  CHECK_THROWS_AS(format_shape_csv(plain), InputError);
}

TEST_CASE("shape_file: load_shape_file reads files and reports unreadable ones") {
  const test::ScratchDir scratch("tilevolve_shape_file_test");
  const std::string path = scratch.at("tilevolve_shape_file_test.csv");
  {
    std::ofstream out(path, std::ios::binary);
    out << "name,M,N,K\nx,1,2,3\ny,4,5,0\n";
  }
  try {
    load_shape_file(path);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == path + ":3: K must be a positive integer, got '0'");
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << "name,M,N,K\nx,1,2,3\n";
  }
  CHECK(load_shape_file(path).size() == 1);
  try {
    load_shape_file("/nonexistent/dir/shapes.csv");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "cannot read '/nonexistent/dir/shapes.csv': No such file or directory");
  }
  try {
    load_shape_file("/tmp");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "cannot read '/tmp': Is a directory");
  }
}

TEST_CASE("shape_file: the lecture set") {
  const auto shapes = load_shape_file(TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv");
  REQUIRE(shapes.size() == 88);
  std::set<std::int64_t> ms;
  std::set<std::string> names, layers;
  for (const Shape& s : shapes) {
    ms.insert(s.M);
    names.insert(s.name);
    layers.insert(s.name.substr(0, s.name.rfind(':')));
    CHECK(s.dtype == DType::bf16);
    CHECK(s.weight == 1.0);
    CHECK(s.name == s.name.substr(0, s.name.rfind(':')) + ":M" + std::to_string(s.M));
  }
  CHECK(ms == std::set<std::int64_t>{1, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192});
  CHECK(layers.size() == 8);
  CHECK(names.size() == 88);
  // Spot checks of the GEMM convention (N = output features, K = input features) and order.
  CHECK(shapes[0] == Shape{1, 6144, 4096, DType::bf16, "llama3-8b:qkv:M1", 1.0});
  CHECK(shapes[4].name == "llama3-8b:qkv:M128");
  CHECK(shapes[33] == Shape{1, 4096, 14336, DType::bf16, "llama3-8b:down:M1", 1.0});
  CHECK(shapes[44] == Shape{1, 1280, 8192, DType::bf16, "llama3-70b-tp8:qkv:M1", 1.0});
  CHECK(shapes[55].N == 8192);
  CHECK(shapes[55].K == 1024);
  CHECK(shapes[66].N == 7168);
  CHECK(shapes[87] == Shape{8192, 8192, 3584, DType::bf16, "llama3-70b-tp8:down:M8192", 1.0});
}

TEST_CASE("shape_file: corrupted files parse or throw InputError, never crash") {
  const std::string good = "# c\nname,M,N,K,dtype,weight\na,1,2,3,bf16,1\nb,4,5,6,fp8,0.5\n";
  const std::string alphabet = "abM,NK#\n\r 0123456789-.e\xEF";
  Rng rng(11);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = tv::test::mutate_text(good, alphabet, rng);
    try {
      const auto shapes = parse_shape_csv(text, "fuzz.csv");
      ++parsed;
      CHECK(!shapes.empty());
      for (const Shape& s : shapes)
        CHECK((s.M >= 1 && s.N >= 1 && s.K >= 1 && s.weight >= 0));
      CHECK(parse_shape_csv(format_shape_csv(shapes), "again") == shapes);
    } catch (const InputError& e) {
      ++rejected;
      CHECK(std::string(e.what()).starts_with("fuzz.csv:"));
    }
  }
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

TEST_CASE("shape_file: weights whose sum overflows are refused at the line it happens") {
  // Issue 13: two weights of 1e308 summed to inf and every weighted figure became 1.
  CHECK(error_of("name,M,N,K,weight\na,1,2,3,1e308\nb,1,2,4,1e308\nc,1,2,5,1\n") ==
        "shapes.csv:3: the weights up to this line sum to more than 1.79769e+308 (the largest "
        "double); scale them down (only their ratios matter)");
  CHECK(error_of("name,M,N,K,weight\na,1,2,3,1e308\nb,1,2,4,7e307\n") == "");
  CHECK(error_of("name,M,N,K,weight\na,1,2,3,1e309\n") ==
        "shapes.csv:2: weight must be a finite number >= 0, got '1e309'");
  CHECK(error_of("name,M,N,K,weight\na,1,2,3,nan\n") ==
        "shapes.csv:2: weight must be a finite number >= 0, got 'nan'");
  CHECK(error_of("name,M,N,K,weight\na,1,2,3,-inf\n") ==
        "shapes.csv:2: weight must be a finite number >= 0, got '-inf'");
}

} // namespace shape_file_test
