#pragma once
/// The Python export: `choose(M, N, K)` returns the Triton meta-parameters as a dict
/// (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages, and
/// waves_per_eu, matrix_instr_nonkdim, kpack when set), the form vLLM's and SGLang's config
/// files hold and a Triton matmul launch takes as keyword arguments
/// (`kernel[grid](..., **choose(M, N, K))`). Where the program calls the vendor library it
/// returns the sentinel `VENDOR`, which is None. Beside it, `in_training_range(M, N, K)` and
/// `TRAINING_SHAPES` (training_range_code.hpp). Plain Python 3, nothing imported.
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <functional>
#include <string>

namespace tv {

/// The module text.
std::string export_python(const Program& p, const ExportInfo& info);

/// Pieces shared with the Triton export.
namespace python_export {

/// The helper definitions the conditions of `p` need (`_output_size`, `_tiles`), or "".
std::string helpers(const Program& p);
/// `def NAME(M, N, K):` with the program's if/return chain; branch i (rule i, the default at
/// index p.rules.size()) returns the expression `value(i)`, commented `comment(i)`. `doc` is the
/// docstring (one line).
std::string branch_function(const Program& p, std::string_view name, std::string_view doc,
                            const std::function<std::string(std::size_t)>& value,
                            const std::function<std::string(std::size_t)>& comment);
/// branch_function returning the config of each branch as spelled by `value`, commented with
/// its brief form.
std::string decision_function(const Program& p, std::string_view name, std::string_view doc,
                              const std::function<std::string(const Config&)>& value);
/// A Python dict literal of the Triton meta-parameters of a tile config.
std::string meta_dict(const Config& c);

} // namespace python_export

} // namespace tv
