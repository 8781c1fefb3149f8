// The text of the CLI's one error line: an analysis error's typed problem worded by render
// (amdahl/render/problem_text.hpp), else the error's own message. main.cpp maps the error's type
// to the exit code and prints this.
#pragma once

#include <exception>
#include <string>

namespace amdahl::cli {

std::string error_text(const std::exception& error);

}  // namespace amdahl::cli
