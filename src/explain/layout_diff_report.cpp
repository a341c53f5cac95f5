// diff_json and diff_text: the report of `tessera diff` (layout_diff.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessera/explain/layout_diff.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/utf8_text.h"

namespace tessera::explain {
namespace {

nlohmann::ordered_json side_json(const DiffSide& side) {
  return {{"layout", side.layout},
          // The user's bytes, escaped as explain's "input" is (\xNN, \u00NN), not U+FFFD.
          {"input", printable_utf8(side.input)},
          {"family", side.family},
          {"element_bits", side.element_bits},
          {"size_bytes", side.size_bytes},
          {"data_bytes", side.data_bytes},
          {"padding_bytes", side.padding_bytes},
          {"tile", side.tile},
          {"note", side.note}};
}

double fraction(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string percent(int64_t part, int64_t whole) {
  return fmt::format("{:.1f}%", 100.0 * fraction(part, whole));
}

// "2.5 ms", "310 us": the estimate's scale, not its precision.
std::string duration_text(double seconds) {
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.1f} us", seconds * 1e6);
}

std::string side_line(const char* name, const DiffSide& side) {
  std::string line = fmt::format("{}  {}\n   {} ({} B)", name, side.layout,
                                 human_bytes(side.size_bytes), side.size_bytes);
  if (side.family == "npu") {
    line += fmt::format(" of local memory (the whole image); data {}, wasted in its band {}",
                        human_bytes(side.data_bytes), human_bytes(side.padding_bytes));
  } else {
    line +=
        fmt::format(", data {}, padding {} ({})", human_bytes(side.data_bytes),
                    human_bytes(side.padding_bytes), percent(side.padding_bytes, side.size_bytes));
  }
  if (!side.note.empty()) line += "\n   JAX repr: " + side.note;
  return line + "\n";
}

std::string block_text(const std::vector<int64_t>& coordinates) {
  return fmt::format("({})", fmt::join(coordinates, ","));
}

}  // namespace

nlohmann::ordered_json differences_json(const std::vector<LayoutDifference>& differences) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const LayoutDifference& d : differences) {
    out.push_back({{"what", d.what}, {"a", d.a}, {"b", d.b}, {"text", d.text}});
  }
  return out;
}

nlohmann::ordered_json diff_json(const LayoutDiff& diff) {
  nlohmann::ordered_json out;
  out["elements"] = diff.moved.elements;
  out["moved_elements"] = diff.moved.moved;
  out["stayed_elements"] = diff.moved.stayed;
  out["moved_fraction"] = fraction(diff.moved.moved, diff.moved.elements);
  out["counting"] = diff.moved.method;
  out["a"] = side_json(diff.a);
  out["b"] = side_json(diff.b);
  out["size_change_bytes"] = diff.b.size_bytes - diff.a.size_bytes;
  out["differences"] = differences_json(diff.differences);
  if (diff.tiles) {
    const TileSummary& t = *diff.tiles;
    out["tiles"] = {{"side", t.side},           {"tile", t.tile},
                    {"block", t.block},         {"blocks", t.blocks},
                    {"unchanged", t.unchanged}, {"partly_moved", t.partly_moved},
                    {"moved", t.moved},         {"first_partly_moved", t.first_partly_moved}};
  } else {
    out["tiles"] = nullptr;
  }
  out["tiles_note"] = diff.tiles_note;
  out["plan"] = {
      {"pieces", diff.plan_pieces}, {"threads", diff.plan_threads}, {"kernels", diff.kernels}};
  out["cost"] = {{"bytes_read", diff.cost.bytes_read},
                 {"bytes_written", diff.cost.bytes_written},
                 {"bytes_moved", diff.cost.bytes_read + diff.cost.bytes_written},
                 {"seconds", diff.cost.seconds},
                 {"copy_gb_per_second", diff.cost.copy_bytes_per_second / 1e9},
                 {"measured", diff.cost.measured},
                 {"basis", diff.cost.basis}};
  return out;
}

std::string diff_text(const LayoutDiff& diff) {
  const relayout::MovedElements& m = diff.moved;
  std::string out = side_line("a", diff.a) + side_line("b", diff.b);
  out += fmt::format("elements   {}\nmoved      {} ({})\nstayed     {} ({})\n", m.elements, m.moved,
                     percent(m.moved, m.elements), m.stayed, percent(m.stayed, m.elements));
  out += fmt::format("           counted exactly: {}\n", m.method);
  if (!diff.differences.empty()) out += "what differs\n";
  for (const LayoutDifference& d : diff.differences) {
    out += fmt::format("  {:<15}{} -> {}: {}\n", d.what, d.a, d.b, d.text);
  }
  if (diff.tiles) {
    const TileSummary& t = *diff.tiles;
    out += t.tile == "row" ? fmt::format("by row: {} rows", t.blocks)
                           : fmt::format("by tile {} of {}: {} blocks of ({})", t.tile, t.side,
                                         t.blocks, fmt::join(t.block, ","));
    out += fmt::format(", {} unchanged, {} partly moved, {} moved\n", t.unchanged, t.partly_moved,
                       t.moved);
    if (!t.first_partly_moved.empty()) {
      std::vector<std::string> blocks;
      for (const auto& b : t.first_partly_moved) blocks.push_back(block_text(b));
      out += fmt::format("  partly moved: {}{}\n", fmt::join(blocks, " "),
                         t.partly_moved > static_cast<int64_t>(blocks.size()) ? " ..." : "");
    }
  } else {
    out += "by tile: " + diff.tiles_note + "\n";
  }
  out += fmt::format("plan a -> b: {} piece{} on {} thread{}\n", diff.plan_pieces,
                     diff.plan_pieces == 1 ? "" : "s", diff.plan_threads,
                     diff.plan_threads == 1 ? "" : "s");
  for (const std::string& kernel : diff.kernels) out += "  " + kernel + "\n";
  const relayout::RelayoutCost& c = diff.cost;
  out += fmt::format("cost on this host: reads {}, writes {}", human_bytes(c.bytes_read),
                     human_bytes(c.bytes_written));
  if (c.seconds > 0) out += fmt::format(", {}", duration_text(c.seconds));
  out += fmt::format("\n  {}\n", c.basis);
  return out;
}

}  // namespace tessera::explain
