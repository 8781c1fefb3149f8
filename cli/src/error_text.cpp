// The error line's text (error_text.hpp).
#include "error_text.hpp"

#include "amdahl/analysis/errors.hpp"
#include "amdahl/render/problem_text.hpp"

namespace amdahl::cli {

std::string error_text(const std::exception& error) {
  if (const analysis::Problem* p = analysis::problem_of(error)) return render::to_text(*p);
  return error.what();
}

}  // namespace amdahl::cli
