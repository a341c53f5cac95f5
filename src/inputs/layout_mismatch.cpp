#include "tessera/inputs/layout_mismatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "tessera/checked_arithmetic.h"
#include "tessera/element_type.h"
#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/inputs/input_arrays.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/inputs/shapes_in_text.h"
#include "tessera/integer_text.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::inputs {
namespace {

// Elements compared one by one over a whole text (mismatches whose layouts have no common
// refinement); past it a mismatch is explained without its count of moved elements.
constexpr int64_t kMismatchWalkElements = int64_t{1} << 24;

// The text inside the parentheses opening at text[pos] (nested ones included), or nullopt.
std::optional<std::string_view> parenthesised(std::string_view text, std::size_t pos) {
  int depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return text.substr(pos + 1, i - pos - 1);
  }
  return std::nullopt;
}

// The layout "{...}" starting at text[pos] (blanks skipped), or nullopt.
std::optional<std::string> braced_at(std::string_view text, std::size_t pos) {
  skip_blanks(text, pos);
  if (pos >= text.size() || text[pos] != '{') return std::nullopt;
  const std::size_t end = text.find('}', pos);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(pos, end - pos + 1));
}

std::optional<std::vector<ShapeToken>> shapes_after(std::string_view text,
                                                    std::string_view marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t pos = at + marker.size();
  return read_shape_at(text, pos);
}

std::optional<std::string> shape_after(std::string_view text, std::string_view marker) {
  auto shapes = shapes_after(text, marker);
  if (!shapes || shapes->size() != 1) return std::nullopt;
  return shapes->front().text;
}

// The declared and actual shapes of XLA's shape check. Tuples are compared element by element:
// the first pair that differs is the mismatch (the first pair when none does).
std::optional<std::pair<ShapeToken, ShapeToken>> checked_pair(std::string_view line) {
  const auto declared = shapes_after(line, "to have shape equal to ");
  const auto actual = shapes_after(line, "actual shape is ");
  if (!declared || !actual || declared->empty() || declared->size() != actual->size())
    return std::nullopt;
  for (std::size_t i = 0; i < declared->size(); ++i) {
    if ((*declared)[i].text != (*actual)[i].text) return std::pair{(*declared)[i], (*actual)[i]};
  }
  return std::pair{declared->front(), actual->front()};
}

MismatchSide named_side(std::string role, std::string layout) {
  MismatchSide out;
  out.role = std::move(role);
  out.layout = std::move(layout);
  return out;
}

// The array part of a shape: "f32[16,3072]{1,0}" -> "f32[16,3072]".
std::string array_part(const std::string& shape) {
  return shape.substr(0, std::min(shape.size(), shape.find('{')));
}

std::optional<int64_t> operand_number(std::string_view line) {
  constexpr std::string_view kMarker = "kernel operand ";
  const std::size_t at = line.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = at + kMarker.size();
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])) != 0) ++end;
  try {
    return parse_integer(line.substr(at + kMarker.size(), end - at - kMarker.size()), "operand");
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Recognises one message on `line`: fills source, shape, expected and actual layouts.
bool recognise(std::string_view line, LayoutMismatch& m) {
  constexpr std::string_view kXla = "XLA layout (";
  constexpr std::string_view kMosaic = "does not match Mosaic layout (";
  if (const std::size_t at = line.find(kXla); at != std::string_view::npos) {
    const auto xla = parenthesised(line, at + kXla.size() - 1);
    const std::size_t mosaic_at = line.find(kMosaic, at);
    const auto shape = shape_after(line, "operand of shape ");
    if (xla && mosaic_at != std::string_view::npos && shape) {
      const auto mosaic = parenthesised(line, mosaic_at + kMosaic.size() - 1);
      if (mosaic) {
        m.source = "mosaic_operand";
        m.shape = *shape;
        m.expected = named_side("Mosaic kernel", m.shape + std::string(*mosaic));
        m.actual = named_side("XLA", m.shape + std::string(*xla));
        return true;
      }
    }
  }
  if (line.find("does not match MLIR layout") != std::string_view::npos) {
    const auto shape = shape_after(line, "operand of shape ");
    const std::size_t expected_at = line.find("expected ");
    const std::size_t got_at = line.find(", got ");
    if (shape && expected_at != std::string_view::npos && got_at != std::string_view::npos) {
      const auto expected = braced_at(line, expected_at + 9);
      const auto got = braced_at(line, got_at + 6);
      if (expected && got) {
        m.source = "mosaic_operand";
        m.shape = *shape;
        m.expected = named_side("Mosaic kernel", m.shape + *expected);
        m.actual = named_side("XLA", m.shape + *got);
        return true;
      }
    }
  }
  if (const auto pair = checked_pair(line)) {
    m.source = "xla_shape_check";
    m.shape = array_part(pair->first.text);
    m.expected = named_side("XLA's check", pair->first.text);
    m.actual = named_side("instruction", pair->second.text);
    return true;
  }
  std::string lower(line);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("layout") == std::string::npos ||
      (lower.find("match") == std::string::npos && lower.find("expected") == std::string::npos)) {
    return false;
  }
  std::vector<ShapeToken> shapes = find_shapes(line);
  std::erase_if(shapes, [](const ShapeToken& s) { return !s.has_layout; });
  if (shapes.size() < 2) return false;
  m.source = "other";
  m.shape = array_part(shapes[0].text);
  m.expected = named_side("first", shapes[0].text);
  m.actual = named_side("second", shapes[1].text);
  return true;
}

void describe(MismatchSide& side, const xla::Shape& shape) {
  const xla::TiledLayout layout(shape);
  side.layout = xla::print_shape(shape);
  side.size_bytes = layout.size_bytes();
  side.padding_bytes =
      side.size_bytes - bytes_for_bits(layout.logical_elements(), layout.element_bits());
  side.tiles = "none";
  if (!shape.layout.tiles.empty()) {
    side.tiles = "T";
    for (const xla::Tile& tile : shape.layout.tiles) side.tiles += xla::print_tile(tile);
  }
  side.memory_space = shape.layout.memory_space;
  side.minor_to_major = shape.layout.minor_to_major;
}

void explain_causes(LayoutMismatch& m, const xla::Shape& expected, const xla::Shape& actual) {
  if (expected.dimensions != actual.dimensions) {
    m.causes.push_back(fmt::format(
        "the two shapes hold different arrays ([{}] and [{}]), not one array laid out twice: the "
        "op was built with one shape and came out of the optimizer with another, a bug in the "
        "lowering that built it (pytorch/xla#6090: a reduce whose result came out transposed)",
        fmt::join(expected.dimensions, ","), fmt::join(actual.dimensions, ",")));
    m.fixes.push_back(
        "update the framework whose lowering builds this op, or write the computation another way "
        "(reduce over the dimensions in another order); report it with the HLO dump "
        "(XLA_FLAGS=--xla_dump_to=DIR)");
    return;
  }
  int64_t elements = 1;
  for (int64_t d : expected.dimensions) elements *= d;
  for (const explain::LayoutDifference& d : m.differences) {
    if (d.what == "tiles" && elements == 0) {
      m.causes.push_back(fmt::format(
          "the operand has no elements ({}): XLA does not tile an array without elements, the "
          "kernel declares the tiles anyway; the layouts hold the same nothing. Usually a split "
          "or batch that came out empty (a tensor-parallel shard, an empty list of requests)",
          m.shape));
      m.fixes.push_back(
          "do not pass an empty array to the kernel: skip the call when the size is 0, or pad "
          "the operand to at least one element");
    } else if (d.what == "tiles") {
      m.causes.push_back(fmt::format(
          "the kernel was compiled for tiles {} but XLA gave the operand {}: XLA chooses tiles "
          "from the array's own shape, the kernel from how it declares the operand (its block "
          "shape and memory space)",
          d.a, d.b));
      m.fixes.push_back(
          "declare the operand so its tiles follow XLA's: a block whose last two dimensions are "
          "multiples of the tile (or the whole array), or take it in HBM (memory_space=pl.ANY) "
          "and copy it in inside the kernel");
    } else if (d.what == "memory_space") {
      m.causes.push_back(fmt::format(
          "one side says memory space {}, the other {}: the kernel expects the operand in another "
          "memory than the one it arrives in (on TPU S(1) is on-chip memory)",
          d.a, d.b));
      m.fixes.push_back("set the operand's memory space in its BlockSpec to where it is placed");
    } else if (d.what == "order") {
      m.causes.push_back(fmt::format(
          "the kernel expects dimension order {} but XLA chose {} for this array (XLA reorders "
          "arrays whose last dimension is small)",
          d.a, d.b));
      m.fixes.push_back(
          "fix the array's layout for the call (jax.jit with in_shardings=Format(Layout("
          "major_to_minor=...))), or reshape it so its largest dimension is last");
    }
  }
}

// `walk_budget`: elements left for counting moved elements one by one over the whole text
// (layouts without a common refinement), so that a log of many such lines stays bounded.
void decode(LayoutMismatch& m, int64_t& walk_budget) {
  try {
    const xla::Shape expected = xla::parse_shape(m.expected.layout);
    const xla::Shape actual = xla::parse_shape(m.actual.layout);
    describe(m.expected, expected);
    describe(m.actual, actual);
    m.differences = explain::notation_differences(expected, actual);
    if (expected.element_type != actual.element_type) {
      // Another element type, not another width of one: f32 -> bf16 is not "element_bits".
      std::erase_if(m.differences,
                    [](const explain::LayoutDifference& d) { return d.what == "element_bits"; });
      m.differences.insert(m.differences.begin(),
                           {"element_type", std::string(element_type_name(expected.element_type)),
                            std::string(element_type_name(actual.element_type)),
                            "the arrays hold different element types"});
    }
    if (expected.dimensions != actual.dimensions) {
      m.differences.insert(
          m.differences.begin(),
          {"dims", fmt::format("[{}]", fmt::join(expected.dimensions, ",")),
           fmt::format("[{}]", fmt::join(actual.dimensions, ",")), "the arrays themselves differ"});
    } else if (expected.element_type == actual.element_type) {
      try {
        m.diff = explain::diff_layouts(m.expected.layout, m.actual.layout,
                                       {.tile_summary = false, .walk_limit = walk_budget});
        if (m.diff->moved.method.starts_with("element by element"))
          walk_budget -= m.diff->moved.elements;
      } catch (const Error& error) {
        // Past the bound the count is not made: the mismatch is still explained, without it.
        if (error.kind() != ErrorKind::kUnsupported) throw;
      }
    }
    explain_causes(m, expected, actual);
  } catch (const Error& error) {
    m.error = error.message();
  }
}

}  // namespace

std::vector<LayoutMismatch> find_layout_mismatches(std::string_view bytes) {
  std::string decoded;
  const std::string_view text = utf8_view(bytes, decoded);
  std::vector<LayoutMismatch> out;
  int64_t number = 0;  // lines as the readers see them (an escaped message's count one each)
  int64_t walk_budget = kMismatchWalkElements;
  // One line at a time: memory follows the mismatches found, not the lines of the text.
  for_each_input_line(text, [&](std::string_view line, int64_t) {
    ++number;
    LayoutMismatch m;
    if (out.size() >= kMaxInputArrays || !recognise(line, m)) return;
    m.message = std::string(trim(line));
    m.line = number;
    m.operand = operand_number(line);
    decode(m, walk_budget);
    out.push_back(std::move(m));
  });
  return out;
}

namespace {

nlohmann::ordered_json side_json(const MismatchSide& side) {
  return {{"role", side.role},
          {"layout", side.layout},
          {"size_bytes", side.size_bytes},
          {"padding_bytes", side.padding_bytes},
          {"tiles", side.tiles},
          {"memory_space", side.memory_space},
          {"minor_to_major", side.minor_to_major}};
}

}  // namespace

nlohmann::ordered_json mismatches_json(const std::vector<LayoutMismatch>& mismatches) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const LayoutMismatch& m : mismatches) {
    nlohmann::ordered_json item = {{"message", m.message},
                                   {"line", m.line},
                                   {"source", m.source},
                                   {"operand", m.operand ? nlohmann::ordered_json(*m.operand)
                                                         : nlohmann::ordered_json(nullptr)},
                                   {"shape", m.shape},
                                   {"expected", side_json(m.expected)},
                                   {"actual", side_json(m.actual)},
                                   {"differences", explain::differences_json(m.differences)}};
    item["moved_elements"] = m.diff ? nlohmann::ordered_json(m.diff->moved.moved) : nullptr;
    item["elements"] = m.diff ? nlohmann::ordered_json(m.diff->moved.elements) : nullptr;
    if (m.diff) {
      item["relayout"] = {{"bytes_read", m.diff->cost.bytes_read},
                          {"bytes_written", m.diff->cost.bytes_written},
                          {"seconds", m.diff->cost.seconds},
                          {"basis", m.diff->cost.basis}};
    } else {
      item["relayout"] = nullptr;
    }
    item["causes"] = m.causes;
    item["fixes"] = m.fixes;
    item["error"] = m.error;
    list.push_back(std::move(item));
  }
  return {{"mismatches", list}};
}

void write_input_report_json(const std::function<void(std::string_view)>& write,
                             std::string_view text, const InputExplanation& e,
                             const nlohmann::ordered_json& extra) {
  nlohmann::ordered_json keys = {
      {"layout_mismatches", mismatches_json(find_layout_mismatches(text))["mismatches"]}};
  for (const auto& [key, value] : extra.items()) keys[key] = value;
  write_input_explanation_json(write, e, keys);
}

nlohmann::ordered_json input_report_json(std::string_view text, const InputOptions& options) {
  std::string json;
  write_input_report_json([&](std::string_view part) { json += part; }, text,
                          explain_input(read_input(text), options),
                          {{"memory_analysis", memory_analysis_json(text, "", options.target)}});
  return nlohmann::ordered_json::parse(json);
}

std::string mismatches_text(const std::vector<LayoutMismatch>& mismatches) {
  if (mismatches.empty()) return "no layout-mismatch error found in the text\n";
  std::string out;
  for (const LayoutMismatch& m : mismatches) {
    out += fmt::format("line {}: {}{}\n", m.line,
                       m.source == "mosaic_operand"    ? "Mosaic's operand check"
                       : m.source == "xla_shape_check" ? "XLA's shape check"
                                                       : "a layout mismatch",
                       m.operand ? fmt::format(", kernel operand {}", *m.operand) : "");
    for (const MismatchSide* side : {&m.expected, &m.actual}) {
      out += fmt::format("  {:<9}{:<36} {}, padding {} ({})\n",
                         side == &m.expected ? "expected" : "actual", side->layout,
                         explain::human_bytes(side->size_bytes),
                         explain::human_bytes(side->padding_bytes), side->role);
    }
    if (!m.error.empty()) out += "  cannot read the layouts: " + m.error + "\n";
    for (const explain::LayoutDifference& d : m.differences) {
      out += fmt::format("  {:<14}{} -> {}\n", d.what, d.a, d.b);
    }
    if (m.diff) {
      out += fmt::format("  a relayout between them moves {} of {} elements ({})\n",
                         m.diff->moved.moved, m.diff->moved.elements,
                         m.diff->cost.basis.substr(0, m.diff->cost.basis.find(':')));
    }
    for (const std::string& cause : m.causes) out += "  cause: " + cause + "\n";
    for (const std::string& fix : m.fixes) out += "  fix: " + fix + "\n";
  }
  return out;
}

}  // namespace tessera::inputs
