#pragma once
/// The mock LLM's reply text: one SEARCH/REPLACE block for an edit, wrapped in short chatty
/// prose.
#include "evolve/mutator.hpp"
#include "evolve/mutators/mock/context.hpp"
#include "ir/diff.hpp"
#include "ir/rng.hpp"

#include <string>
#include <string_view>

namespace tv::mock {

/// One SEARCH/REPLACE block turning `parent` into `child`: the changed run of lines, widened
/// with context until the SEARCH text is non-blank and occurs exactly once in `parent`.
DiffBlock make_block(std::string_view parent, std::string_view child);

/// The reply for edit `e` made by `op`, drawing from `rng`: a word on the previous edit when
/// it did not apply (mostly), the loss of the shape that motivated the edit, an opening
/// sentence for the operator, the block (fenced as python, plainly fenced or bare) and
/// sometimes a closing line.
std::string compose_reply(Rng& rng, Op op, const Edit& e, const MutationRequest& r,
                          const DiffBlock& block);

} // namespace tv::mock
