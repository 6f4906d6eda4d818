#include "evolve/checkpoint_policy.hpp"

namespace tv {

bool checkpoint_due(const CheckpointPolicy& policy, long long programs, double seconds) {
  if (programs <= 0) return false;
  return (policy.every_programs > 0 && programs >= policy.every_programs) ||
         (policy.every_seconds > 0 && seconds >= policy.every_seconds);
}

} // namespace tv
