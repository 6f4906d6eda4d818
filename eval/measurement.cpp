#include "eval/measurement.hpp"

namespace tv {

std::string_view status_name(MeasureStatus s) {
  switch (s) {
  case MeasureStatus::ok:
    return "ok";
  case MeasureStatus::unlaunchable:
    return "unlaunchable";
  case MeasureStatus::compile_error:
    return "compile_error";
  case MeasureStatus::wrong_result:
    return "wrong_result";
  case MeasureStatus::timeout:
    return "timeout";
  case MeasureStatus::unmeasured:
    return "unmeasured";
  case MeasureStatus::error:
    return "error";
  case MeasureStatus::crash:
    return "crash";
  }
  return "unmeasured";
}

bool parse_status(std::string_view text, MeasureStatus& out) {
  for (MeasureStatus s :
       {MeasureStatus::ok, MeasureStatus::unlaunchable, MeasureStatus::compile_error,
        MeasureStatus::wrong_result, MeasureStatus::timeout, MeasureStatus::unmeasured,
        MeasureStatus::error, MeasureStatus::crash})
    if (status_name(s) == text) {
      out = s;
      return true;
    }
  return false;
}

} // namespace tv
