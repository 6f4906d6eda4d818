#pragma once
/// The LLM's prompts: three template files (system.txt, diff_request.txt, full_rewrite.txt)
/// in a prompts folder, filled from a mutation request and what the target allows.
///
/// Placeholders (each template may use any of them):
///   {gpu} {units} {unit_name} {gpu_limits} {legal_values} {dtypes} {vendor_dispatch}
///   {backend} {training_shapes} {parent} {parent_score} {group_scores} {worst_shapes}
///   {best_program} {best_score} {inspirations} {previous_attempts} {candidate}
///   {candidates} {candidate_note}
/// system.txt must use {gpu_limits} and {legal_values}; the two requests must use {parent}.
/// {candidate_note} is empty for a single candidate, else a sentence that starts with a space.
#include "eval/problem.hpp"
#include "evolve/mutator.hpp"
#include "evolve/mutators/prompt_template.hpp"
#include "models/gpu.hpp"

#include <string>
#include <vector>

namespace tv {

/// What the prompts say about the target besides the request.
struct PromptTarget {
  Gpu gpu;
  std::vector<Config> closed_space; ///< not empty: only these configs can be timed (replay)
  std::vector<DType> dtypes;        ///< operand types in the shapes
  bool vendor_timed = false;        ///< the backend can time the vendor library
  std::string backend;              ///< the backend's name
};

/// The target of `problem`: its GPU, its backend's closed config space when it replays
/// recordings, its dtypes, whether it times the vendor library.
PromptTarget prompt_target_for(const Problem& problem);

/// Which request template to use.
enum class PromptKind {
  diff, ///< ask for SEARCH/REPLACE blocks
  full  ///< ask for the whole rewritten program
};

/// One chat message.
struct ChatMessage {
  std::string role; ///< "system" or "user"
  std::string content;
};

/// The three templates of a prompts folder.
class LlmPrompts {
public:
  /// $TILEVOLVE_PROMPTS when set, else resource_dir()'s prompts/ (installed or source tree).
  static std::string default_dir();
  /// Loads the templates of `dir` (default_dir() when empty); throws InputError naming the
  /// file (and line) for a missing file, an unknown placeholder or a missing required one.
  static LlmPrompts load(const std::string& dir);
  /// The system and user messages for `request`.
  std::vector<ChatMessage> messages(const MutationRequest& request, const PromptTarget& target,
                                    PromptKind kind) const;
  /// Digest of the three templates' text (changes when any file changes).
  const std::string& digest() const { return digest_; }
  /// The folder they were read from.
  const std::string& dir() const { return dir_; }
  /// Every placeholder name, in the order of the file comment.
  static const std::vector<std::string>& placeholders();

private:
  PromptTemplate system_, diff_, full_;
  std::string digest_, dir_;
};

/// The placeholder values for `request` on `target` (exposed for tests).
std::map<std::string, std::string> prompt_values(const MutationRequest& request,
                                                 const PromptTarget& target);

} // namespace tv
