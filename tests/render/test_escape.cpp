// Escaping for terminals, HTML, CSV (formula injection), Markdown and JSON, with markup, quotes,
// newlines, control bytes and invalid UTF-8.
#include <doctest/doctest.h>

#include "amdahl/text/escape.hpp"

using namespace amdahl::text;

TEST_CASE("html_escape: markup, quotes, control bytes, invalid UTF-8") {
  CHECK(html_escape("<a href=\"x\" onclick='y'>&</a>") ==
        "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  CHECK(html_escape("a\nb\tc") == "a\nb\tc");
  CHECK(html_escape(std::string("a\x01" "b\x7f" "c\rd")) == "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD" "d");
  CHECK(html_escape("caf\xC3\xA9") == "caf\xC3\xA9");          // valid UTF-8 kept
  CHECK(html_escape("x\xC3(") == "x\xEF\xBF\xBD(");              // truncated sequence
  CHECK(html_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(html_escape("") == "");
}

TEST_CASE("csv_cell: quoting and formula-injection prefixes") {
  CHECK(csv_cell("disk_io") == "disk_io");
  CHECK(csv_cell("=SUM(A1)") == "'=SUM(A1)");
  CHECK(csv_cell("+1") == "'+1");
  CHECK(csv_cell("-2") == "'-2");
  CHECK(csv_cell("@cmd") == "'@cmd");
  CHECK(csv_cell("\tx") == "'\tx");
  CHECK(csv_cell("\rx") == "\\x0dx");  // control characters escaped first (issue 18): no CR left
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell("=a,\"b\"\nc") == "\"'=a,\"\"b\"\"\\x0ac\"");
  CHECK(csv_cell("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07");
  CHECK(csv_cell("a=b") == "a=b");  // only a leading character matters
}

TEST_CASE("markdown_cell: table and markup characters") {
  CHECK(markdown_cell("a|b") == "a\\|b");
  CHECK(markdown_cell("disk_io") == "disk\\_io");
  CHECK(markdown_cell("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(markdown_cell("line1\nline2\x01") == "line1\\\\x0aline2\\\\x01");  // shows line1\x0aline2\x01
  CHECK(markdown_cell("[x](http://e) *b* `c` #h !") == "\\[x\\](http://e) \\*b\\* \\`c\\` \\#h \\!");
}

// Issue 18, terminal escapes: names from a profile reached the terminal raw and could clear the
// screen (ESC [2J), retitle the window (OSC 0), forge lines (CR, LF) or act through 8-bit and
// UTF-8 C1 controls. terminal_text makes every one of them visible text.
TEST_CASE("terminal_text / display_name: every control character becomes visible and inert") {
  CHECK(terminal_text("disk_io", false) == "disk_io");
  CHECK(terminal_text("caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80", false) == "caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80");
  CHECK(terminal_text("\x1b[2J\x1b]0;title\x07", false) == "\\x1b[2J\\x1b]0;title\\x07");
  CHECK(terminal_text("a\rb\nc\td", false) == "a\\x0db\\x0ac\td");
  CHECK(terminal_text("a\rb\nc\td", true) == "a\\x0db\nc\td");
  CHECK(terminal_text(std::string("nul\0del\x7f", 8), false) == "nul\\x00del\\x7f");
  CHECK(terminal_text("csi\xC2\x9B" "2J nel\xC2\x85", false) == "csi\\u009b2J nel\\u0085");  // C1 as UTF-8
  CHECK(terminal_text("raw\x9b" "2J", false) == "raw\\x9b2J");  // a lone C1 byte (not UTF-8)
  CHECK(terminal_text("evil\xE2\x80\xAEtxt.exe", false) == "evil\\u202etxt.exe");  // bidi override
  CHECK(terminal_text("\xC2\xA0nbsp", false) == "\xC2\xA0nbsp");  // U+00A0 is not a control
  CHECK(display_name("step\nforged line") == "step\\x0aforged line");
  for (int c = 0; c < 256; ++c) {  // no byte that a terminal acts on survives
    const std::string out = display_name(std::string(1, static_cast<char>(c)) + "x");
    for (const char ch : out) {
      const auto u = static_cast<unsigned char>(ch);
      const bool printable = (u >= 0x20 && u < 0x7f) || u == '\t';
      CHECK_MESSAGE(printable, "byte ", c);
    }
  }
}

TEST_CASE("json_terminal_safe: DEL and C1 become \\u escapes, the JSON value unchanged") {
  CHECK(json_terminal_safe("{\"a\":\"x\x7fy\"}") == "{\"a\":\"x\\u007fy\"}");
  CHECK(json_terminal_safe("[\"\xC2\x9B" "2J\",\"\xC2\xA9\"]") == "[\"\\u009b2J\",\"\xC2\xA9\"]");
  CHECK(json_terminal_safe("{\"k\":\"\\u001b\"}") == "{\"k\":\"\\u001b\"}");
  CHECK(json_terminal_safe("[\"a\xE2\x80\xAE" "b\xE2\x80\x94\"]") == "[\"a\\u202e" "b\xE2\x80\x94\"]");
}
