#include "tessera/explain/layout_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "tessera/checked_arithmetic.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {
namespace {

double ratio(int64_t numerator, int64_t denominator) {
  return denominator == 0 ? 0.0 : static_cast<double>(numerator) / static_cast<double>(denominator);
}

}  // namespace

std::string alternatives_text(const std::vector<std::string>& alternatives,
                              std::string_view indent) {
  constexpr std::size_t kShown = 2;
  if (alternatives.empty()) return "";
  const std::size_t shown = std::min(kShown, alternatives.size());
  return fmt::format("{}or {} equivalent layout{} of the same size: {}{}\n", indent,
                     alternatives.size(), alternatives.size() == 1 ? "" : "s",
                     fmt::join(alternatives.begin(),
                               alternatives.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                     alternatives.size() > shown ? ", ... (--json lists all)" : "");
}

std::string human_bytes(int64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.4g} {}", value, kUnits[unit]);
}

LayoutExplanation explain_layout(std::string_view shape_text, const ExplainOptions& options) {
  tpu::TileChoice choice;
  bool layout_written = false;
  const xla::Shape written = xla::parse_shape(shape_text, layout_written);
  const tpu::TpuTarget& target = options.target;
  xla::Shape shape = tpu::apply_target(
      written, target, &choice,
      layout_written ? tpu::DimensionOrder::kAsWritten : tpu::DimensionOrder::kCompilerChooses);
  xla::TiledLayout layout(shape);
  const int64_t logical_bytes =
      bytes_for_bits(layout.logical_elements(), bit_width(shape.element_type));
  std::vector<PaddingSource> padding = padding_breakdown(layout);
  std::vector<LayoutSuggestion> suggestions =
      suggest_layouts(shape, layout.size_bytes(), target, options.max_suggestions);
  std::vector<ProgramFix> fixes =
      program_fixes(shape, layout.size_bytes(), target, options.max_suggestions, options.split);
  if (target.era == tpu::XlaEra::k2020 || !target.is_tpu()) {
    // The 2020 reorders are other minor_to_majors of the same array: the suggestions say those.
    std::erase_if(fixes,
                  [](const ProgramFix& f) { return f.kind != "reshape" && f.kind != "pad"; });
  }
  const int64_t unpadded = unpadded_bytes(shape);
  std::string written_order_layout;
  if (choice.reordered) {
    xla::Shape as_written = written;
    written_order_layout = xla::print_shape(tpu::apply_target(as_written, target));
  }
  return LayoutExplanation{std::string(shape_text),
                           target,
                           choice.rule,
                           std::move(written_order_layout),
                           choice.written_order_bytes,
                           options.target_is_default,
                           std::move(layout),
                           logical_bytes,
                           unpadded,
                           std::move(padding),
                           std::move(suggestions),
                           std::move(fixes),
                           suggestion_search_note(shape)};
}

nlohmann::ordered_json explanation_json(const LayoutExplanation& e) {
  const nlohmann::ordered_json report = xla::layout_report_json(e.layout);
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const PaddingSource& s : e.padding) {
    sources.push_back({{"kind", padding_kind_name(s.kind)},
                       {"level", s.level},
                       {"tile", s.tile},
                       {"dimension", s.dimension},
                       {"entry", s.entry},
                       {"from", s.from},
                       {"to", s.to},
                       {"factor", s.factor},
                       {"text", s.text}});
  }
  nlohmann::ordered_json suggestions = nlohmann::ordered_json::array();
  for (const LayoutSuggestion& s : e.suggestions) {
    suggestions.push_back(layout_suggestion_json(s));
  }
  nlohmann::ordered_json fixes = nlohmann::ordered_json::array();
  for (const ProgramFix& f : e.fixes) fixes.push_back(program_fix_json(f));
  const int64_t size = e.layout.size_bytes();
  return {
      {"input", e.input},
      {"target", tpu::target_name(e.target)},
      {"xla_era", tpu::xla_era_name(e.target.era)},
      {"tile_rule", e.tile_rule},
      {"written_order", e.written_order_layout.empty()
                            ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json{{"layout", e.written_order_layout},
                                                     {"size_bytes", e.written_order_bytes}}},
      {"layout", report["canonical"]},
      {"dtype", report["dtype"]},
      {"element_bits", report["element_bits"]},
      {"dims", report["dims"]},
      {"minor_to_major", report["minor_to_major"]},
      {"tiles", report["tiles"]},
      {"physical_dims", report["physical_dims"]},
      {"steps", report["steps"]},
      {"logical_elements", e.layout.logical_elements()},
      {"physical_elements", e.layout.physical_elements()},
      {"logical_bytes", e.logical_bytes},
      {"unpadded_bytes", e.unpadded_bytes},
      {"size_bytes", size},
      {"padding_bytes", size - e.logical_bytes},
      {"padding_fraction", e.layout.padding_fraction()},
      {"waste_fraction", size == 0 ? 0.0 : 1.0 - ratio(e.logical_bytes, size)},
      {"expansion", ratio(size, e.logical_bytes)},
      {"xla_expansion", ratio(size, e.unpadded_bytes)},
      {"padding_sources", sources},
      {"suggestions", suggestions},
      {"fixes", fixes},
      {"suggestion_search", e.suggestion_search},
  };
}

std::string explanation_text(const LayoutExplanation& e) {
  const int64_t size = e.layout.size_bytes();
  std::string out;
  out += fmt::format("layout            {}\n", xla::print_shape(e.layout.shape()));
  if (e.target.is_tpu()) {
    out += fmt::format("target            {} (XLA era {}): {}{}\n", tpu::target_name(e.target),
                       tpu::xla_era_name(e.target.era), e.tile_rule,
                       e.target_is_default ? " (the default for a shape without tiles; --target "
                                             "none for the layout as written)"
                                           : "");
  }
  if (!e.written_order_layout.empty()) {
    out += fmt::format(
        "dimension order   the compiler stores this device array as minor_to_major {{{}}}; in "
        "the written order, {}, it would take {}\n",
        fmt::join(e.layout.shape().layout.minor_to_major, ","), e.written_order_layout,
        human_bytes(e.written_order_bytes));
  }
  out += fmt::format("data              {} ({} bytes: {} elements x {} bits)\n",
                     human_bytes(e.logical_bytes), e.logical_bytes, e.layout.logical_elements(),
                     bit_width(e.layout.shape().element_type));
  out += fmt::format("in memory         {} ({} bytes: {} elements x {} bits)\n", human_bytes(size),
                     size, e.layout.physical_elements(), e.layout.element_bits());
  out += fmt::format(
      "as XLA says it    Size: {}, Unpadded size: {}, Extra memory due to padding: {} ({})\n",
      xla_size_text(size), xla_size_text(e.unpadded_bytes), xla_size_text(size - e.unpadded_bytes),
      xla_expansion_text(size, e.unpadded_bytes));
  out += fmt::format(
      "padding           {:.2f}% of the elements, {:.2f}% of the bytes; {:.4g}x the data\n",
      100.0 * e.layout.padding_fraction(),
      size == 0 ? 0.0 : 100.0 * (1.0 - ratio(e.logical_bytes, size)), ratio(size, e.logical_bytes));
  if (e.padding.empty()) {
    out += "where from        nowhere: every tile divides its dimension exactly\n";
  } else {
    out += "where from\n";
    for (const PaddingSource& s : e.padding) out += fmt::format("  {}\n", s.text);
  }
  int level = 1;
  for (const xla::TilingStep& step : e.layout.steps()) {
    out += fmt::format("tile level {}      T{}: pad {} -> reshape {} -> transpose {}\n", level++,
                       xla::print_tile(step.tile), xla::format_dims(step.padded_dims),
                       xla::format_dims(step.reshaped_dims), xla::format_dims(step.output_dims));
  }
  out += fmt::format("physical shape    {}\n", xla::format_dims(e.layout.physical_dims()));
  if (!e.suggestion_search.empty())
    out += fmt::format("suggestion search {}\n", e.suggestion_search);
  bool any_saving = false;
  for (const LayoutSuggestion& s : e.suggestions) any_saving = any_saving || s.bytes_saved > 0;
  if (!e.fixes.empty()) {
    out += "program changes (bytes saved, best first)\n";
    for (const ProgramFix& f : e.fixes) {
      out += fmt::format("  {} to {}  {} ({:.1f}% less), {} in total\n    {}\n", f.kind, f.layout,
                         human_bytes(f.bytes_saved), 100.0 * ratio(f.bytes_saved, size),
                         human_bytes(f.size_bytes), f.change);
      out += alternatives_text(f.alternatives, "    ");
    }
  }
  if (!any_saving) {
    out +=
        "suggestions       no other layout saves memory: this one is already the smallest "
        "tried\n";
    return out;
  }
  out += "suggestions (bytes saved, best first)\n";
  for (const LayoutSuggestion& s : e.suggestions) {
    if (s.bytes_saved <= 0) break;
    out += fmt::format("  {}  {} ({:.1f}% less), {} in total\n    {}\n", s.layout,
                       human_bytes(s.bytes_saved), 100.0 * ratio(s.bytes_saved, size),
                       human_bytes(s.size_bytes), s.change);
    out += alternatives_text(s.alternatives, "    ");
  }
  return out;
}

std::vector<DefaultExample> default_examples() {
  return {
      {"F32[3,5]{1,0:T(2,2)}", "none",
       "The tiled layout spec's Figure 1: F32[3,5] in 2x2 tiles (element (2,3) is at 17)"},
      {"f32[1024,3]", "tpu",
       "How does a TPU store the device array f32[1024,3]? (The compiler orders its dims so "
       "that it takes 16 KiB, not 512 KiB.)"},
      {"s32[2048,1,128,128,4]{4,3,2,1,0}", "tpu",
       "Why does s32[2048,1,128,128,4]{4,3,2,1,0}, a program's intermediate as an OOM report "
       "prints it, take 32x its size on a TPU?"},
  };
}

}  // namespace tessera::explain
