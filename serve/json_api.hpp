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
///
/// Unknown runs answer 404, bad parameters 400, both with {"error": why}.
#include "serve/run_index.hpp"

namespace httplib {
class Server;
}

namespace tv {

/// Registers the API routes on `server`; `index` must outlive it.
void add_json_api(httplib::Server& server, RunIndex& index);

} // namespace tv
