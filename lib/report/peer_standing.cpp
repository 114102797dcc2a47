// Our best kernel against the fastest peer, per device and pass: at each problem where one of our
// ladder's kernels of that pass (rungs.hpp) and at least one peer ran ok, ours over the fastest
// peer; the kernel with the best median ratio stands for us.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "report/findings.hpp"
#include "report/rungs.hpp"

namespace fa4::report {
namespace {

using Problem = std::pair<Pass, AttnShape>;

Problem problem_of(const store::MeasurementRow& m) { return {m.pass, m.shape}; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct AtProblem {
  std::map<std::string, double> ours;  // kernel -> TFLOP/s
  std::string peer;
  double peer_tflops = 0;
};

}  // namespace

std::vector<PeerStanding> peer_standings(const std::vector<store::MeasurementRow>& rows) {
  using DevicePass = std::pair<std::string, Pass>;
  std::map<DevicePass, std::map<Problem, AtProblem>> devices;
  std::map<DevicePass, std::set<std::string>> runs;
  for (const store::MeasurementRow& m : rows) {
    if (!m.ok() || m.tflops <= 0) continue;
    AtProblem& at = devices[{m.device, m.pass}][problem_of(m)];
    if (m.ours()) {
      if (!rung_index(m.kernel, m.pass)) continue;  // ablations and variants do not stand for us
      at.ours[m.kernel] = m.tflops;
    } else if (m.tflops > at.peer_tflops) {
      at.peer = m.kernel;
      at.peer_tflops = m.tflops;
    }
    runs[{m.device, m.pass}].insert(
        fmt::format("run {}, {}, rev {}", m.run_id, m.started_at.substr(0, 10), m.revision));
  }
  std::vector<PeerStanding> out;
  for (const auto& [device_pass, problems] : devices) {
    std::map<std::string, std::vector<double>> ratios;
    std::map<std::string, int> fastest_peer;
    for (const auto& [problem, at] : problems) {
      if (at.peer_tflops <= 0 || at.ours.empty()) continue;
      ++fastest_peer[at.peer];
      for (const auto& [kernel, tflops] : at.ours)
        ratios[kernel].push_back(tflops / at.peer_tflops);
    }
    if (ratios.empty()) continue;
    PeerStanding s;
    s.device = device_pass.first;
    s.pass = device_pass.second;
    for (const auto& [kernel, list] : ratios) {
      const double m = median(list);
      if (s.ours.empty() || m > s.median) {
        s.ours = kernel;
        s.median = m;
        s.worst = *std::min_element(list.begin(), list.end());
        s.best = *std::max_element(list.begin(), list.end());
        s.shapes = int(list.size());
      }
    }
    s.best_peer = std::max_element(fastest_peer.begin(), fastest_peer.end(), [](auto& a, auto& b) {
                    return a.second < b.second;
                  })->first;
    for (const std::string& r : runs[device_pass]) s.runs += (s.runs.empty() ? "" : "; ") + r;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace fa4::report
