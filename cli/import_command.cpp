#include "cli/import_command.hpp"

#include "evolve/run_dir.hpp"
#include "ir/exporters/export_info.hpp"
#include "ir/exporters/import_file.hpp"
#include "ir/text.hpp"
#include "ir/version.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct ImportOptions {
  std::string file;
  std::string out;
  bool drop_unknown_fields = false;
};

void run_import(const ImportOptions& o) {
  VllmImportOptions io;
  io.drop_unknown_fields = o.drop_unknown_fields;
  const ImportedProgram imp = read_any_program(o.file, io);
  std::string text;
  const auto comment = [&](const std::string& line) { text += "# " + comment_safe(line) + "\n"; };
  if (imp.description.empty())
    comment(fmt::format("Imported by tilevolve {} (tilevolve import) from {} ({}).", version(),
                        o.file, imp.kind));
  for (const auto& l : imp.description)
    comment(l);
  const std::size_t n = imp.program.rules.size();
  comment(fmt::format("Program hash {}; {} rule{} and a default.", program_hash_text(imp.program),
                      n, n == 1 ? "" : "s"));
  text += print_program(imp.program);
  if (o.out.empty() || o.out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  const auto parent = std::filesystem::path(o.out).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  atomic_write(o.out, text);
  fmt::print("wrote {}: {} rule{} and a default, from the {} {}\n", o.out, n, n == 1 ? "" : "s",
             imp.kind, o.file);
}

} // namespace

void add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Read a vLLM/SGLang per-M config JSON, an aiter Triton GEMM config JSON (M_LEQ_<m> / "
      "M_GEQ_<m> / any buckets) or a tilevolve JSON export as a program: its rules reproduce the "
      "serving stack's lookup exactly (vLLM's nearest key, aiter's bucket order), so evolution "
      "can start from it (evolve --expert PROGRAM) and score can compare it");
  cmd->add_option("file", o->file,
                  "vLLM/SGLang config file (keys are M values, e.g. "
                  "E=8,N=14336,device_name=AMD_Instinct_MI300X.json), aiter config file (e.g. "
                  "gfx942-GEMM-A16W16-N=4096-K=4096.json), a JSON export of tilevolve export "
                  "--format json, or program text")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", o->out, "program file to write (default: standard output)");
  cmd->add_flag("--drop-unknown-fields", o->drop_unknown_fields,
                "drop fields tilevolve's config cannot hold (SPLIT_K, USE_TMA, aiter's "
                "cache_modifier and NUM_KSPLIT above 1, ...) and list them in the program's "
                "header, instead of refusing the file");
  cmd->callback([o] { run_import(*o); });
}

} // namespace tv
