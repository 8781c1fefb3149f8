// Escaping of profile-derived text for HTML, CSV and Markdown (see escape.hpp).
#include "amdahl/text/escape.hpp"

#include <cstdint>

namespace amdahl::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is invalid.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) { n = 2; cp = b0 & 0x1F; }
  else if ((b0 & 0xF0) == 0xE0) { n = 3; cp = b0 & 0x0F; }
  else if ((b0 & 0xF8) == 0xF0) { n = 4; cp = b0 & 0x07; }
  else return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

// The code point of a valid UTF-8 sequence of length n starting at text[i].
std::uint32_t code_point(std::string_view text, std::size_t i, std::size_t n) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  std::uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1Fu) : n == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
  return cp;
}

bool is_c1_or_bidi(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void append_hex(std::string& out, const char* prefix, std::uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out += kHex[(v >> (4 * d)) & 0xF];
}

}  // namespace

std::string terminal_text(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {  // not UTF-8: a lone byte such as 0x9b (CSI for an 8-bit terminal)
      append_hex(out, "\\x", c, 2);
      ++i;
      continue;
    }
    if (n == 1) {
      if (is_control(c) && c != '\t' && !(keep_newlines && c == '\n')) append_hex(out, "\\x", c, 2);
      else out += static_cast<char>(c);
    } else if (const std::uint32_t cp = code_point(text, i, n); is_c1_or_bidi(cp)) {
      append_hex(out, "\\u", cp, 4);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string json_terminal_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c == 0x7F) {
      out += "\\u007f";
    } else if (const std::size_t n = c >= 0xC2 ? utf8_length(json, i) : 0;
               n > 1 && is_c1_or_bidi(code_point(json, i, n))) {
      append_hex(out, "\\u", code_point(json, i, n), 4);
      i += n - 1;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string html_escape(std::string_view raw) {
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size() + 16);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (is_control(c) && ch != '\t' && ch != '\n') out += kReplacement;
        else out += ch;
    }
  }
  return out;
}

std::string csv_cell(std::string_view raw) {
  std::string text = terminal_text(raw, false);
  if (!text.empty()) {
    const char c = text.front();
    if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t') text.insert(text.begin(), '\'');
  }
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string markdown_cell(std::string_view raw) {
  const std::string text = terminal_text(raw, false);
  std::string out;
  out.reserve(text.size() + 8);
  for (const char ch : text) {
    if (ch == '\t') {
      out += ' ';
    } else if (ch == '|' || ch == '\\' || ch == '`' || ch == '*' || ch == '_' || ch == '[' || ch == ']' ||
               ch == '#' || ch == '!') {
      out += '\\';
      out += ch;
    } else if (ch == '<') {
      out += "&lt;";
    } else if (ch == '>') {
      out += "&gt;";
    } else if (ch == '&') {
      out += "&amp;";
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace amdahl::text
