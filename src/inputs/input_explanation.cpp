#include "tessera/inputs/input_explanation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

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

// input_lines writes a byte that is not UTF-8 as `\xNN` and a control character as `\u00NN`;
// in a shape, say that rather than what the parser finds at the backslash (a 0xc3
// became '?' and was called a dynamic dimension).
void refuse_escaped_bytes(std::string_view shape) {
  for (std::size_t at = shape.find('\\'); at != std::string_view::npos;
       at = shape.find('\\', at + 1)) {
    const std::string_view rest = shape.substr(at);
    const bool byte = rest.size() >= 4 && rest[1] == 'x';
    const bool control = rest.size() >= 6 && rest.substr(1, 3) == "u00";
    if (!byte && !control) continue;
    const std::string_view escape = rest.substr(0, byte ? 4 : 6);
    throw Error(ErrorKind::kSyntax,
                fmt::format("the shape holds {} ({}), shown escaped; no XLA shape has one",
                            byte ? "a byte that is not UTF-8" : "a control character", escape),
                shape, at);
  }
}

// Everything but the comparison with the report depends on the shape's text alone.
ArrayExplanation explain_array(const InputArray& input, const InputOptions& options) {
  ArrayExplanation a;
  a.input = input;
  try {
    refuse_escaped_bytes(input.shape);
    bool layout_written = false;
    xla::Shape shape = xla::parse_shape(input.shape, layout_written);
    explain::ShardSplit split;
    // --shards splits the arrays of its rank; explain_input warns once about the others.
    if (!options.shards.empty() && options.shards.size() == shape.dimensions.size()) {
      split = {shape.dimensions, options.shards};
      shape.dimensions = shard_dimensions(shape.dimensions, options.shards);
      a.shard_dims = shape.dimensions;
    }
    shape = tpu::apply_target(
        std::move(shape), options.target, nullptr,
        layout_written ? tpu::DimensionOrder::kAsWritten : tpu::DimensionOrder::kCompilerChooses);
    const xla::TiledLayout layout(shape);
    a.layout = xla::print_shape(shape);
    a.size_bytes = layout.size_bytes();
    a.unpadded_bytes = explain::unpadded_bytes(shape);
    a.cause = short_cause(explain::padding_breakdown(layout));
    if (const std::string transposed = explain::transpose_cause(shape); !transposed.empty()) {
      a.cause += "; " + transposed;
    }
    a.fixes = explain::program_fixes(shape, a.size_bytes, options.target, options.max_fixes, split);
  } catch (const Error& error) {
    a.error = error.what();
  }
  return a;
}

// The compiler's own summary lines, and what to do when they name no array.
std::string out_of_memory_text(const InputExplanation& e) {
  std::string out;
  for (const OutOfMemory& oom : e.out_of_memory) {
    if (oom.required.empty()) {
      out += fmt::format("out of memory (line {}): {}\n", oom.line, oom.message);
    } else if (oom.what == "the allocation") {
      out += fmt::format("out of memory (line {}): an allocation of {}, with {} of {} free\n",
                         oom.line, oom.required, oom.available, oom.memory_space);
    } else if (oom.what == "used") {
      out += fmt::format("out of memory (line {}): the program used {} of {}, which holds {}\n",
                         oom.line, oom.required, oom.memory_space, oom.available);
    } else {
      out += fmt::format("out of memory (line {}): {} need {} of {}, which holds {}\n", oom.line,
                         oom.what, oom.required, oom.memory_space, oom.available);
    }
  }
  if (!e.out_of_memory.empty() && e.arrays.empty()) {
    // libtpu 0.0.42.1 writes the optimized module even when it runs out of memory
    // (tests/inputs/fixtures/libtpu_oom_after_optimizations.hlo is one).
    out +=
        "the message names no arrays (today's compiler prints only the total). To see what "
        "fills HBM at the peak, run the program with XLA_FLAGS=--xla_dump_to=DIR and run "
        "'tessera explain DIR': it reads the largest program's "
        "module_*.after_optimizations.txt with the compiler's own "
        "module_*.after_optimizations-buffer-assignment.txt and "
        "module_*.after_optimizations-memory-usage-report.txt beside it (or name those three "
        "files), which the compiler writes even when it runs out of memory.\n";
  }
  return out;
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

std::string totals_count_text(const InputExplanation& e) {
  const std::size_t others = e.arrays.size() - e.buffers;
  if (others == 0)
    return fmt::format("{} array{}", e.arrays.size(), e.arrays.size() == 1 ? "" : "s");
  return fmt::format(
      "{} buffer{} of the {} arrays read (each buffer once: {} array{} fusion internals, tuple "
      "elements, aliases or entry layout entries of them; --json 'same_buffer' says which)",
      e.buffers, e.buffers == 1 ? "" : "s", e.arrays.size(), others,
      others == 1 ? " is one of the" : "s are");
}

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
  if (!options.shards.empty() && reading.format != InputFormat::kShapeText) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("--shards applies to shapes written by hand: the shapes of {} are "
                            "already one device's (the compiler prints each device's shard); "
                            "run without --shards",
                            reading.format == InputFormat::kOomReport ? "an out-of-memory report"
                                                                      : "an HLO module"));
  }
  InputExplanation e;
  e.format = reading.format;
  e.warnings = reading.warnings;
  e.out_of_memory = reading.out_of_memory;
  // Identical shapes are explained once: a log repeats the same few shapes many times.
  std::unordered_map<std::string_view, std::size_t> explained;  // shape -> its first array
  e.arrays.reserve(reading.arrays.size());
  std::size_t other_ranks = 0;
  for (const InputArray& input : reading.arrays) {
    const auto cached = explained.find(input.shape);
    ArrayExplanation a;
    if (cached == explained.end()) {
      explained.emplace(input.shape, e.arrays.size());
      a = explain_array(input, options);
    } else {
      a = e.arrays[cached->second];
      a.input = input;
      a.disagreements.clear();
    }
    if (!options.shards.empty() && a.error.empty() && a.shard_dims.empty()) ++other_ranks;
    if (options.shards.empty()) compare_with_report(a);
    if (!a.error.empty()) {
      e.warnings.push_back(
          fmt::format("line {}: {} not explained: {}", input.line, input.shape, a.error));
    }
    if (input.same_buffer.empty()) {
      ++e.buffers;
      e.total_size_bytes += a.size_bytes;
      e.total_unpadded_bytes += a.unpadded_bytes;
      if (!a.fixes.empty()) e.total_saving_bytes += a.fixes.front().bytes_saved;
    }
    e.arrays.push_back(std::move(a));
  }
  if (other_ranks > 0) {
    e.warnings.push_back(fmt::format(
        "--shards {} splits arrays of rank {}: {} array{} of another rank {} explained whole",
        fmt::join(options.shards, ","), options.shards.size(), other_ranks,
        other_ranks == 1 ? "" : "s", other_ranks == 1 ? "is" : "are"));
  }
  std::stable_sort(e.arrays.begin(), e.arrays.end(), [](const auto& x, const auto& y) {
    return x.padding_bytes() > y.padding_bytes();
  });
  return e;
}

std::string input_explanation_text(const InputExplanation& e, std::size_t top) {
  using explain::human_bytes;
  const std::size_t shown = top == 0 ? e.arrays.size() : std::min(top, e.arrays.size());
  std::string out = fmt::format("{} arrays read ({}); sorted by the bytes padding wastes\n",
                                e.arrays.size(), input_format_name(e.format));
  out += out_of_memory_text(e) + "\n";
  if (!e.arrays.empty()) {
    out += fmt::format("{:>3}  {:>10}  {:>10}  {:>10}  {:>6}  {}\n", "#", "padding", "size",
                       "unpadded", "x", "name  shape");
  }
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
    if (!a.input.same_buffer.empty()) {
      out += fmt::format("     not counted in the totals: {}\n", a.input.same_buffer);
    }
    if (!a.fixes.empty()) {
      const auto& f = a.fixes.front();
      if (a.input.same_buffer.empty()) top_saving += f.bytes_saved;
      out += fmt::format("     best fix ({}): {} -> {}, saves {}\n", f.kind, f.change,
                         human_bytes(f.size_bytes), human_bytes(f.bytes_saved));
    }
    // Only the numbers the report gave whole (a cut one is a warning, not compared).
    std::vector<std::string> reported;
    if (!a.input.reported_size.empty()) reported.push_back("Size " + a.input.reported_size);
    if (!a.input.reported_unpadded.empty()) {
      reported.push_back("Unpadded " + a.input.reported_unpadded);
    }
    if (!reported.empty()) {
      out += fmt::format("     report: {}{}\n", fmt::join(reported, ", "),
                         a.disagreements.empty() ? " (tessera agrees)" : "");
    }
    if (!a.input.operator_text.empty())
      out += fmt::format("     Operator: {}\n", a.input.operator_text);
    for (const auto& d : a.disagreements)
      out += fmt::format("     !!! DISAGREES WITH THE REPORT: {}\n", d);
  }
  if (shown < e.arrays.size()) {
    out += fmt::format("... {} more arrays (--all lists them)\n", e.arrays.size() - shown);
  }
  if (e.arrays.empty()) return out;
  out += fmt::format("\ntotal: {}, {} in memory, {} unpadded, {} padding\n", totals_count_text(e),
                     human_bytes(e.total_size_bytes), human_bytes(e.total_unpadded_bytes),
                     human_bytes(e.total_size_bytes - e.total_unpadded_bytes));
  out += fmt::format("fixing the top {} saves {} of {}\n", shown, human_bytes(top_saving),
                     human_bytes(e.total_size_bytes));
  return out;
}

}  // namespace tessera::inputs
