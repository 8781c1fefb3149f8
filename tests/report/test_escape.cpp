// Escaping for HTML, CSV (formula injection) and Markdown, with markup, quotes, newlines,
// control bytes and invalid UTF-8.
#include <doctest/doctest.h>

#include "amdahl/report/escape.hpp"

using namespace amdahl::report;

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
  CHECK(csv_cell("\rx") == "\"'\rx\"");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_cell("=a,\"b\"\nc") == "\"'=a,\"\"b\"\"\nc\"");
  CHECK(csv_cell("a=b") == "a=b");  // only a leading character matters
}

TEST_CASE("markdown_cell: table and markup characters") {
  CHECK(markdown_cell("a|b") == "a\\|b");
  CHECK(markdown_cell("disk_io") == "disk\\_io");
  CHECK(markdown_cell("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(markdown_cell("line1\nline2\x01") == "line1 line2 ");
  CHECK(markdown_cell("[x](http://e) *b* `c` #h !") == "\\[x\\](http://e) \\*b\\* \\`c\\` \\#h \\!");
}
