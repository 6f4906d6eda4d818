#pragma once
/// The program database: islands of programs with periodic migration, a MAP-Elites grid over
/// (rule count bucket x features used), and an elite archive; parent and inspiration sampling.
#include "ir/program.hpp"
#include "ir/rng.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// A scored program as the database keeps it.
struct Candidate {
  std::uint64_t id = 0;     ///< unique, increasing in creation order
  std::uint64_t parent = 0; ///< id of the parent (0 for the seed program)
  Program program;
  double score = 0; ///< train speedup over the expert (higher is better)
  int island = 0;
};

/// Sizes and rates; defaults suit runs of 100 to 10,000 programs.
struct DatabaseOptions {
  int islands = 4;
  int island_capacity = 32;     ///< programs kept per island (worst evicted)
  int archive_size = 16;        ///< global elites
  int migration_interval = 100; ///< programs added between migrations
  int inspirations = 2;         ///< inspirations returned with each parent
  double exploit_rate = 0.7;    ///< parent from the island's best third; else uniform / grid
  double archive_rate = 0.1;    ///< parent from the global archive
};

/// What to mutate next.
struct ParentSample {
  Candidate parent;
  std::vector<Candidate> inspirations;
  int island = 0;
};

/// Holds candidates; all sampling takes the caller's Rng, so runs are reproducible.
class ProgramDatabase {
public:
  explicit ProgramDatabase(DatabaseOptions options = {});
  /// Adds a scored candidate to its island, the grid and the archive; migrates every
  /// migration_interval additions. Candidates with a non-finite score are ignored.
  void add(const Candidate& c, Rng& rng);
  /// Samples a parent (and inspirations) from `island` (islands are used round-robin by the
  /// caller). Requires at least one candidate.
  ParentSample sample(int island, Rng& rng) const;
  /// The best candidate so far (ties: the earliest).
  const Candidate& best() const;
  /// Every candidate held now (islands, archive, grid), each id once, in id order.
  std::vector<Candidate> held() const;
  /// Number of candidates ever added (accepted ones).
  std::size_t size() const;
  /// Number of islands.
  int islands() const;
  /// MAP-Elites cell of a program: (rule-count bucket, bitmask of features used: M=1 N=2 K=4,
  /// M * N=8, tile counts=16).
  static std::pair<int, int> cell(const Program& p);
  /// Number of occupied grid cells.
  std::size_t occupied_cells() const;
  /// Full state for checkpoints; from_json(to_json()) behaves identically afterwards.
  nlohmann::json to_json() const;
  /// Restores a state; throws InputError on a malformed object.
  static ProgramDatabase from_json(const nlohmann::json& j);

private:
  DatabaseOptions options_;
  std::vector<std::vector<Candidate>> islands_;
  std::vector<Candidate> archive_;
  std::vector<std::pair<std::pair<int, int>, Candidate>> grid_; ///< sorted by cell
  std::optional<Candidate> best_;
  std::size_t added_ = 0;
};

} // namespace tv
