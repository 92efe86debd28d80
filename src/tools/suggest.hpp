#pragma once
// "did you mean ...?" for a mistyped command or option: the closest known
// name by edit distance (insertions, deletions, substitutions and swaps of
// two neighbours), when it is close enough to be a typo.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace strata::tools {

/// Optimal-string-alignment distance between a and b.
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

/// " (did you mean 'plan'?)" for the nearest candidate within a third of its
/// length (at least 1, at most 3 edits), else "". Long inputs (pasted text)
/// get no suggestion.
inline std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 64) return {};
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  if (best == nullptr || best_distance == 0) return {};
  const std::size_t allowed = std::min<std::size_t>(3, std::max<std::size_t>(1, best->size() / 3));
  if (best_distance > allowed) return {};
  return " (did you mean '" + *best + "'?)";
}

/// The `--option` names a usage text mentions, in order, without repeats.
inline std::vector<std::string> options_in(const std::string& usage) {
  std::vector<std::string> names;
  for (std::size_t at = usage.find("--"); at != std::string::npos; at = usage.find("--", at + 2)) {
    if (at > 0 && usage[at - 1] != ' ' && usage[at - 1] != '[' && usage[at - 1] != '|') continue;
    std::size_t end = at + 2;
    while (end < usage.size() && ((usage[end] >= 'a' && usage[end] <= 'z') || usage[end] == '-'))
      ++end;
    if (end == at + 2) continue;
    const std::string name = usage.substr(at, end - at);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace strata::tools
