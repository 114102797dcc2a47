#include "compare/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace fa4::compare {
namespace {

// The number of arrangements of n1 and n2 samples giving each U = 0 .. n1 * n2, from the
// recurrence f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u); counted once per size pair.
const std::vector<double>& u_counts(std::size_t n1, std::size_t n2) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> cache;
  const std::lock_guard lock(mutex);
  if (auto it = cache.find({n1, n2}); it != cache.end()) return it->second;
  // row[j][u]: counts for (i, j) as i grows; start at i = 0: one arrangement with U = 0.
  std::vector<std::vector<double>> row(n2 + 1, std::vector<double>{1.0});
  for (std::size_t i = 1; i <= n1; ++i) {
    std::vector<std::vector<double>> next(n2 + 1);
    next[0] = {1.0};
    for (std::size_t j = 1; j <= n2; ++j) {
      std::vector<double>& f = next[j];
      f.assign(i * j + 1, 0.0);
      for (std::size_t u = 0; u < row[j].size(); ++u) f[u + j] += row[j][u];  // a from i - 1
      for (std::size_t u = 0; u < next[j - 1].size(); ++u) f[u] += next[j - 1][u];
    }
    row = std::move(next);
  }
  return cache.emplace(std::pair{n1, n2}, std::move(row[n2])).first->second;
}

bool has_ties(std::span<const double> a, std::span<const double> b) {
  std::vector<double> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) != all.end();
}

// U of `a` (the count of pairs with a below b, ties counting one half) and the tie term
// sum(t^3 - t) of the pooled samples, by one merge of the sorted sides.
std::pair<double, double> u_and_ties(std::span<const double> a, std::span<const double> b) {
  double u = 0, ties = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const double v = (j == b.size() || (i < a.size() && a[i] <= b[j])) ? a[i] : b[j];
    std::size_t ca = 0, cb = 0;
    while (i < a.size() && a[i] == v) ++i, ++ca;
    while (j < b.size() && b[j] == v) ++j, ++cb;
    // every a at v is below the b's after it and level with the cb here
    u += double(ca) * (double(b.size() - j) + 0.5 * double(cb));
    const double t = double(ca + cb);
    ties += t * t * t - t;
  }
  return {u, ties};
}

// A splitmix64 stream: fast, seedable, good enough to resample with.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// Draws uniform indices in [0, n), n < 2^16: four from each 64-bit number, by Lemire's
// multiply-shift on 16 bits each (a bias under n / 2^16, below 1e-3 for a thousand samples).
class IndexDraws {
 public:
  IndexDraws(SplitMix& rng, std::size_t n) : rng_(rng), n_(static_cast<std::uint32_t>(n)) {}
  std::size_t next() {
    if (left_ == 0) {
      bits_ = rng_.next();
      left_ = 4;
    }
    const auto part = static_cast<std::uint32_t>(bits_ & 0xffff);
    bits_ >>= 16;
    --left_;
    return (part * n_) >> 16;
  }

 private:
  SplitMix& rng_;
  std::uint32_t n_;
  std::uint64_t bits_ = 0;
  int left_ = 0;
};

// The median of one resampling of `sorted`, from the counts of each order statistic drawn (no
// sort).
double resampled_median(std::span<const double> sorted, std::vector<std::uint32_t>& counts,
                        IndexDraws& draws) {
  const std::size_t n = sorted.size();
  std::fill(counts.begin(), counts.end(), 0u);
  for (std::size_t k = 0; k < n; ++k) ++counts[draws.next()];
  // 0-based ranks of the middle: (n - 1) / 2 and n / 2
  const std::size_t lo_rank = (n - 1) / 2, hi_rank = n / 2;
  std::size_t seen = 0, k = 0;
  while ((seen += counts[k]) <= lo_rank) ++k;
  const double lo = sorted[k];
  while (seen <= hi_rank) seen += counts[++k];
  return 0.5 * (lo + sorted[k]);
}

// The exact bootstrap distribution of the median of n samples (every one of the n^n resamplings
// weighed, none drawn): its values ascending with their probabilities. Order statistic a of the
// samples is the resampled median's lower middle when fewer than k draws fall below it and k or
// more at or below it; for an even count the upper middle is order statistic b >= a, and for
// a < b exactly k draws fall at or below a, none between, and at least one at b:
//   P(a, b) = C(n, k) [((a+1)/n)^k - (a/n)^k] [((n-b)/n)^(n-k) - ((n-b-1)/n)^(n-k)].
struct Discrete {
  std::vector<double> value, probability, cumulative;
};

// P(Binomial(n, q) >= k), the terms by their ratio from (1 - q)^n.
double binomial_tail(std::size_t n, double q, std::size_t k) {
  if (q <= 0) return k == 0 ? 1 : 0;
  if (q >= 1) return 1;
  double term = std::pow(1 - q, double(n)), below = 0;
  for (std::size_t i = 0; i < k; ++i) {
    below += term;
    term *= double(n - i) / double(i + 1) * q / (1 - q);
  }
  return std::clamp(1 - below, 0.0, 1.0);
}

Discrete median_distribution(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  const std::size_t k = n % 2 ? (n + 1) / 2 : n / 2;  // the (lower) middle rank, 1-based
  const double dn = double(n);
  // G[m] = P(at least k of the n draws fall among the m smallest samples); P(the k-th smallest
  // draw is order statistic a) = G[a + 1] - G[a].
  std::vector<double> g(n + 1);
  for (std::size_t m = 0; m <= n; ++m) g[m] = binomial_tail(n, double(m) / dn, k);
  std::vector<std::pair<double, double>> support;
  if (n % 2) {
    for (std::size_t a = 0; a < n; ++a) support.emplace_back(sorted[a], g[a + 1] - g[a]);
  } else {
    double choose = 1;  // C(n, k)
    for (std::size_t i = 1; i <= k; ++i) choose = choose * double(n - k + i) / double(i);
    std::vector<double> low(n + 1), high(n + 1);  // (m / n)^k and (m / n)^(n - k)
    for (std::size_t m = 0; m <= n; ++m) {
      low[m] = std::pow(double(m) / dn, double(k));
      high[m] = std::pow(double(m) / dn, double(n - k));
    }
    for (std::size_t a = 0; a < n; ++a) {
      const double below = low[a + 1] - low[a];
      double apart = 0;
      for (std::size_t b = a + 1; b < n; ++b) {
        const double p = choose * below * (high[n - b] - high[n - b - 1]);
        apart += p;
        support.emplace_back(0.5 * (sorted[a] + sorted[b]), p);
      }
      support.emplace_back(sorted[a], std::max(0.0, g[a + 1] - g[a] - apart));
    }
  }
  std::sort(support.begin(), support.end());
  Discrete d;
  double sum = 0;
  for (const auto& [v, p] : support) {
    d.value.push_back(v);
    d.probability.push_back(p);
    d.cumulative.push_back(sum += p);
  }
  return d;
}

// The smallest ratio t with P(contender / baseline <= t) >= q, by bisection to 1e-9 relative.
// P(C / B <= t) = sum over B's values v of P(B = v) P(C <= t v): one merge of the two ascending
// supports, t v rising with v.
double ratio_quantile(const Discrete& b, const Discrete& c, double q) {
  const double total = b.cumulative.back() * c.cumulative.back();
  const auto at = [&](double t) {
    double p = 0;
    std::size_t j = 0;  // values of C at or below t v
    for (std::size_t i = 0; i < b.value.size(); ++i) {
      const double x = t * b.value[i];
      while (j < c.value.size() && c.value[j] <= x) ++j;
      if (j) p += b.probability[i] * c.cumulative[j - 1];
    }
    return p / total;
  };
  double lo = c.value.front() / b.value.back() * (1 - 1e-12);
  double hi = c.value.back() / b.value.front() * (1 + 1e-12);
  while (hi - lo > 1e-9 * hi) {
    const double mid = 0.5 * (lo + hi);
    (at(mid) >= q ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

double median_of_sorted(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double smallest_p(std::size_t n1, std::size_t n2) {
  // 2 / C(n1 + n2, n1), by the product form to stay in range
  double c = 1;
  const std::size_t k = std::min(n1, n2);
  for (std::size_t i = 1; i <= k; ++i) c = c * double(n1 + n2 - k + i) / double(i);
  return std::min(1.0, 2.0 / c);
}

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("mann_whitney_p: an empty side");
  const auto [u, ties] = u_and_ties(a, b);
  const double n1 = double(a.size()), n2 = double(b.size());
  if (a.size() <= kExactLimit && b.size() <= kExactLimit && !has_ties(a, b)) {
    const std::vector<double>& counts = u_counts(a.size(), b.size());
    double total = 0, below = 0, above = 0;
    const auto ui = static_cast<std::size_t>(std::llround(u));
    for (std::size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k <= ui) below += counts[k];
      if (k >= ui) above += counts[k];
    }
    return std::min(1.0, 2.0 * std::min(below, above) / total);
  }
  const double n = n1 + n2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return 1.0;  // every sample the same value
  const double z = std::max(0.0, std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

Interval bootstrap_ratio_interval(std::span<const double> baseline,
                                  std::span<const double> contender, int resamples,
                                  double confidence, std::uint64_t seed) {
  if (baseline.empty() || contender.empty() || resamples < 2)
    throw std::invalid_argument("bootstrap_ratio_interval: an empty side or too few resamples");
  if (baseline.size() > kMaxBootstrapSamples || contender.size() > kMaxBootstrapSamples)
    throw std::invalid_argument("bootstrap_ratio_interval: over 65535 samples a side");
  const double tail = (1 - confidence) / 2;
  if (baseline.size() <= kExactBootstrapLimit && contender.size() <= kExactBootstrapLimit) {
    const Discrete b = median_distribution(baseline), c = median_distribution(contender);
    return {ratio_quantile(b, c, tail), ratio_quantile(b, c, 1 - tail)};
  }
  SplitMix rng{seed};
  IndexDraws draw_b(rng, baseline.size()), draw_c(rng, contender.size());
  std::vector<std::uint32_t> counts_b(baseline.size()), counts_c(contender.size());
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  for (double& r : ratios)
    r = resampled_median(contender, counts_c, draw_c) /
        resampled_median(baseline, counts_b, draw_b);
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(std::floor(q * double(resamples - 1) + 0.5));
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(k), ratios.end());
    return ratios[k];
  };
  const double lo = at(tail);
  return {lo, at(1 - tail)};
}

}  // namespace fa4::compare
