#include "tessera/inputs/input_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/explain/padding_breakdown.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::inputs {
namespace {

std::string short_cause(const std::vector<explain::PaddingSource>& sources) {
  if (sources.empty()) return "no padding";
  const auto worst = std::max_element(sources.begin(), sources.end(),
                                      [](auto& a, auto& b) { return a.factor < b.factor; });
  switch (worst->kind) {
    case explain::PaddingSource::Kind::kTile:
      return fmt::format("{}: {} -> {} by the {} tile entry of T{}", worst->dimension, worst->from,
                         worst->to, worst->entry, worst->tile);
    case explain::PaddingSource::Kind::kElementStorage:
      return fmt::format("{} -> {} bits per element", worst->from, worst->to);
    case explain::PaddingSource::Kind::kTailAlignment:
      return "tail alignment L(n)";
  }
  return worst->text;
}

std::string expansion_text(int64_t size, int64_t unpadded) {
  return unpadded == 0
             ? "-"
             : fmt::format("{:.1f}x", static_cast<double>(size) / static_cast<double>(unpadded));
}

// The report's "Extra memory due to padding: 31.00G (32.0x expansion)" checked part by part.
void compare_with_report(ArrayExplanation& a) {
  const InputArray& in = a.input;
  auto check = [&](const std::string& what, const std::string& reported, const std::string& ours) {
    if (!reported.empty() && reported != ours) {
      a.disagreements.push_back(fmt::format("{}: report {}, tessera {}", what, reported, ours));
    }
  };
  check("Size", in.reported_size, explain::xla_size_text(a.size_bytes));
  check("Unpadded size", in.reported_unpadded, explain::xla_size_text(a.unpadded_bytes));
  if (!in.reported_padding.empty()) {
    const std::string ours =
        fmt::format("{} ({} expansion)", explain::xla_size_text(a.padding_bytes()),
                    expansion_text(a.size_bytes, a.unpadded_bytes));
    check("Extra memory due to padding", in.reported_padding, ours);
  }
}

ArrayExplanation explain_array(const InputArray& input, const InputOptions& options) {
  ArrayExplanation a;
  a.input = input;
  try {
    bool layout_written = false;
    xla::Shape shape = xla::parse_shape(input.shape, layout_written);
    explain::ShardSplit split;
    if (!options.shards.empty()) {
      split = {shape.dimensions, options.shards};
      shape.dimensions = shard_dimensions(shape.dimensions, options.shards);
      a.shard_dims = shape.dimensions;
    }
    const explain::Target target = explain::resolve_target(options.target, options.era);
    shape = explain::apply_target(std::move(shape), target, options.pred, nullptr, options.era,
                                  layout_written ? explain::DimensionOrder::kAsWritten
                                                 : explain::DimensionOrder::kCompilerChooses);
    const xla::TiledLayout layout(shape);
    a.layout = xla::print_shape(shape);
    a.size_bytes = layout.size_bytes();
    a.unpadded_bytes = explain::unpadded_bytes(shape);
    a.cause = short_cause(explain::padding_breakdown(layout));
    if (const std::string transposed = explain::transpose_cause(shape); !transposed.empty()) {
      a.cause += "; " + transposed;
    }
    a.fixes = explain::program_fixes(shape, a.size_bytes, target, options.pred, options.max_fixes,
                                     split, options.era);
    if (options.shards.empty()) compare_with_report(a);
  } catch (const Error& error) {
    a.error = error.what();
  }
  return a;
}

void check_shard_counts(const std::vector<int64_t>& shards) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (shards[i] < 1) {
      throw Error(ErrorKind::kOutOfRange,
                  fmt::format("--shards count {} for dimension {} is not positive", shards[i], i));
    }
  }
}

}  // namespace

std::vector<int64_t> shard_dimensions(const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& shards) {
  if (shards.size() != dims.size()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("--shards has {} counts but the shape has {} dimensions", shards.size(),
                            dims.size()));
  }
  check_shard_counts(shards);
  std::vector<int64_t> out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out.push_back(ceil_divide(dims[i], shards[i]));
  }
  return out;
}

std::string sharded_shape_text(std::string_view shape, const std::vector<int64_t>& shards,
                               explain::ShardSplit& split) {
  bool layout_written = false;
  xla::Shape sharded = xla::parse_shape(shape, layout_written);
  split = {sharded.dimensions, shards};
  sharded.dimensions = shard_dimensions(sharded.dimensions, shards);
  // A device array's shard is a device array too: its dims are ordered by the compiler unless
  // the text named an order (checked against compiled NamedSharding arrays, tools/tpu_oracle).
  if (!layout_written) {
    return fmt::format("{}[{}]", element_type_name(sharded.element_type),
                       fmt::join(sharded.dimensions, ","));
  }
  return xla::print_shape(sharded);
}

InputExplanation explain_input(const InputReading& reading, const InputOptions& options) {
  check_shard_counts(options.shards);  // once for the whole input, not array by array
  InputExplanation e;
  e.format = reading.format;
  e.warnings = reading.warnings;
  for (const InputArray& input : reading.arrays) {
    ArrayExplanation a = explain_array(input, options);
    if (!a.error.empty()) {
      e.warnings.push_back(
          fmt::format("line {}: {} not explained: {}", input.line, input.shape, a.error));
    }
    e.total_size_bytes += a.size_bytes;
    e.total_unpadded_bytes += a.unpadded_bytes;
    if (!a.fixes.empty()) e.total_saving_bytes += a.fixes.front().bytes_saved;
    e.arrays.push_back(std::move(a));
  }
  std::stable_sort(e.arrays.begin(), e.arrays.end(), [](const auto& x, const auto& y) {
    return x.padding_bytes() > y.padding_bytes();
  });
  return e;
}

nlohmann::ordered_json input_explanation_json(const InputExplanation& e) {
  nlohmann::ordered_json arrays = nlohmann::ordered_json::array();
  for (const ArrayExplanation& a : e.arrays) {
    nlohmann::ordered_json fixes = nlohmann::ordered_json::array();
    for (const auto& f : a.fixes) fixes.push_back(explain::program_fix_json(f));
    nlohmann::ordered_json item;
    item["shape"] = a.layout.empty() ? a.input.shape : a.layout;
    item["input_shape"] = a.input.shape;
    item["name"] = a.input.name;
    item["place"] = a.input.place;
    item["line"] = a.input.line;
    item["layout"] = a.layout;
    if (!a.shard_dims.empty()) item["shard_dims"] = a.shard_dims;
    item["size_bytes"] = a.size_bytes;
    item["unpadded_bytes"] = a.unpadded_bytes;
    item["padding_bytes"] = a.padding_bytes();
    item["expansion"] = a.unpadded_bytes == 0 ? 0.0
                                              : static_cast<double>(a.size_bytes) /
                                                    static_cast<double>(a.unpadded_bytes);
    item["cause"] = a.cause;
    item["suggestions"] = fixes;
    item["report"] = {{"size", a.input.reported_size},
                      {"unpadded_size", a.input.reported_unpadded},
                      {"padding", a.input.reported_padding}};
    item["tessera_text"] = {{"size", explain::xla_size_text(a.size_bytes)},
                            {"unpadded_size", explain::xla_size_text(a.unpadded_bytes)}};
    item["disagreements"] = a.disagreements;
    if (!a.error.empty()) item["error"] = a.error;
    arrays.push_back(std::move(item));
  }
  nlohmann::ordered_json out;
  out["format"] = input_format_name(e.format);
  out["arrays"] = std::move(arrays);
  out["warnings"] = e.warnings;
  out["total_size_bytes"] = e.total_size_bytes;
  out["total_unpadded_bytes"] = e.total_unpadded_bytes;
  out["total_padding_bytes"] = e.total_size_bytes - e.total_unpadded_bytes;
  out["total_saving_bytes"] = e.total_saving_bytes;
  return out;
}

std::string input_explanation_text(const InputExplanation& e, std::size_t top) {
  using explain::human_bytes;
  const std::size_t shown = top == 0 ? e.arrays.size() : std::min(top, e.arrays.size());
  std::string out = fmt::format("{} arrays read ({}); sorted by the bytes padding wastes\n\n",
                                e.arrays.size(), input_format_name(e.format));
  out += fmt::format("{:>3}  {:>10}  {:>10}  {:>10}  {:>6}  {}\n", "#", "padding", "size",
                     "unpadded", "x", "name  shape");
  int64_t top_saving = 0;
  for (std::size_t i = 0; i < shown; ++i) {
    const ArrayExplanation& a = e.arrays[i];
    out += fmt::format(
        "{:>3}  {:>10}  {:>10}  {:>10}  {:>6}  {}  {}\n", i + 1, human_bytes(a.padding_bytes()),
        human_bytes(a.size_bytes), human_bytes(a.unpadded_bytes),
        expansion_text(a.size_bytes, a.unpadded_bytes), a.input.name.empty() ? "-" : a.input.name,
        a.layout.empty() ? a.input.shape : a.layout);
    if (!a.error.empty()) {
      out += fmt::format("     not explained: {}\n", a.error);
      continue;
    }
    out += fmt::format("     cause: {}  ({})\n", a.cause, a.input.place);
    if (!a.fixes.empty()) {
      const auto& f = a.fixes.front();
      top_saving += f.bytes_saved;
      out += fmt::format("     best fix ({}): {} -> {}, saves {}\n", f.kind, f.change,
                         human_bytes(f.size_bytes), human_bytes(f.bytes_saved));
    }
    if (!a.input.reported_size.empty()) {
      out += fmt::format("     report: Size {}, Unpadded {}{}\n", a.input.reported_size,
                         a.input.reported_unpadded,
                         a.disagreements.empty() ? " (tessera agrees)" : "");
    }
    for (const auto& d : a.disagreements)
      out += fmt::format("     !!! DISAGREES WITH THE REPORT: {}\n", d);
  }
  if (shown < e.arrays.size()) {
    out += fmt::format("... {} more arrays (--all lists them)\n", e.arrays.size() - shown);
  }
  out += fmt::format("\ntotal: {} arrays, {} in memory, {} unpadded, {} padding\n", e.arrays.size(),
                     human_bytes(e.total_size_bytes), human_bytes(e.total_unpadded_bytes),
                     human_bytes(e.total_size_bytes - e.total_unpadded_bytes));
  out += fmt::format("fixing the top {} saves {} of {}\n", shown, human_bytes(top_saving),
                     human_bytes(e.total_size_bytes));
  for (const auto& w : e.warnings) out += fmt::format("WARNING: {}\n", w);
  return out;
}

}  // namespace tessera::inputs
