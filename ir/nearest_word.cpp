#include "ir/nearest_word.hpp"

#include <algorithm>
#include <vector>

namespace tv {

int edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbouring characters.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (std::size_t i = 0; i <= n; ++i)
    d[i][0] = int(i);
  for (std::size_t j = 0; j <= m; ++j)
    d[0][j] = int(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::vector<std::string> nearest_words(const std::string& word,
                                       const std::vector<std::string>& candidates) {
  const int limit = std::max<int>(1, int(word.size()) / 3);
  std::vector<std::string> best;
  int best_d = limit + 1;
  for (const auto& c : candidates) {
    // A prefix counts as near: "--bud" for "--budget".
    const int d =
        c.size() > word.size() + 1 && c.compare(0, word.size(), word) == 0 && word.size() >= 4
            ? 1
            : edit_distance(word, c);
    if (d < best_d) {
      best = {c};
      best_d = d;
    } else if (d == best_d && std::find(best.begin(), best.end(), c) == best.end()) {
      best.push_back(c);
    }
  }
  return best;
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = nearest_words(word, candidates);
  return near.size() == 1 ? near.front() : "";
}

std::string did_you_mean(const std::vector<std::string>& words) {
  if (words.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out + "?)";
}

} // namespace tv
