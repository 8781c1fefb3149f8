// Escaping of profile-derived text for every output context: terminal text (text reports and
// error lines), HTML text and attribute values, CSV cells (with spreadsheet formula-injection
// protection), Markdown table cells, and JSON text. Names from a profile are untrusted: a
// shared profile must not be able to clear the screen, retitle the window or forge lines.
#pragma once

#include <string>
#include <string_view>

namespace amdahl::text {

// Text for a terminal. Every control character becomes visible and inert: C0 controls (but
// tab, and newline when `keep_newlines`), DEL and bytes that are not UTF-8 as \xNN (ESC is
// \x1b, CR \x0d); C1 controls (U+0080-U+009F) and the bidirectional overrides and isolates
// (U+202A-U+202E, U+2066-U+2069, which reorder what a line shows) as \uNNNN. Everything else,
// UTF-8 included, is kept.
std::string terminal_text(std::string_view text, bool keep_newlines);

// A name from a profile (stage, range, thread, diagnostic) as shown anywhere: terminal_text on
// one line (a newline is \x0a). The analysis applies it where names enter a report, so every
// renderer shows the same name, and a stage given on the command line is matched in this form.
inline std::string display_name(std::string_view name) { return terminal_text(name, false); }

// The JSON text written by a JSON library, with the characters it leaves raw inside strings
// that a terminal still acts on (DEL, C1 controls U+0080-U+009F, the bidirectional controls of
// terminal_text) written as \u escapes: the same JSON value, safe to print.
std::string json_terminal_safe(std::string_view json);

// HTML text and (double- or single-quoted) attribute values: & < > " ' are entities; control
// bytes other than tab and newline become U+FFFD; invalid UTF-8 bytes become U+FFFD.
std::string html_escape(std::string_view text);

// One CSV cell (RFC 4180): control characters escaped as terminal_text on one line (a CSV is
// often printed), then quoted when it holds a comma or quote; a cell starting with = + - @ is
// prefixed with ' so spreadsheets do not run it as a formula. Numbers
// written by the renderers themselves go through csv_number, never through this.
std::string csv_cell(std::string_view text);

// A Markdown table cell: control characters escaped as terminal_text on one line, then
// | \ ` * _ [ ] # ! backslash-escaped, < > & as HTML entities (so no inline HTML gets through).
std::string markdown_cell(std::string_view text);

// Replaces invalid UTF-8 sequences with U+FFFD (so JSON/HTML writers never see bad bytes).
std::string valid_utf8(std::string_view text);

}  // namespace amdahl::text
