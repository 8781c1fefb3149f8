// Records the analysis cannot use and leaves out (issue 18, class 7): ranges, GPU operations
// and CUDA API calls that end before they start. Before, they were dropped silently (a stage
// vanished into `other`, exit 0); now each kind is counted as a diagnostic of the analysis,
// which the report shows in text and JSON like the profile's own diagnostics. What cannot be
// analysed at all (NULL times, times outside any clock's range, names past the string table)
// is a corrupt profile instead (format/src/record_checks.hpp).
#pragma once

#include <vector>

#include "amdahl/analysis/report.hpp"
#include "amdahl/format/records.hpp"

namespace amdahl::analysis {

// Keys: analysis.range_ends_before_start, analysis.gpu_op_ends_before_start,
// analysis.api_call_ends_before_start; count = records of that kind; detail names the first
// few (escaped for display). Empty when every record is possible.
std::vector<ProfileDiagnostic> impossible_record_diagnostics(const format::RecordSet& rs);

}  // namespace amdahl::analysis
