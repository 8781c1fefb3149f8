// Option strings -> typed values (option_parse.hpp).
#include "option_parse.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "amdahl/analysis/errors.hpp"

namespace amdahl::cli {
namespace {

using analysis::UsageError;

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::optional<double> decimal_text(std::string_view s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::optional<long long> whole_text(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits || max_digits > 18) return std::nullopt;
  long long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

double parse_factor(std::string_view text) {
  std::string s = trimmed(text);
  const std::string original = s;
  if (!s.empty() && (s.back() == 'x' || s.back() == 'X')) s.pop_back();
  const std::optional<double> v = decimal_text(s);
  if (!v) throw UsageError("bad factor '" + original + "': expected a number like 2, 2x or 0.5");
  if (!std::isfinite(*v) || *v <= 0) throw UsageError("bad factor '" + original + "': it must be a positive number");
  return *v;
}

analysis::SpeedupRequest parse_speedup(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    throw UsageError("bad --speedup '" + std::string(text) + "': expected STAGE=FACTOR, e.g. cpu_preprocess=2");
  analysis::SpeedupRequest r{trimmed(text.substr(0, eq)), 0, false};
  constexpr std::string_view kHost = ":host";
  if (r.stage.size() > kHost.size() && r.stage.compare(r.stage.size() - kHost.size(), kHost.size(), kHost) == 0) {
    r.stage.resize(r.stage.size() - kHost.size());
    r.host = true;
  }
  if (r.stage.empty()) throw UsageError("bad --speedup '" + std::string(text) + "': no stage before '='");
  r.factor = parse_factor(text.substr(eq + 1));
  return r;
}

std::size_t parse_count_option(const std::string& text, const char* what) {
  const std::optional<long long> v = whole_text(trimmed(text), 6);
  if (!v || *v < 1 || *v > 4096)
    throw UsageError(std::string("bad ") + what + " '" + text + "': expected a whole number from 1 to 4096");
  return static_cast<std::size_t>(*v);
}

std::vector<std::string> parse_stage_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (true) {
    const std::size_t c = text.find(',', a);
    const std::string name = trimmed(std::string_view(text).substr(a, c == std::string::npos ? std::string::npos : c - a));
    if (name.empty()) throw UsageError("bad --worker-stages '" + text + "': expected STAGE[,STAGE...]");
    out.push_back(name);
    if (c == std::string::npos) break;
    a = c + 1;
  }
  return out;
}

}  // namespace amdahl::cli
