#include "eval/controller/pool_options.hpp"

#include "models/resource_dir.hpp"

namespace tv {

std::string default_worker_command() {
  // Quoted for the shell (a single quote in the path is written as '\'').
  std::string path = resource_dir() + "/eval/workers/triton_worker.py";
  std::string quoted = "'";
  for (char c : path)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "python3 " + quoted + "' --device {device}";
}

} // namespace tv
