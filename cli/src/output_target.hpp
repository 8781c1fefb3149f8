// Where a command's output goes and in what format, the same rules for every command:
//  * `-` (for -o and --chrome) is stdout;
//  * the format follows -o's extension (.html/.htm html, .md/.markdown markdown, .json json,
//    .csv csv; any other extension leaves the default, text); an explicit --format that
//    contradicts a known extension is refused with one line, as is an extension whose format
//    the command does not write;
//  * an existing file is never replaced without --force (one policy for report, whatif,
//    validate, diff, stages, export, import and profile); devices, FIFOs and descriptor aliases
//    such as /dev/stdout are written in place (output_file.hpp) and need no --force.
#pragma once

#include <string>
#include <vector>

namespace amdahl::cli {

// Whether `path` means stdout ("-").
bool is_stdout_path(const std::string& path);

// The format an output file's extension names ("html", "markdown", "json", "csv"), or "" when
// the extension names none (.txt, no extension, anything else).
std::string format_from_extension(const std::string& path);

// The format to write: `given` (the --format value, empty when not on the command line), else
// the one `output`'s extension names, else `fallback`. Throws UsageError when --format
// contradicts the extension, or the extension names a format not in `formats`.
std::string resolve_output_format(const std::string& output, const std::string& given, const std::string& fallback,
                                  const std::vector<std::string>& formats, const char* command);

// The overwrite policy: throws UsageError ("refusing to overwrite ...: it already exists; use
// --force ...") when `path` exists (a symbolic link counts, dangling or not) and would be
// replaced (not written in place), unless `force`. Empty paths and "-" are skipped.
void check_overwrite(const std::string& path, bool force, const char* what = "-o");

}  // namespace amdahl::cli
