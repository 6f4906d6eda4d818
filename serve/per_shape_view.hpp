#pragma once
/// The dashboard's per-shape view: each shape's speedup over the expert for the best program
/// and for the baselines, read from a run's per_shape.json (evolve/viewer_data.hpp), which is
/// untrusted input: only known fields of the right types are kept.
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// The method keys the view knows, in display order ("best" is the run's best program).
inline constexpr const char* kPerShapeMethods[] = {"best", "expert", "best_single", "per_m_table",
                                                   "tree", "vendor", "oracle"};

/// {"best_id", "vendor_dispatch", "exhaustive_train_runs", "methods": [{"key", "label",
/// "train": figures, "test": figures}], "shapes": [{"shape", "M", "N", "K", "dtype", "layout",
/// "weight", "split", "in_training_range" (true, false, or null when the run did not say),
/// "configs": {key: text}, "speedup": {key: expert time / its time}}]}
/// from a per_shape.json document; on a document that is not one, an object with "error".
nlohmann::json per_shape_view(const std::string& text);

} // namespace tv
