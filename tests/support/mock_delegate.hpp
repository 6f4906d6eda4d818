#pragma once
/// A mutator that answers with the mock LLM's replies (header-only, for tests): a test derives
/// from it and overrides propose() (or more) to watch or alter requests and replies.
#include "evolve/mock_llm.hpp"

namespace tv::test {

class MockDelegate : public Mutator {
public:
  explicit MockDelegate(const Gpu& g) : mock_(g) {}
  std::string name() const override { return mock_.name(); }
  std::vector<std::string> operators() const override { return mock_.operators(); }
  MutationReply propose(const MutationRequest& r) override { return mock_.propose(r); }

protected:
  MockLlm mock_;
};

} // namespace tv::test
