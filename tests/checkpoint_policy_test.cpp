// Checkpoints by time or by count: when one is due, that the options carry the time trigger
// (older runs, without it, read back the same), and that where checkpoints fall changes no
// result.
#include "evolve/checkpoint_policy.hpp"
#include "evolve/evolution.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace checkpoint_policy_test {

using tv::checkpoint_due;
using tv::CheckpointPolicy;

TEST_CASE("checkpoint_policy: due on whichever trigger comes first, never without a program") {
  const CheckpointPolicy time_only{0, 10};
  CHECK_FALSE(checkpoint_due(time_only, 5000, 9.9));
  CHECK(checkpoint_due(time_only, 1, 10));
  CHECK_FALSE(checkpoint_due(time_only, 0, 60)); // nothing new since the last one
  const CheckpointPolicy count_only{100, 0};
  CHECK_FALSE(checkpoint_due(count_only, 99, 1e6));
  CHECK(checkpoint_due(count_only, 100, 0));
  const CheckpointPolicy both{16, 10};
  CHECK(checkpoint_due(both, 16, 0.1));
  CHECK(checkpoint_due(both, 3, 10.5));
  CHECK_FALSE(checkpoint_due(both, 15, 9));
  CHECK_FALSE(checkpoint_due({0, 0}, 1000000, 1e6)); // both off: only the start and the end
}

TEST_CASE("checkpoint_policy: the options carry checkpoint_seconds only when it is set") {
  tv::EvolutionOptions o; // the library default: by count
  CHECK(o.checkpoint_seconds == 0);
  CHECK_FALSE(o.to_json().contains("checkpoint_seconds")); // older runs' options are unchanged
  CHECK(tv::EvolutionOptions::from_json(o.to_json()).checkpoint_seconds == 0);
  o.checkpoint_seconds = 10;
  o.checkpoint_every = 0;
  const auto back = tv::EvolutionOptions::from_json(o.to_json());
  CHECK(back.checkpoint_seconds == 10);
  CHECK(back.checkpoint_every == 0);
  CHECK(back.to_json() == o.to_json());
}

TEST_CASE("checkpoint_policy: a checkpoint after every batch, or none, gives the same run") {
  tv::test::ScratchDir dir("tv_checkpoint_policy");
  const std::string common =
      std::string(TILEVOLVE_BINARY) + " evolve --gpu h100 --budget 300 --seed 3 --quiet --out ";
  // 1e-9 s: due after every batch; 0 and 0: only at the start and the end.
  const auto often =
      tv::test::run_shell(common + dir.at("often") + " --checkpoint-seconds 1e-9 > /dev/null");
  const auto never = tv::test::run_shell(
      common + dir.at("never") + " --checkpoint-seconds 0 --checkpoint-every 0 > /dev/null");
  REQUIRE(often.status == 0);
  REQUIRE(never.status == 0);
  for (const char* f : {"events.ndjson", "best.py", "best_simplified.py", "per_shape.json"}) {
    INFO(f);
    CHECK(tv::test::read_text(dir.at("often") + "/" + f) ==
          tv::test::read_text(dir.at("never") + "/" + f));
  }
  // Resuming the finished run from its last checkpoint rewrites the same events.
  const std::string before = tv::test::read_text(dir.at("often") + "/events.ndjson");
  const auto again =
      tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " evolve --quiet --resume " +
                          dir.at("often") + " > /dev/null");
  REQUIRE(again.status == 0);
  CHECK(tv::test::read_text(dir.at("often") + "/events.ndjson") == before);
}

} // namespace checkpoint_policy_test
