#pragma once
/// When a run writes its next checkpoint: after a number of programs, after some wall time,
/// or both (whichever comes first). Where the checkpoints fall changes no result: a run
/// resumed from any of them ends as the uninterrupted run does.
namespace tv {

/// The two triggers (0 turns one off).
struct CheckpointPolicy {
  long long every_programs = 0; ///< programs since the last checkpoint (--checkpoint-every)
  double every_seconds = 10;    ///< wall seconds since the last one (--checkpoint-seconds)
};

/// True when `programs` programs were proposed and `seconds` passed since the last
/// checkpoint and either trigger of `policy` is reached; never before one more program.
bool checkpoint_due(const CheckpointPolicy& policy, long long programs, double seconds);

} // namespace tv
