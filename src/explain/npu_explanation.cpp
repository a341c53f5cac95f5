#include "tessera/explain/npu_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/npu/footprint.h"
#include "tessera/npu/npu_arguments.h"
#include "tessera/npu/npu_report.h"

namespace tessera::explain {
namespace {

// Matrices this wide get a sample of W values instead of all of them (the best W is always in).
constexpr int64_t kMaxColumnsForEveryWidth = 4096;

int64_t size_of(const npu::LocalTensor& tensor) {
  return checked_multiply(tensor.device().npus, tensor.bytes_reserved_per_npu(), "a tensor's size");
}

std::vector<NpuUsage> usage_table(const npu::LocalTensor& tensor) {
  const npu::Footprint fp = npu::footprint(tensor);
  const npu::Device& device = tensor.device();
  std::vector<NpuUsage> rows;
  for (const npu::NpuFootprint& f : fp.npus) {
    NpuUsage row;
    row.npu = f.npu;
    row.channels = f.channels;
    row.used_bytes = f.span_bytes;
    row.data_bytes = f.data_bytes;
    row.wasted_bytes = fp.reserved_bytes_per_npu - f.data_bytes;
    if (f.channels > 0) {
      const int64_t last_bank = std::min(f.last_byte / device.bank_bytes(), device.banks - 1);
      for (int64_t b = f.first_byte / device.bank_bytes(); b <= last_bank; ++b)
        row.banks.push_back(b);
      row.fits = f.last_byte < device.local_memory_bytes;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void rank(std::vector<NpuSuggestion>& suggestions, std::vector<int>& distance, std::size_t limit) {
  std::vector<std::size_t> order(suggestions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = suggestions[a];
    const auto& y = suggestions[b];
    if (x.fits != y.fits) return x.fits;
    if (x.size_bytes != y.size_bytes) return x.size_bytes < y.size_bytes;
    if (distance[a] != distance[b]) return distance[a] < distance[b];
    return x.layout < y.layout;
  });
  std::vector<NpuSuggestion> ranked;
  for (std::size_t i = 0; i < order.size() && i < limit; ++i)
    ranked.push_back(suggestions[order[i]]);
  suggestions = std::move(ranked);
}

NpuSuggestion suggestion_for(const npu::LocalTensor& candidate, int64_t current_size,
                             std::string change) {
  const int64_t size = size_of(candidate);
  return {placement_arguments(candidate),
          size,
          current_size - size,
          candidate.bytes_reserved_per_npu(),
          candidate.fits(),
          std::move(change)};
}

}  // namespace

std::string placement_arguments(const npu::LocalTensor& t) {
  std::string out =
      fmt::format("--device {} --shape {} --dtype {} --address {} --layout {}",
                  npu::format_device(t.device()), fmt::join(t.shape(), ","),
                  element_type_name(t.element_type()), t.address(), npu::format_layout(t.layout()));
  if (t.storage_mode() != npu::StorageMode::kNone) {
    out += fmt::format(" --mode {}", npu::storage_mode_name(t.storage_mode()));
  }
  return out;
}

std::string placement_arguments(const npu::MatrixLayout& m) {
  const npu::LocalTensor& t = m.tensor();
  std::string out = fmt::format("--device {} --rows {} --cols {} --dtype {} --address {} --w {}",
                                npu::format_device(t.device()), m.rows(), m.columns(),
                                element_type_name(t.element_type()), t.address(), m.width());
  return out;
}

NpuExplanation explain_local_tensor(const npu::LocalTensor& tensor, std::size_t max_suggestions) {
  NpuExplanation e;
  e.layout = placement_arguments(tensor);
  const auto& shape = tensor.shape();
  int64_t elements = 1;
  for (int64_t d : shape) elements = checked_multiply(elements, d, "the number of elements");
  e.logical_bytes = checked_multiply(elements, tensor.element_bytes(), "the tensor's bytes");
  e.size_bytes = size_of(tensor);
  e.padding_fraction = e.size_bytes == 0 ? 0.0
                                         : 1.0 - static_cast<double>(e.logical_bytes) /
                                                     static_cast<double>(e.size_bytes);
  e.npus = usage_table(tensor);
  e.report = npu::local_tensor_report_json(tensor);
  e.report_text = npu::local_tensor_report_text(tensor);

  // Candidates: every start NPU (same offset) x aligned and compact (the aligned layout needs an
  // aligned offset: the offset is rounded up to the alignment when it is not).
  const npu::Device& device = tensor.device();
  const int64_t offset = tensor.start().offset;
  std::vector<npu::LocalLayout> layouts;
  for (auto kind : {npu::LayoutKind::kAligned, npu::LayoutKind::kCompact}) {
    npu::LocalLayout layout;
    layout.kind = kind;
    layout.gdma = kind == npu::LayoutKind::kAligned && tensor.layout().gdma;
    layout.n_stride_rule = tensor.layout().kind == npu::LayoutKind::kStrides
                               ? npu::NStrideRule::kChannelsPerNpu
                               : tensor.layout().n_stride_rule;
    layouts.push_back(layout);
  }
  std::vector<NpuSuggestion> suggestions;
  std::vector<int> distance;
  std::set<std::string> seen{e.layout};
  for (const npu::LocalLayout& layout : layouts) {
    const int64_t aligned_offset = layout.kind == npu::LayoutKind::kAligned
                                       ? round_up(offset, device.alignment_bytes, "an offset")
                                       : offset;
    for (int64_t q = 0; q < device.npus; ++q) {
      try {
        const npu::LocalTensor candidate(device, shape, tensor.element_type(),
                                         q * device.local_memory_bytes + aligned_offset, layout,
                                         tensor.storage_mode());
        NpuSuggestion s = suggestion_for(candidate, e.size_bytes, "");
        if (!seen.insert(s.layout).second) continue;
        std::vector<std::string> changes;
        if (q != tensor.start().npu) changes.push_back(fmt::format("start at NPU {}", q));
        if (layout.kind != tensor.layout().kind) {
          changes.push_back(layout.kind == npu::LayoutKind::kAligned ? "aligned layout"
                                                                     : "compact layout");
        }
        if (aligned_offset != offset)
          changes.push_back(fmt::format("offset {} (aligned)", aligned_offset));
        s.change = fmt::format("{}", fmt::join(changes, ", "));
        suggestions.push_back(std::move(s));
        distance.push_back(static_cast<int>(changes.size()));
      } catch (const Error&) {
        // A placement that is not valid (past the end of the address space) is no suggestion.
      }
    }
  }
  rank(suggestions, distance, max_suggestions);
  e.suggestions = std::move(suggestions);
  return e;
}

NpuExplanation explain_matrix(const npu::MatrixLayout& matrix, std::size_t max_suggestions) {
  const npu::LocalTensor& tensor = matrix.tensor();
  NpuExplanation e = explain_local_tensor(tensor, 0);
  e.layout = placement_arguments(matrix);
  e.logical_bytes = checked_multiply(checked_multiply(matrix.rows(), matrix.columns(), "a matrix"),
                                     tensor.element_bytes(), "a matrix's bytes");
  e.padding_fraction = e.size_bytes == 0 ? 0.0
                                         : 1.0 - static_cast<double>(e.logical_bytes) /
                                                     static_cast<double>(e.size_bytes);
  e.report = npu::matrix_report_json(matrix, false);
  e.report_text = npu::matrix_report_text(matrix, false);
  const npu::Device& device = tensor.device();
  const int64_t columns = matrix.columns();
  const int64_t best = npu::best_matrix_width(device, matrix.rows(), columns, tensor.element_type(),
                                              tensor.address(), tensor.layout().n_stride_rule);
  e.best_w = best;
  e.report["best_w"] = best;
  std::set<int64_t> widths{best, columns, ceil_divide(columns, device.npus)};
  if (columns <= kMaxColumnsForEveryWidth) {
    for (int64_t w = 1; w <= columns; ++w) widths.insert(w);
  } else {
    for (int64_t w = 1; w <= columns; w *= 2) widths.insert(w);
    for (int64_t k = 1; k <= 2 * device.npus; ++k) widths.insert(ceil_divide(columns, k));
  }
  std::vector<NpuSuggestion> suggestions;
  std::vector<int> distance;
  for (int64_t w : widths) {
    if (w == matrix.width()) continue;
    const npu::MatrixLayout candidate(device, matrix.rows(), columns, tensor.element_type(),
                                      tensor.address(), w, tensor.layout().n_stride_rule);
    NpuSuggestion s = suggestion_for(candidate.tensor(), e.size_bytes,
                                     fmt::format("W = {} ({} channels{})", w, candidate.channels(),
                                                 w == best ? ", the best W" : ""));
    s.layout = placement_arguments(candidate);
    suggestions.push_back(std::move(s));
    distance.push_back(w == best ? 0 : 1);
  }
  rank(suggestions, distance, max_suggestions);
  e.suggestions = std::move(suggestions);
  return e;
}

nlohmann::ordered_json npu_explanation_json(const NpuExplanation& e) {
  nlohmann::ordered_json npus = nlohmann::ordered_json::array();
  bool fits = true;
  int64_t wasted = 0;
  for (const NpuUsage& u : e.npus) {
    npus.push_back({{"npu", u.npu},
                    {"channels", u.channels},
                    {"used_bytes", u.used_bytes},
                    {"data_bytes", u.data_bytes},
                    {"wasted_bytes", u.wasted_bytes},
                    {"banks", u.banks},
                    {"fits", u.fits}});
    fits = fits && u.fits;
    wasted += u.wasted_bytes;
  }
  nlohmann::ordered_json suggestions = nlohmann::ordered_json::array();
  for (const NpuSuggestion& s : e.suggestions) {
    suggestions.push_back({{"layout", s.layout},
                           {"size_bytes", s.size_bytes},
                           {"bytes_saved", s.bytes_saved},
                           {"bytes_per_npu", s.bytes_per_npu},
                           {"fits", s.fits},
                           {"change", s.change}});
  }
  nlohmann::ordered_json out = {{"layout", e.layout},
                                {"logical_bytes", e.logical_bytes},
                                {"size_bytes", e.size_bytes},
                                {"padding_fraction", e.padding_fraction},
                                {"wasted_bytes", wasted},
                                {"fits", fits},
                                {"npus", npus},
                                {"suggestions", suggestions}};
  if (e.best_w) out["best_w"] = *e.best_w;
  out["report"] = e.report;
  return out;
}

std::string npu_explanation_text(const NpuExplanation& e) {
  std::string out = e.report_text;
  out += fmt::format(
      "in all            {} of data in {} reserved ({} per NPU x {} NPUs): {:.1f}% "
      "wasted\n",
      human_bytes(e.logical_bytes), human_bytes(e.size_bytes),
      human_bytes(e.npus.empty() ? 0 : e.size_bytes / static_cast<int64_t>(e.npus.size())),
      e.npus.size(), 100.0 * e.padding_fraction);
  if (e.best_w) out += fmt::format("best W            {}\n", *e.best_w);
  out += "\n  NPU    channels  used bytes  data bytes  wasted bytes  banks      fits\n";
  // NPUs with the same row share one line ("1-62"): a 64-NPU chip prints a few lines, not 64.
  auto same = [](const NpuUsage& x, const NpuUsage& y) {
    return x.channels == y.channels && x.used_bytes == y.used_bytes &&
           x.data_bytes == y.data_bytes && x.wasted_bytes == y.wasted_bytes && x.banks == y.banks &&
           x.fits == y.fits;
  };
  int64_t empty = 0;
  for (std::size_t i = 0; i < e.npus.size();) {
    std::size_t end = i + 1;
    while (end < e.npus.size() && same(e.npus[i], e.npus[end])) ++end;
    const NpuUsage& u = e.npus[i];
    if (u.channels == 0) {
      empty += static_cast<int64_t>(end - i);
      i = end;
      continue;
    }
    const std::string npus =
        end - i == 1 ? fmt::format("{}", u.npu) : fmt::format("{}-{}", u.npu, e.npus[end - 1].npu);
    const std::string banks = u.banks.empty() ? "-"
                              : u.banks.size() == 1
                                  ? fmt::format("{}", u.banks.front())
                                  : fmt::format("{}-{}", u.banks.front(), u.banks.back());
    out += fmt::format("  {:<5}  {:>8}  {:>10}  {:>10}  {:>12}  {:<9}  {}\n", npus, u.channels,
                       u.used_bytes, u.data_bytes, u.wasted_bytes, banks, u.fits ? "yes" : "no");
    i = end;
  }
  if (empty > 0 && !e.npus.empty()) {
    out += fmt::format("  {} NPU(s) hold no channel; each wastes the reserved band of {} bytes\n",
                       empty, e.size_bytes / static_cast<int64_t>(e.npus.size()));
  }
  bool any = false;
  for (const NpuSuggestion& s : e.suggestions) any = any || (s.bytes_saved > 0 && s.fits);
  if (!any) {
    out += "\nsuggestions       none saves memory: this placement is already the smallest tried\n";
    return out;
  }
  out += "\nsuggestions (bytes saved, best first)\n";
  for (const NpuSuggestion& s : e.suggestions) {
    if (s.bytes_saved <= 0 || !s.fits) break;
    out += fmt::format("  {}: saves {} ({} in all)\n    {}\n", s.change, human_bytes(s.bytes_saved),
                       human_bytes(s.size_bytes), s.layout);
  }
  return out;
}

}  // namespace tessera::explain
