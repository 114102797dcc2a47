#include "compare/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fa4::compare {
namespace {

// The order rows are listed in: database (when the sides span several), device, pass, dtype,
// mask, head dims, sequence lengths, batch, heads, window, then kernel and source.
using Key = std::tuple<std::string, std::string, Pass, Dtype, bool, std::int64_t, std::int64_t, std::int64_t,
                       std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                       std::string, std::string>;

Key key_of(const Entry& e, bool by_kernel) {
  const AttnShape& s = e.shape;
  return {e.db,
          e.device,
          e.pass,
          s.dtype,
          s.causal,
          s.headdim,
          s.headdim_v,
          s.seqlen_q,
          s.seqlen_k,
          s.batch,
          s.heads_q,
          s.heads_kv,
          s.window,
          by_kernel ? e.kernel : "",
          by_kernel ? e.source : ""};
}

bool wanted(const std::vector<std::string>& kernels, const std::string& kernel) {
  return kernels.empty() || std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

// The entries of a side to match, by key; a configuration recorded twice keeps its latest.
std::map<Key, const Entry*> index(const Side& side, const Pairing& pairing, bool baseline) {
  std::map<Key, const Entry*> out;
  const bool by_kernel = pairing.against.empty();
  for (const Entry& e : side.entries) {
    if (by_kernel ? !wanted(pairing.kernels, e.kernel)
                  : e.kernel != (baseline ? pairing.kernel : pairing.against))
      continue;
    out[key_of(e, by_kernel)] = &e;
  }
  return out;
}

std::string kernels_of(const Side& side) {
  std::vector<std::string> names;
  for (const Entry& e : side.entries)
    if (std::find(names.begin(), names.end(), e.kernel) == names.end()) names.push_back(e.kernel);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "nothing" : list;
}

}  // namespace

std::string describe(const Entry& e) {
  return fmt::format("{} {} {} on {}{}", e.kernel, to_string(e.pass), fa4::describe(e.shape),
                     e.device, e.db.empty() ? "" : " in " + e.db);
}

Result<Comparison> compare_sides(Side baseline, Side contender, const Pairing& pairing,
                                 const Rules& rules) {
  if (baseline.predicted != contender.predicted)
    return Error{fmt::format(
        "'{}' holds {} but '{}' holds {}: compare measurements with measurements and predictions "
        "with predictions",
        baseline.label, baseline.predicted ? "predictions" : "measurements", contender.label,
        contender.predicted ? "predictions" : "measurements")};
  Comparison c;
  c.baseline = std::move(baseline);
  c.contender = std::move(contender);
  c.predicted = c.baseline.predicted;
  c.pairing = pairing;
  c.rules = rules;
  const auto b = index(c.baseline, pairing, true);
  const auto k = index(c.contender, pairing, false);
  for (const auto& [key, entry] : b) {
    const auto other = k.find(key);
    if (other == k.end()) {
      c.only_baseline.push_back(describe(*entry));
      continue;
    }
    Row& row = c.rows.emplace_back();
    row.db = entry->db;
    row.device = entry->device;
    row.kernel = pairing.against.empty() ? entry->kernel
                                         : fmt::format("{} vs {}", pairing.kernel, pairing.against);
    row.source = entry->source;
    row.shape = entry->shape;
    row.pass = entry->pass;
    row.baseline = entry;
    row.contender = other->second;
    row.judgement = c.predicted
                        ? judge_prediction(entry->predicted_s, other->second->predicted_s, rules)
                        : judge(entry->samples, other->second->samples, rules);
  }
  for (const auto& [key, entry] : k)
    if (!b.contains(key)) c.only_contender.push_back(describe(*entry));
  if (c.rows.empty()) {
    const std::string what =
        pairing.against.empty()
            ? std::string("configurations")
            : fmt::format("problems measured with {} and {}", pairing.kernel, pairing.against);
    return Error{fmt::format(
        "'{}' and '{}' have no {} in common (a configuration is a kernel on a problem on a "
        "device): the baseline has {} ({} configurations), the contender {} ({}); compare runs "
        "of the same sweep, or pick kernels with --kernel and --against",
        c.baseline.label, c.contender.label, what, kernels_of(c.baseline), b.size(),
        kernels_of(c.contender), k.size())};
  }
  if (c.predicted)
    std::stable_sort(c.rows.begin(), c.rows.end(), [](const Row& x, const Row& y) {
      return std::abs(std::log(x.judgement.ratio)) > std::abs(std::log(y.judgement.ratio));
    });
  return c;
}

std::string Comparison::baseline_name() const {
  return pairing.against.empty() ? baseline.label
                                 : fmt::format("{} of {}", pairing.kernel, baseline.label);
}

std::string Comparison::contender_name() const {
  return pairing.against.empty() ? contender.label
                                 : fmt::format("{} of {}", pairing.against, contender.label);
}

Summary summarize(const Comparison& c) {
  Summary s;
  double log_sum = 0;
  std::size_t ratios = 0;
  for (const Row& row : c.rows) {
    ++s.counts[static_cast<std::size_t>(row.judgement.verdict)];
    if (row.judgement.ratio > 0) {
      log_sum += std::log(row.judgement.ratio);
      ++ratios;
    }
  }
  if (ratios) s.geometric_mean = std::exp(log_sum / double(ratios));
  s.unmatched = c.only_baseline.size() + c.only_contender.size();
  return s;
}

std::string summary_line(const Comparison& c) {
  const Summary s = summarize(c);
  using enum Verdict;
  return fmt::format(
      "{} compared: {} faster, {} slower, {} same, {} unsure; geometric mean of the ratios {} "
      "(contender / baseline time); {} unmatched",
      c.rows.size(), s.counts[size_t(faster)], s.counts[size_t(slower)], s.counts[size_t(same)],
      s.counts[size_t(unsure)],
      s.geometric_mean > 0 ? fmt::format("{:.4f}", s.geometric_mean) : std::string("n/a"),
      s.unmatched);
}

}  // namespace fa4::compare
