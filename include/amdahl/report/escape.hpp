// Escaping of profile-derived text for every output context: HTML text and attribute values,
// CSV cells (with spreadsheet formula-injection protection), and Markdown table cells.
#pragma once

#include <string>
#include <string_view>

namespace amdahl::report {

// HTML text and (double- or single-quoted) attribute values: & < > " ' are entities; control
// bytes other than tab and newline become U+FFFD; invalid UTF-8 bytes become U+FFFD.
std::string html_escape(std::string_view text);

// One CSV cell (RFC 4180): quoted when it holds a comma, quote, CR or LF; a cell starting with
// = + - @ tab or CR is prefixed with ' so spreadsheets do not run it as a formula. Numbers
// written by the renderers themselves go through csv_number, never through this.
std::string csv_cell(std::string_view text);

// A Markdown table cell: | \ ` * _ [ ] # ! backslash-escaped, < > & as HTML entities (so no
// inline HTML gets through), newlines and other control bytes as spaces.
std::string markdown_cell(std::string_view text);

// Replaces invalid UTF-8 sequences with U+FFFD (so JSON/HTML writers never see bad bytes).
std::string valid_utf8(std::string_view text);

}  // namespace amdahl::report
