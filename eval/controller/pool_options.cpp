#include "eval/controller/pool_options.hpp"

namespace tv {

std::string default_worker_command() {
  // Quoted for the shell (a single quote in the path is written as '\'').
  std::string path = std::string(TILEVOLVE_SOURCE_DIR) + "/eval/workers/triton_worker.py";
  std::string quoted = "'";
  for (char c : path)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "python3 " + quoted + "' --device {device}";
}

} // namespace tv
