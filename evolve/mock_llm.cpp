// The mock LLM: edits a parent program the way a kernel engineer would and writes the edit as
// an LLM would, prose plus one SEARCH/REPLACE block (sometimes fenced).
//
// Flow of propose(): parse the parent; pick an operator with fixed weights (operators that
// cannot apply get weight 0); build the child Program; retry (bounded) while the child equals
// the parent; then diff the parent's text against print_program(child) line by line (common
// prefix and suffix removed), widen the block with context lines until its SEARCH text occurs
// exactly once in the parent, and wrap it in a short chatty reply. Every random choice comes
// from one Rng seeded with the request's seed, so a request always gets the same reply.
//
// This file holds that flow and the operator weights; the pieces live in evolve/mutators/mock/:
// values (natural thresholds, moves among legal values), context (Op, Edit, Ctx, positions in
// the parent), configs (closed-space moves, repair, design, tweaks), the operators
// (local_ops: tweak, targeted, threshold; structure_ops: split, delete, crossover;
// measured_ops: refit, waves) and reply (the SEARCH/REPLACE block and the prose).
#include "evolve/mock_llm.hpp"

#include "eval/replay_backend.hpp"
#include "evolve/mutators/mock/context.hpp"
#include "evolve/mutators/mock/operators.hpp"
#include "evolve/mutators/mock/reply.hpp"
#include "evolve/mutators/mock/values.hpp"

#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "models/launch.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace tv {

namespace {

using mock::Ctx;
using mock::Edit;
using mock::Op;

/// Proposals tried before the deterministic fallback sweep over all operators.
constexpr int kAttempts = 8;

/// Operator weights for this parent (0 for operators that cannot apply).
std::vector<std::pair<Op, double>> op_weights(const Ctx& x) {
  const std::size_t n = x.parent.rules.size();
  const bool any_terms = std::any_of(x.parent.rules.begin(), x.parent.rules.end(),
                                     [](const Rule& r) { return !r.condition.terms.empty(); });
  if (x.options.one_field_only) return {{Op::tweak, 0.65}, {Op::threshold, any_terms ? 0.35 : 0.0}};
  const bool feedback = !x.hot.empty();
  const bool measured = std::any_of(x.request.feedback.begin(), x.request.feedback.end(),
                                    [](const ShapeFeedback& f) { return !f.measured.empty(); });
  return {
      {Op::tweak, 0.25},
      {Op::targeted, feedback ? 0.32 : 0.30},
      {Op::threshold, any_terms ? 0.15 : 0.0},
      {Op::split, n >= mock::kMaxRules ? 0.0 : (feedback ? 0.22 : 0.20)},
      {Op::del, n == 0 ? 0.0 : 0.05 + 0.03 * double(n > 6 ? n - 6 : 0)},
      {Op::crossover, x.request.inspiration_texts.empty() ? 0.0 : 0.05},
      {Op::refit, x.options.refit_weight * (measured ? 1.0 : 0.0)},
      {Op::waves, n >= mock::kMaxRules || !feedback ? 0.0 : x.options.waves_weight},
  };
}

} // namespace

MockLlmOptions mock_options_for(const Problem& problem, MockLlmOptions options) {
  // A recorded table is the whole space a replay can time. A replay of a measured run's file
  // (complete_table() false) is not: that run proposed from the profile's space, and so must
  // its replay, to make the same decisions.
  if (dynamic_cast<const ReplayBackend*>(problem.backend.get()) &&
      problem.backend->complete_table())
    options.space = problem.table->configs();
  return options;
}

std::vector<Feature> parse_split_features(std::string_view text) {
  std::vector<Feature> out;
  for (char ch : text) {
    std::optional<Feature> f;
    for (Feature g : {Feature::M, Feature::N, Feature::K})
      if (feature_name(g) == std::string_view(&ch, 1)) f = g;
    if (!f)
      throw InputError(fmt::format(
          "split features '{}': '{}' is not a feature (expected letters M, N, K, e.g. MNK)", text,
          ch));
    if (std::find(out.begin(), out.end(), *f) != out.end())
      throw InputError(fmt::format("split features '{}': {} is given twice", text, ch));
    out.push_back(*f);
  }
  if (out.empty())
    throw InputError("split features: empty (expected letters M, N, K, e.g. M or MNK)");
  std::sort(out.begin(), out.end());
  return out;
}

std::string split_features_text(const std::vector<Feature>& features) {
  std::vector<Feature> sorted = features;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (Feature f : sorted)
    out += feature_name(f);
  return out;
}

MockLlm::MockLlm(Gpu gpu, MockLlmOptions options) : gpu_(std::move(gpu)), options_(options) {
  if (options_.split_features.empty())
    throw std::invalid_argument("MockLlm: split_features must not be empty");
  std::sort(options_.split_features.begin(), options_.split_features.end());
  ConfigSpace& s = gpu_.space;
  for (auto* v : {&s.BM, &s.BN, &s.BK, &s.warps, &s.stages, &s.group, &s.waves_per_eu,
                  &s.matrix_instr_nonkdim, &s.kpack}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

std::unique_ptr<Mutator> MockLlm::fork() const {
  return std::make_unique<MockLlm>(*this);
}

std::string MockLlm::name() const {
  return name_for(options_);
}

std::string MockLlm::name_for(const MockLlmOptions& options) {
  if (options.one_field_only) return "mock-llm (one-field)"; // makes no splits
  const std::string f = split_features_text(options.split_features);
  if (f == "M") return "mock-llm";
  std::string list;
  for (char c : f)
    list += (list.empty() ? "" : ", ") + std::string(1, c);
  return fmt::format("mock-llm (splits on {})", list);
}

std::optional<MockLlmOptions> MockLlm::options_for(std::string_view name) {
  for (const bool one_field : {false, true})
    for (const char* f : {"M", "N", "K", "MN", "MK", "NK", "MNK"}) {
      MockLlmOptions o;
      o.one_field_only = one_field;
      o.split_features = parse_split_features(f);
      if (name_for(o) == name) return o;
    }
  return std::nullopt;
}

std::vector<std::string> MockLlm::operators() const {
  if (options_.one_field_only) return {"tweak", "threshold"};
  std::vector<std::string> out;
  for (Op op : mock::kAllOps)
    out.emplace_back(mock::op_name(op));
  return out;
}

MutationReply MockLlm::propose(const MutationRequest& request) {
  MockProposal p = propose_detailed(request);
  p.reply.child = std::move(p.child);
  return std::move(p.reply);
}

MockProposal MockLlm::propose_detailed(const MutationRequest& request) const {
  MockProposal out;
  MutationReply& reply = out.reply;
  ParseResult parsed;
  if (!request.parent_program) { // else the caller has the parent as a value already
    try {
      parsed = parse_program(request.parent_text);
    } catch (const std::exception& e) {
      parsed.error = ParseError{1, 1, e.what()};
    }
    if (!parsed.ok()) {
      reply.ok = false;
      reply.error = "parent program does not parse: " +
                    (parsed.error ? parsed.error->str() : std::string("unknown error"));
      return out;
    }
  }
  const Program& parent = request.parent_program ? *request.parent_program : *parsed.program;

  Rng rng(request.seed);
  DType dtype = DType::bf16;
  std::vector<const ShapeFeedback*> hot;
  for (const auto& f : request.feedback) {
    if (dtype_bytes(f.shape.dtype) > dtype_bytes(dtype)) dtype = f.shape.dtype;
    if (mock::loss(f) > 1.01) hot.push_back(&f);
  }
  std::stable_sort(hot.begin(), hot.end(), [](const ShapeFeedback* a, const ShapeFeedback* b) {
    return mock::loss(*a) > mock::loss(*b);
  });
  Ctx x{gpu_, options_, rng, dtype, parent, request, std::move(hot), {}};
  for (const Config& c : options_.space)
    if (!launch_problem(c, gpu_, dtype)) x.space.push_back(c);
  if (x.space.empty()) x.space = options_.space; // none launches: still stay inside the list

  std::optional<Edit> edit;
  Op op = Op::tweak;
  const auto weights = op_weights(x);
  for (int attempt = 0; attempt < kAttempts && !edit; ++attempt) {
    op = mock::pick_weighted(rng, weights);
    edit = mock::apply_op(x, op);
    if (edit && edit->child == parent) edit.reset();
  }
  // Deterministic sweep: every allowed operator, a few times each.
  for (int round = 0; round < 3 && !edit; ++round)
    for (const auto& [candidate, w] : weights) {
      if (w <= 0) continue;
      op = candidate;
      edit = mock::apply_op(x, op);
      if (edit && edit->child == parent) edit.reset();
      if (edit) break;
    }

  reply.op = std::string(mock::op_name(op));
  if (!edit) {
    reply.text = "I looked at this program but could not find an edit worth trying; every "
                 "field is already at the only value the config space allows.\n";
    return out;
  }
  const DiffBlock block = mock::make_block(request.parent_text, print_program(edit->child));
  reply.text = mock::compose_reply(rng, op, *edit, request, block);
  out.child = std::move(edit->child);
  return out;
}

} // namespace tv
