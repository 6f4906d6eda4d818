// Bad input everywhere (issue 13): every reader and flag as a user meets them: very long
// lines, binary garbage, huge and negative numbers, NaN and infinities, a byte order mark,
// CRLF line endings, truncated files. Each run of the real binary must end with exit status 2
// and one short message that names the file, the line and what was expected (never a crash,
// a sanitizer report, a silent wrong result or a megabyte of echoed input).
#include "ir/bounded_json.hpp"
#include "ir/rng.hpp"
#include "models/data_dir.hpp"

#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace bad_input_test {

namespace {

using tv::test::ScratchDir;

struct Outcome {
  int status = 0;
  std::string out;
};

Outcome tilevolve(const std::string& args) {
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
  return {r.status, r.out};
}

/// Runs `args`; expects exit status 2 and one message "tilevolve: error: " + `prefix`...
/// containing `fragment`, printable and short.
void refused(const std::string& args, const std::string& prefix, const std::string& fragment) {
  const Outcome r = tilevolve(args);
  INFO("tilevolve ", args.substr(0, 300), "\n", r.out.substr(0, 2000));
  CHECK(r.status == 2);
  CHECK(r.out.rfind("tilevolve: error: " + prefix, 0) == 0);
  CHECK(r.out.find(fragment) != std::string::npos);
  CHECK(r.out.size() < 1500);
  bool printable = true;
  for (const char ch : r.out) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) printable = false;
  }
  CHECK(printable);
}

/// Deterministic bytes of every value, NULs and control characters included.
std::string garbage(std::size_t n, std::uint64_t seed) {
  tv::Rng rng(seed);
  std::string s(n, '\0');
  for (char& c : s)
    c = char(rng.uniform_int(0, 255));
  return s;
}

const std::string kLong(1 << 20, '7'); // a one-megabyte field

} // namespace

TEST_CASE("bad input: shape CSV files") {
  ScratchDir d("tilevolve_bad_shapes");
  const auto shapes = [&](const std::string& text) {
    return "baselines --gpu h100 --shapes " + d.write("s.csv", text);
  };
  const std::string f = d.at("s.csv");
  refused(shapes("name,M,N,K\nx," + kLong + ",1,1\n"), f + ":2: M must be at most 2^31",
          "...(1048578 bytes)");
  refused(shapes(garbage(4096, 1)), f + ":1: ", "(expected name, M, N, K, dtype, weight, layout)");
  refused(shapes("name,M,N,K\nx,99999999999999999999,1,1\n"),
          f + ":2: ", "M must be at most 2^31 (2147483648), got '99999999999999999999'");
  refused(shapes("name,M,N,K\nx,1,-4096,1\n"),
          f + ":2: ", "N must be a positive integer, got '-4096'");
  refused(shapes("name,M,N,K,weight\nx,1,2,3,nan\n"),
          f + ":2: ", "weight must be a finite number >= 0, got 'nan'");
  refused(shapes("name,M,N,K,weight\nx,1,2,3,inf\n"),
          f + ":2: ", "weight must be a finite number >= 0, got 'inf'");
  refused(shapes("name,M,N,K,weight\nx,1,2,3,1e308\ny,1,2,4,1e308\n"),
          f + ":3: ", "the weights up to this line sum to more than");
  refused(shapes("name,M,N,K\r\na,1,4096,4096\r\nb,1,40"), f + ":3: ", "expected 4 fields, got 3");
  refused(shapes(""), f + ": ", "no shapes: expected the header 'name,M,N,K[,dtype]");
  refused(shapes("name,M,N,K\nx,1e3,1,1\n"), f + ":2: ", "M must be a positive integer, got '1e3'");
  // A byte order mark and CRLF line endings are fine.
  const Outcome ok = tilevolve(shapes("\xEF\xBB\xBFname,M,N,K\r\na,1,4096,4096\r\nb,4096,4096,"
                                      "4096\r\nc,128,4096,4096\r\nd,16,4096,4096\r\n"));
  CHECK(ok.status == 0);
}

TEST_CASE("bad input: GPU profiles") {
  ScratchDir d("tilevolve_bad_gpu");
  const std::string h100 = tv::test::read_text(tv::data_path("gpus/h100.json"));
  const auto gpu = [&](const std::string& text) {
    return "baselines --gpu " + d.write("g.json", text);
  };
  const std::string f = d.at("g.json");
  refused(gpu(h100.substr(0, h100.size() / 2)), f + ":", "malformed JSON");
  refused(gpu(garbage(2048, 2)), f + ":1:1: malformed JSON", "syntax error");
  std::string t = h100;
  t.replace(t.find("\"units\": 132"), 12, "\"units\": 1e30");
  refused(gpu(t), f + ": field 'units': ", "expected a positive integer");
  t = h100;
  t.replace(t.find("\"units\": 132"), 12, "\"units\": -132");
  refused(gpu(t), f + ": field 'units': ", "expected a positive integer");
  t = h100;
  t.replace(t.find("\"hbm_gbps\": 3350"), 16, "\"hbm_gbps\": NaN");
  refused(gpu(t), f + ":", "malformed JSON");
  t = h100;
  t.replace(t.find("\"hbm_gbps\": 3350"), 16, "\"hbm_gbps\": " + kLong);
  // The position of the number (issue 65: every refusal of a JSON file names its line).
  refused(gpu(t),
          f + ":" + tv::text_position(t, t.find("\"hbm_gbps\": ") + 12) +
              ": malformed JSON: number overflow",
          "...(1048578 bytes)");
  t = h100;
  t.replace(t.find("\"units\": 132"), 12, "\"units\": 132, \"units\": 66");
  refused(gpu(t), f + ":", "duplicate key 'units'");
  // BOM and CRLF are fine.
  std::string crlf;
  for (const char c : h100) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  CHECK(tilevolve(gpu("\xEF\xBB\xBF" + crlf)).status == 0);
}

TEST_CASE("bad input: program files") {
  ScratchDir d("tilevolve_bad_program");
  const auto score = [&](const std::string& text) {
    return "score --gpu h100 " + d.write("p.py", text);
  };
  const std::string f = d.at("p.py");
  const std::string head = "def choose(M, N, K):\n    return Config(BM=";
  const std::string tail = ", BN=64, BK=64, warps=4, stages=3, group=8)\n";
  refused(score(head + kLong + tail), f + ":2:", "does not fit in 64 bits");
  refused(score(garbage(1000, 3)), f + ":1:", "expected");
  refused(score(head + "99999999999999999999" + tail),
          f + ":2:22: ", "integer '99999999999999999999' does not fit in 64 bits");
  refused(score(head + "-64" + tail), f + ":2:", "Config field 'BM' must be a positive integer");
  refused(score(head + "nan" + tail), f + ":2:22: ", "expected an integer, got 'nan'");
  refused(score(head + "2147483648" + tail), f + ":2:", "Config field 'BM' is too large");
  refused(score("def choose(M, N, K):\n    if M <= 16:\n        return Conf"),
          f + ":3:", "expected");
  refused(score(""), f + ":1:1: ", "expected 'def choose(M, N, K):'");
  CHECK(tilevolve(score("\xEF\xBB\xBF"
                        "def choose(M, N, K):\r\n    return Config(BM=64, BN=64, "
                        "BK=64, warps=4, stages=3, group=8)\r\n"))
            .status == 0);
}

TEST_CASE("bad input: measurement files for replay") {
  ScratchDir d("tilevolve_bad_measurements");
  const std::string top = "# tilevolve-measurements v1\ngpu,M,N,K,dtype,BM,BN,BK,warps,stages,"
                          "group,waves_per_eu,matrix_instr_nonkdim,kpack,status,seconds,detail\n";
  const auto replay = [&](const std::string& text) {
    return "baselines --gpu h100 --backend replay:" + d.write("m.csv", text);
  };
  const std::string f = d.at("m.csv");
  const std::string row = "h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,";
  refused(replay(top + row + kLong + ",\n"), f + ":3: ", "seconds must be a number, got '7777777");
  refused(replay(garbage(3000, 4)), f + ":1: unknown replay file format",
          "(expected '# tilevolve-measurements v1' or an AutoHeuristic dataset's JSON line)");
  refused(replay(top + "h100,99999999999999999999,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1e-5,\n"),
          f + ":3: ", "M must be an integer in [1, 2147483648], got '99999999999999999999'");
  refused(replay(top + "h100,128,4096,4096,bf16,-128,128,64,4,3,8,,,,ok,1e-5,\n"),
          f + ":3: ", "BM must be an integer in [1, 1048576], got '-128'");
  refused(replay(top + row + "nan,\n"),
          f + ":3: ", "seconds must be positive and finite, got 'nan'");
  refused(replay(top + row + "1e300,\n"), f + ":3: ", "seconds must be a plausible kernel time");
  refused(replay(top + "h100,128,4096,40"),
          f + ":3: ", "expected 17 comma-separated fields, got 4");
  refused(replay("# tilevolve-measurements v1\r\ngpu,M"), f + ":2: ", "expected the header");
}

TEST_CASE("bad input: AutoHeuristic tables for replay") {
  ScratchDir d("tilevolve_bad_autoheuristic");
  const std::string head =
      "{\"name\": \"mm\", \"shared_memory\": 232448, \"device_capa\": [9, 0]}\n"
      "m,k,n,mat1_dtype,mat2_dtype,mat1_stride_0,mat1_stride_1,mat2_stride_0,"
      "mat2_stride_1,choice,feedback\n";
  const std::string row = "16,32,64,torch.float16,torch.float16,32,1,64,1,extern_mm,";
  const auto replay = [&](const std::string& text) {
    return "baselines --backend replay:" + d.write("ah.txt", text);
  };
  const std::string f = d.at("ah.txt");
  refused(replay("{\"name\": \"mm\", \"shared_memory\": 2324"),
          f + ":1: ", "expected a JSON object describing the dataset (column ");
  refused(replay(head + row + kLong + "\n"),
          f + ":3: ", "feedback must be a time in milliseconds or inf, got '7777");
  refused(replay(head + "99999999999999999999" + row.substr(2) + "0.01\n"),
          f + ":3: ", "m must be an integer in [1, 2147483648]");
  refused(replay(head + row + "nan\n"),
          f + ":3: ", "feedback must be a positive finite time or inf, got 'nan'");
  refused(replay(head + row + "-0.5\n"), f + ":3: ", "feedback must be a positive finite time");
  refused(replay(head + "16,32,64,torch.float16\n"),
          f + ":3: ", "expected 11 comma-separated fields, got 4");
  refused(replay("{\"name\": \"mm\"" + garbage(500, 5)), f + ":1: ", "expected a JSON object");
}

TEST_CASE("bad input: run directories (config.json and checkpoint.json) for resume") {
  ScratchDir d("tilevolve_bad_run");
  const std::string run = d.at("run");
  REQUIRE(tilevolve("evolve --gpu h100 --budget 16 --quiet --json --out " + run).status == 0);
  const std::string config = tv::test::read_text(run + "/config.json");
  const std::string checkpoint = tv::test::read_text(run + "/checkpoint.json");
  const auto put = [&](const std::string& name, const std::string& text) {
    std::ofstream(run + "/" + name, std::ios::binary | std::ios::trunc) << text;
  };
  put("checkpoint.json", checkpoint.substr(0, checkpoint.size() / 3));
  refused("evolve --resume " + run,
          "corrupt or truncated checkpoint: " + run + "/checkpoint.json:1:", "malformed JSON");
  put("checkpoint.json", garbage(5000, 6));
  refused("evolve --resume " + run,
          "corrupt or truncated checkpoint: " + run + "/checkpoint.json:", "malformed JSON");
  put("checkpoint.json", checkpoint);
  put("config.json", config.substr(0, config.size() - 20));
  refused("evolve --resume " + run, run + "/config.json:", "malformed JSON");
  put("config.json", garbage(100, 7));
  refused("evolve --resume " + run, run + "/config.json:1:1: malformed JSON", "syntax error");
  std::string seed = config;
  seed.replace(seed.find("\"seed\": 0"), 9, "\"seed\": -1");
  put("config.json", seed);
  refused("evolve --resume " + run, "options: field 'seed' has the wrong type", "");
  put("config.json", config);
  CHECK(tilevolve("evolve --resume " + run + " --json").status == 0);
}

TEST_CASE("bad input: hipBLASLt logs") {
  ScratchDir d("tilevolve_bad_log");
  const auto log = [&](const std::string& text) {
    return "baselines --gpu mi300x --workload-log " + d.write("l.yaml", text);
  };
  const std::string f = d.at("l.yaml");
  const std::string entry = "- {function: matmul, M: 4096, N: 16, K: 4096, transA: T, transB: N, "
                            "batch_count: 1, a_type: bf16_r, b_type: bf16_r, c_type: bf16_r, "
                            "d_type: bf16_r, compute_type: c_f32_r, call_count: 10}\n";
  std::string other = entry;
  other.replace(other.find("N: 16"), 5, "N: 32"); // two GEMMs, one per half of the split
  REQUIRE(tilevolve(log(entry + other)).status == 0);
  refused(log(garbage(3000, 8)), f + ":", "");
  std::string t = entry;
  t.replace(t.find("M: 4096"), 7, "M: 99999999999999999999");
  refused(log(t),
          f + ":1: ", "M must be an integer in [0, 2147483648], got '99999999999999999999'");
  t = entry;
  t.replace(t.find("N: 16"), 5, "N: -16");
  refused(log(t), f + ":1: ", "N must be an integer in [0, 2147483648], got '-16'");
  t = entry;
  t.replace(t.find("call_count: 10"), 14, "call_count: .nan");
  refused(log(t), f + ":1: ", "call_count must be an integer in [1, 1125899906842624], got '.nan'");
  refused(log(entry.substr(0, entry.size() / 2)), f + ":1: ", "unbalanced braces or brackets");
  t = entry;
  t.replace(t.find("K: 4096"), 7, "K: " + kLong);
  refused(log(t), f + ":1: ", "bytes long; an entry is at most");
  std::string crlf = "\xEF\xBB\xBF"; // a byte-order mark, then CRLF line ends
  for (char ch : entry + other) {
    if (ch == '\n') crlf += '\r';
    crlf += ch;
  }
  CHECK(tilevolve(log(crlf)).status == 0);
  // A repeated key is refused, not resolved to its first value.
  t = entry;
  t.replace(t.find("N: 16"), 5, "M: 8192, N: 16");
  refused(log(t), f + ":1: ", "key 'M' is given twice");
  // 30,000 distinct unknown functions: one short message, the others counted.
  std::string unknown;
  for (int i = 0; i < 30000; ++i)
    unknown += "- {function: fn_" + std::to_string(i) + ", call_count: 1}\n";
  refused(log(unknown), f + ": no bf16, f16 or f32 matmul GEMM to tune",
          "and 29992 with 29992 other reasons (29992 calls)");
}

TEST_CASE("bad input: inline shapes, model presets and token lists") {
  refused("baselines --inline 1,2", "--inline '1,2': 2 fields", "expected M,N,K or M,N,K,dtype");
  refused("baselines --inline 99999999999999999999,1,1",
          "--inline '99999999999999999999,1,1': ", "M must be an integer in [1, 2^31]");
  refused("baselines --inline nan,1,1", "--inline 'nan,1,1': ", "M must be an integer");
  refused("baselines --inline -1,1,1", "--inline '-1,1,1': ", "M must be an integer");
  refused("baselines --inline " + std::string(100000, '9') + ",1,1", "--inline ", "bytes)");
  { // A long message of short words (not one long field) is cut at 4 KiB too.
    std::string many = "1 2";
    for (int i = 0; i < 3000; ++i)
      many += ",1 2";
    const Outcome r = tilevolve("baselines --inline '" + many + "'");
    CHECK(r.status == 2);
    CHECK(r.out.rfind("tilevolve: error: --inline '1 2,1 2", 0) == 0);
    CHECK(r.out.size() < 4200);
    CHECK(r.out.find("... (cut: the message has 12") != std::string::npos);
  }
  refused("baselines --preset llama3-8b --tokens 1,-5",
          "--tokens '1,-5': ", "'-5' is not an integer in [1, 2^31]");
  refused("baselines --preset llama3-8b --tokens nan", "--tokens 'nan': ", "is not an integer");
  refused("baselines --preset llama3-8b --tokens 99999999999999999999", "--tokens ",
          "is not an integer in [1, 2^31]");
  refused("baselines --preset no-such-model", "unknown model 'no-such-model'", "known: ");
  refused("baselines --gpu no-such-gpu", "unknown GPU 'no-such-gpu'", "known: ");
  refused("baselines --split bogus", "unknown split 'bogus'", "expected random");
  refused("baselines --backend bogus:x", "", "bogus");
  refused("baselines --shapes /no/such/file.csv", "cannot read '/no/such/file.csv'", "");
  refused("baselines --expert /no/such/program.py", "/no/such/program.py: cannot open program file",
          "");
  refused("score /", "", "");
}

} // namespace bad_input_test
