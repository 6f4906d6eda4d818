#include "evolve/mutators/mock/operators.hpp"

namespace tv::mock {

std::optional<Edit> apply_op(Ctx& x, Op op) {
  switch (op) {
  case Op::tweak:
    return op_tweak(x);
  case Op::targeted:
    return op_targeted(x);
  case Op::threshold:
    return op_threshold(x);
  case Op::split:
    return op_split(x);
  case Op::del:
    return op_delete(x);
  case Op::crossover:
    return op_crossover(x);
  case Op::refit:
    return op_refit(x);
  case Op::waves:
    return op_waves(x);
  }
  return std::nullopt;
}

} // namespace tv::mock
