// The English of every finding (amdahl/analysis/finding.hpp), in one place: each sentence is
// built with std::string, so a stage name of any length comes through whole. Every renderer
// (text, JSON, HTML, Markdown) prints a note, verdict or summary line through these.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "amdahl/analysis/finding.hpp"
#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/ranks.hpp"

namespace amdahl::render {

// One sentence (no trailing newline nor period beyond the finding's own).
std::string to_text(const analysis::Finding& finding);
// The sentences of `findings`, in order.
std::vector<std::string> to_text(const std::vector<analysis::Finding>& findings);
// The sentence, or "" when there is none.
std::string to_text(const std::optional<analysis::Finding>& finding);
// A lane of the critical path: "GPU work on gpu0/stream7", "host work on thread 'python'".
std::string to_text(const analysis::PathPart& part);
// What holds the critical path, in one line: "critical path: 61% GPU work on gpu0/stream7, ...".
std::string to_text(const analysis::PathExplanation& explanation);
// The ring all-reduce model of a rank projection, stated with its figures.
std::string to_text(const analysis::RankProjection& projection);
// Stages made faster, as the what-if names them: "gpu_compute 2x and disk_io:host 4x" (printf
// %g factors).
std::string changes_text(const std::vector<std::pair<std::string, double>>& changes);

}  // namespace amdahl::render
