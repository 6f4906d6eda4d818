#pragma once
/// The dashboard's JSON API (GET only; every answer is one JSON object):
///
///   /api                              this list
///   /api/runs                         {"root", "runs": [run summary ...]}
///   /api/runs/NAME                    the run's state: config, status, counters, operators,
///                                     improvements (best train/test vs programs), best program
///                                     (text, simplified, diff from the expert), lineage,
///                                     per_shape_version, devices (a measured run's devices
///                                     and poison pairs, device_view.hpp; null otherwise)
///   /api/runs/NAME/per_shape          {"version", "per_shape": per-shape speedups or null}
///   /api/runs/NAME/events?offset=B&max_bytes=M
///                                     {"offset", "next", "size", "events": [...],
///                                      "bad_lines"}: the raw events from byte B (0 or a line
///                                     start); poll again from "next" to follow the stream
///   /api/studies                      {"root", "studies": [study summary ...]}: the split
///                                     studies (`tilevolve splits --out DIR`) under the root
///   /api/studies/NAME                 the study's study.json (what `splits --json` prints)
///
/// Unknown runs and studies answer 404, bad parameters 400, a study file that cannot be read
/// 422, all with {"error": why}.
#include "serve/run_index.hpp"
#include "serve/study_index.hpp"

namespace httplib {
class Server;
}

namespace tv {

/// Registers the API routes on `server`; `index` and `studies` must outlive it.
void add_json_api(httplib::Server& server, RunIndex& index, StudyIndex& studies);

} // namespace tv
