#include "cli/export_command.hpp"

#include "cli/problem_options.hpp"
#include "eval/export_provenance.hpp"
#include "eval/training_coverage.hpp"
#include "evolve/run_dir.hpp"
#include "ir/bounded_json.hpp"
#include "ir/error.hpp"
#include "ir/exporters/aiter_exporter.hpp"
#include "ir/exporters/cpp_exporter.hpp"
#include "ir/exporters/import_file.hpp"
#include "ir/exporters/json_exporter.hpp"
#include "ir/exporters/python_exporter.hpp"
#include "ir/exporters/triton_exporter.hpp"
#include "ir/exporters/vllm_exporter.hpp"
#include "ir/text.hpp"
#include "ir/version.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <set>

namespace tv {

namespace {

struct ExportOptions {
  std::string program;
  std::string format;
  std::string out;
  ProblemSpec spec;
  std::set<std::string> problem_options; ///< names of the problem options (given = score)
  std::string name_space = "tilevolve_heuristic";
  bool drop_unknown_fields = false;
  // vllm and aiter (--n, --k, --device, --vendor-fallback), vllm alone (the others)
  std::int64_t n = 0, k = 0, e = 0, file_n = 0;
  std::string device, vllm_dtype, block_shape, sglang_triton, triton_version, m_keys,
      vendor_fallback;
};

/// "1,2,4" as integers; throws InputError naming the option.
std::vector<std::int64_t> int_list(const std::string& text, const char* option) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = std::string::npos;
    }
    if (item.empty() || used != item.size())
      throw InputError(fmt::format("{} '{}': expected integers separated by commas", option, text));
    out.push_back(v);
    start = end + 1;
  }
  return out;
}

/// The program and what is known about it from a run directory or a program file.
struct Source {
  Program program;
  ExportInfo info;
};

std::optional<ExportScores> scores_from_summary(const nlohmann::json& j) {
  if (!j.is_object() || !j.value("valid", false)) return std::nullopt;
  const auto number = [&](const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  };
  ExportScores s;
  s.fraction_of_oracle = number("fraction_of_oracle");
  s.speedup_vs_expert = number("speedup_vs_expert");
  s.weighted = j.value("weighted", false);
  if (s.weighted && j.contains("uplift") && j["uplift"].is_number())
    s.uplift = j["uplift"].get<double>();
  s.shapes =
      j.contains("shapes") && j["shapes"].is_number_unsigned() ? j["shapes"].get<std::size_t>() : 0;
  return s;
}

Source run_directory_source(const std::string& dir) {
  const std::string summary_path = dir + "/summary.json";
  if (!std::filesystem::exists(summary_path))
    throw InputError(fmt::format("{}: not a finished run directory of tilevolve evolve (no "
                                 "summary.json); give a program file or a finished run",
                                 dir));
  const auto summary = read_json(read_file(summary_path), summary_path);
  if (!summary.is_object()) throw InputError(summary_path + ": not a JSON object");
  Source s;
  const std::string best = dir + "/best_simplified.py";
  s.program = load_program_file(std::filesystem::exists(best) ? best : dir + "/best.py");
  s.info.source = fmt::format("run directory {}: its best program (simplified: redundant rules "
                              "removed, each shape gets the config the original gives it)",
                              dir);
  if (summary.contains("problem") && summary["problem"].is_object()) {
    const auto& p = summary["problem"];
    const std::string gpu = p.value("gpu", ""), full = p.value("gpu_full_name", "");
    s.info.gpu = full.empty() ? gpu : fmt::format("{} ({})", gpu, full);
    s.info.backend = p.value("backend", "");
    s.info.scores_note = fmt::format("Scores from {}; {}.", summary_path, p.value("split", ""));
  }
  if (summary.contains("train")) s.info.train = scores_from_summary(summary["train"]);
  if (summary.contains("test")) s.info.test = scores_from_summary(summary["test"]);
  if (summary.contains("training_range")) {
    const nlohmann::json& t = summary["training_range"];
    const TrainingRange range = training_range_from_json(t, summary_path);
    if (t.is_object() && t.value("program_hash", "") == program_hash_text(s.program)) {
      s.info.training = range;
    } else {
      s.info.training = box_only_range(range, s.program);
      s.info.notes.push_back("The run's best program was changed after the run, so "
                             "in_training_range uses the box of all its training shapes for "
                             "every rule.");
    }
  }
  return s;
}

Source file_source(const std::string& path, const ExportOptions& o) {
  VllmImportOptions io;
  io.drop_unknown_fields = o.drop_unknown_fields;
  ImportedProgram imp = read_any_program(path, io);
  Source s;
  s.program = std::move(imp.program);
  s.info.source = imp.kind == "program text"
                      ? "program file " + path
                      : fmt::format("{} {} (imported by tilevolve)", imp.kind, path);
  s.info.scores_note = "Scores not computed: give the problem options (e.g. --gpu mi300x "
                       "--shapes FILE, or --backend replay:FILE) to compute them.";
  return s;
}

/// The short GPU profile name of the source, for vLLM's device name.
std::string gpu_profile_of(const ExportInfo& info) {
  return info.gpu.substr(0, info.gpu.find(' '));
}

/// The tile config of --vendor-fallback; throws InputError for anything else.
Config vendor_fallback_config(const std::string& text) {
  std::string why;
  const std::optional<Config> c = parse_config(text, &why);
  if (!c || c->vendor)
    throw InputError(fmt::format("--vendor-fallback '{}': expected a tile config like "
                                 "'Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)'{}",
                                 text, why.empty() ? "" : ": " + why));
  return *c;
}

/// Writes the aiter file for --n/--k and its provenance into the folder -o names.
void write_aiter(const ExportOptions& o, const Source& s) {
  AiterExportOptions ao;
  ao.N = o.n;
  ao.K = o.k;
  const std::string profile = gpu_profile_of(s.info);
  ao.device = o.device;
  if (ao.device.empty())
    if (const auto d = aiter_device_name(profile)) ao.device = *d;
  // kpack is a gfx942 knob: aiter's tuner drops it elsewhere and Triton ignores it on gfx950.
  ao.kpack =
      profile != "mi355x" && ao.device.rfind("gfx95", 0) != 0 && ao.device.rfind("MI35", 0) != 0;
  if (!o.vendor_fallback.empty()) ao.vendor_fallback = vendor_fallback_config(o.vendor_fallback);
  const AiterExport e = export_aiter(s.program, ao, export_training_range(s.program, s.info));
  const std::string dir = o.out.empty() ? "." : o.out;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the directory: {}", dir, ec.message()));
  const std::string path = dir + "/" + e.file_name;
  atomic_write(path, e.json);
  const std::string stem = e.file_name.substr(0, e.file_name.size() - 5); // without ".json"
  const std::string provenance = dir + "/" + stem + ".provenance.txt";
  atomic_write(provenance, aiter_provenance_text(s.program, s.info, e));
  fmt::print("wrote {} ({} keys) and {}\n", path, e.keys.size(), provenance);
  for (const auto& n : e.notes)
    fmt::print("  {}\n", n);
  std::fflush(stdout);
  for (const auto& w : e.warnings)
    std::fprintf(stderr, "tilevolve export: warning: %s\n", comment_safe(w).c_str());
}

void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  atomic_write(path, text);
}

void run_export(const ExportOptions& o, bool score) {
  std::error_code ec;
  Source s = std::filesystem::is_directory(o.program, ec) ? run_directory_source(o.program)
                                                          : file_source(o.program, o);
  if (score) {
    // The problem the user described replaces what the run directory recorded.
    auto p = load_problem(o.spec);
    const auto issues = p->static_issues(s.program);
    SetScore train, test;
    if (issues.empty()) {
      train = p->train->score(s.program);
      test = p->test->score(s.program);
    } else {
      train.problem = test.problem = "rejected by the static check";
    }
    ExportInfo scored = export_info(*p, train, test, "", s.info.source);
    scored.training = problem_training_range(*p, s.program);
    if (!issues.empty()) {
      scored.notes.push_back(
          fmt::format("The static check REJECTS this program on {}: {}", p->gpu.name,
                      issues.front().config.brief() + ": " + issues.front().reason));
      std::fprintf(stderr, "tilevolve export: warning: %s\n", scored.notes.back().c_str());
    }
    s.info = scored;
  }
  s.info.tool = fmt::format("tilevolve {} (tilevolve export)", version());

  if (o.format == "cpp") {
    CppExportOptions co;
    co.name_space = o.name_space;
    write_text(o.out, export_cpp(s.program, s.info, co));
  } else if (o.format == "python") {
    write_text(o.out, export_python(s.program, s.info));
  } else if (o.format == "triton") {
    write_text(o.out, export_triton(s.program, s.info));
  } else if (o.format == "json") {
    write_text(o.out, export_json(s.program, s.info));
  } else if (o.format == "aiter") {
    write_aiter(o, s);
  } else { // vllm
    VllmExportOptions vo;
    vo.N = o.n;
    vo.K = o.k;
    if (o.e) vo.E = o.e;
    if (o.file_n) vo.file_N = o.file_n;
    vo.device = o.device;
    if (vo.device.empty())
      if (const auto d = vllm_device_name(gpu_profile_of(s.info))) vo.device = *d;
    vo.dtype = o.vllm_dtype;
    if (!o.block_shape.empty()) {
      const auto b = int_list(o.block_shape, "--block-shape");
      if (b.size() != 2 || b[0] < 1 || b[1] < 1 || b[0] > INT32_MAX || b[1] > INT32_MAX)
        throw InputError("--block-shape: expected two positive integers BN,BK, e.g. 128,128");
      vo.block_shape = std::pair<int, int>(int(b[0]), int(b[1]));
    }
    vo.sglang_triton = o.sglang_triton;
    vo.triton_version = o.triton_version;
    if (!o.m_keys.empty()) vo.m_keys = int_list(o.m_keys, "--m-keys");
    if (!o.vendor_fallback.empty()) {
      vo.vendor_fallback = vendor_fallback_config(o.vendor_fallback);
      s.info.notes.push_back("Vendor region written as " + vo.vendor_fallback->brief() +
                             " (--vendor-fallback).");
    }
    const VllmExport e = export_vllm(s.program, vo);
    if (const auto t = export_training_range(s.program, s.info))
      s.info.notes.push_back(training_m_text(*t, s.program, o.n, o.k));
    const std::string dir = o.out.empty() ? "." : o.out;
    const std::string folder = e.folder.empty() ? dir : dir + "/" + e.folder;
    std::filesystem::create_directories(folder, ec);
    if (ec)
      throw InputError(fmt::format("{}: cannot create the directory: {}", folder, ec.message()));
    const std::string path = folder + "/" + e.file_name;
    atomic_write(path, e.json);
    const std::string stem = e.file_name.substr(0, e.file_name.size() - 5); // without ".json"
    const std::string provenance = folder + "/" + stem + ".provenance.txt";
    atomic_write(provenance, vllm_provenance_text(s.program, s.info, e));
    fmt::print("wrote {} ({} M keys) and {}\n", path, e.keys.size(), provenance);
    for (const auto& n : e.notes)
      fmt::print("  {}\n", n);
  }
}

} // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a program as code to ship: a C++17 header, a Python function returning Triton "
      "meta-parameters, a triton.Config list for @triton.autotune, a JSON document "
      "(re-importable), a vLLM/SGLang per-M config file, or an aiter Triton GEMM config file "
      "(AMD's ROCm kernel library); each states at its top (or in a .provenance.txt beside it) "
      "the program hash, GPU, backend, scores and training range, and the code exports define "
      "in_training_range(M, N, K). A run directory brings its GPU, backend, scores and training "
      "shapes; for a "
      "program file give problem options (--gpu, a shape source, --backend, ...) to compute "
      "them (any problem option given scores the program on that problem)");
  cmd->add_option(
         "program", o->program,
         "program file (def choose(M, N, K): ...), a JSON export, a vLLM/SGLang or "
         "aiter config file, or a run directory of tilevolve evolve (its best program, with the "
         "run's GPU, backend and scores)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--format", o->format,
                  "cpp (C++17 header, constexpr choose() returning a struct), python (choose() "
                  "returning the Triton meta-parameters dict, None for the vendor library), "
                  "triton (triton.Config list, autotune pruner, launch kwargs), json (the "
                  "program as data), vllm (per-M config JSON for given --n/--k), aiter "
                  "(<device>-GEMM-A16W16-N=<N>-K=<K>.json with M_LEQ_<m> buckets for given "
                  "--n/--k)")
      ->required()
      ->check(CLI::IsMember({"cpp", "python", "triton", "json", "vllm", "aiter"}));
  cmd->add_option("-o,--out", o->out,
                  "output file (default: standard output); for vllm and aiter the config folder "
                  "the file (and its .provenance.txt) goes into (default: the current "
                  "directory)");
  const std::size_t before = cmd->get_options().size();
  add_problem_options(*cmd, o->spec);
  for (std::size_t i = before; i < cmd->get_options().size(); ++i)
    o->problem_options.insert(cmd->get_options()[i]->get_name());
  cmd->add_option("--namespace", o->name_space, "cpp: namespace of the struct and function")
      ->capture_default_str();
  cmd->add_flag("--drop-unknown-fields", o->drop_unknown_fields,
                "when PROGRAM is a vLLM/SGLang config: drop fields tilevolve's config cannot "
                "hold (SPLIT_K, ...) instead of refusing the file");
  auto* vllm = cmd->add_option_group("vllm", "options of --format vllm (and aiter where they say)");
  vllm->add_option("--n", o->n,
                   "vllm, aiter: N of the GEMM (M, N, K) the program is evaluated at for each M "
                   "key; also the file name's N (for vllm unless --file-n)")
      ->check(CLI::PositiveNumber);
  vllm->add_option("--k", o->k,
                   "vllm, aiter: K of that GEMM (the file name's K for dense and aiter files)")
      ->check(CLI::PositiveNumber);
  vllm->add_option("--e", o->e,
                   "vllm: number of experts: a MoE file E=..,N=..,device_name=..json (without: "
                   "N=..,K=..,device_name=..json)")
      ->check(CLI::PositiveNumber);
  vllm->add_option("--file-n", o->file_n,
                   "vllm: N of the file name when it differs from --n (vLLM names a MoE file by "
                   "w2.shape[2], the intermediate size per shard, e.g. --e 8 --n 28672 --k 4096 "
                   "--file-n 14336 evaluates Mixtral's gate_up GEMM and names the file "
                   "E=8,N=14336)")
      ->check(CLI::PositiveNumber);
  vllm->add_option("--device", o->device,
                   "vllm: device_name as torch.cuda.get_device_name() prints it, spaces become "
                   "'_' (default: from the GPU profile: h100 NVIDIA_H100_80GB_HBM3, h200 "
                   "NVIDIA_H200, mi300x AMD_Instinct_MI300X, mi325x AMD_Instinct_MI325X, mi355x "
                   "AMD_Instinct_MI355X); aiter: the file name's device (default: the arch, "
                   "gfx942 for mi300x and mi325x, gfx950 for mi355x; MI300X or MI350X for older "
                   "aiter releases)");
  vllm->add_option("--vllm-dtype", o->vllm_dtype,
                   "vllm: dtype selector of the file name, e.g. fp8_w8a8 (default: none, as vLLM "
                   "names bf16/fp16 MoE files)");
  vllm->add_option("--block-shape", o->block_shape,
                   "vllm: block_shape selector BN,BK of the file name, e.g. 128,128");
  vllm->add_option("--sglang-triton", o->sglang_triton,
                   "vllm: write SGLang's layout for Triton X.Y.Z: triton_X_Y_Z/NAME.json, no "
                   "triton_version key");
  vllm->add_option("--triton-version", o->triton_version,
                   "vllm: value of vLLM's triton_version key (default: a note that no Triton "
                   "version was involved)");
  vllm->add_option("--m-keys", o->m_keys,
                   "vllm: the M keys to write, e.g. 1,16,256 (default: exact keys, the ends of "
                   "every M range on which the program's decision is constant, plus vLLM's "
                   "default batch sizes 1..4096)");
  vllm->add_option("--vendor-fallback", o->vendor_fallback,
                   "vllm, aiter: tile config written where the program returns \"vendor\" (which "
                   "the formats cannot hold), e.g. 'Config(BM=128, BN=128, BK=64, warps=4, "
                   "stages=3, group=8)'; without it such a program is refused (the M range is "
                   "named either way)");
  cmd->callback([o, cmd] {
    bool score = false;
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0 && o->problem_options.count(opt->get_name())) score = true;
    const bool per_m = o->format == "vllm" || o->format == "aiter";
    if (per_m && (o->n == 0 || o->k == 0))
      throw InputError(fmt::format("--format {} needs --n N and --k K (the GEMM the per-M table "
                                   "is for)",
                                   o->format));
    for (const char* v : {"--n", "--k", "--device", "--vendor-fallback"})
      if (!per_m && cmd->count(v) > 0)
        throw InputError(fmt::format("{} belongs to --format vllm and --format aiter", v));
    for (const char* v : {"--e", "--file-n", "--vllm-dtype", "--block-shape", "--sglang-triton",
                          "--triton-version", "--m-keys"})
      if (o->format != "vllm" && cmd->count(v) > 0)
        throw InputError(fmt::format("{} belongs to --format vllm", v));
    run_export(*o, score);
  });
}

} // namespace tv
