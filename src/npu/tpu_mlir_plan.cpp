#include "tessera/npu/tpu_mlir_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/npu/local_plan.h"
#include "tessera/regular_file.h"
#include "tessera/utf8_text.h"

namespace tessera::npu {
namespace {

// Errors name the line and the field; the text quoted is made printable (the file is untrusted).
[[noreturn]] void fail(int64_t line, std::string_view field, const std::string& what) {
  throw Error(ErrorKind::kSyntax, fmt::format("line {}: field '{}': {}", line, field, what));
}

int64_t integer(std::string_view text, int64_t line, std::string_view field) {
  const std::string_view t = trim(text);
  if (t.empty()) fail(line, field, "a number is missing");
  try {
    return parse_integer(t, "value", printable_utf8(std::string(t.substr(0, 40))));
  } catch (const Error& e) {
    fail(line, field, e.message());
  }
}

// "[1, 2, 3]" (the brackets included) -> {1, 2, 3}.
std::vector<int64_t> integer_list(std::string_view text, int64_t line, std::string_view field) {
  const std::string_view t = trim(text);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') {
    fail(line, field, "expected a list [a, b, ...]");
  }
  std::vector<int64_t> values;
  std::string_view rest = t.substr(1, t.size() - 2);
  if (trim(rest).empty()) return values;
  while (true) {
    const std::size_t comma = rest.find(',');
    values.push_back(integer(rest.substr(0, comma), line, field));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return values;
}

// The text between `open` at `start` and its matching `close`, nested pairs skipped.
std::string_view enclosed(std::string_view text, std::size_t start, char open, char close,
                          int64_t line, std::string_view field) {
  int depth = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == open) ++depth;
    if (text[i] == close && --depth == 0) return text.substr(start + 1, i - start - 1);
  }
  fail(line, field, fmt::format("'{}' is not closed by '{}' on this line", open, close));
}

// Splits "a = 1, b = [2, 3], c = true" at the commas outside brackets and angle brackets.
std::vector<std::string_view> top_level_items(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[' || c == '<' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == '>' || c == ')' || c == '}') --depth;
    if (c == ',' && depth <= 0) {
      if (!trim(text.substr(start, i - start)).empty()) {
        items.push_back(trim(text.substr(start, i - start)));
      }
      start = i + 1;
    }
  }
  return items;
}

// "key = value" -> (key, value), a trailing ": i64" type dropped from scalars.
std::pair<std::string_view, std::string_view> key_value(std::string_view item, int64_t line) {
  const std::size_t equals = item.find(" = ");
  if (equals == std::string_view::npos) {
    fail(line, printable_utf8(std::string(item.substr(0, 40))), "expected 'key = value'");
  }
  std::string_view value = trim(item.substr(equals + 3));
  if (!value.empty() && value.front() != '[') {
    const std::size_t colon = value.find(" : ");
    if (colon != std::string_view::npos) value = trim(value.substr(0, colon));
  }
  return {trim(item.substr(0, equals)), value};
}

TpuMlirLocalInfo parse_local_info(std::string_view body, int64_t line) {
  TpuMlirLocalInfo info;
  std::set<std::string, std::less<>> seen;
  for (const std::string_view item : top_level_items(body)) {
    // Not a structured binding: clang 14 refuses capturing one in the lambdas below.
    const std::pair<std::string_view, std::string_view> field = key_value(item, line);
    const std::string_view key = field.first;
    const std::string_view value = field.second;
    if (!seen.insert(std::string(key)).second) {
      fail(line, printable_utf8(std::string(key)), "given twice");
    }
    const auto number = [&](int64_t& out) { out = integer(value, line, key); };
    const auto list = [&](std::vector<int64_t>& out) { out = integer_list(value, line, key); };
    if (key == "out_addr")
      number(info.out_addr);
    else if (key == "out_size")
      number(info.out_size);
    else if (key == "buffer_addr")
      number(info.buffer_addr);
    else if (key == "buffer_size")
      number(info.buffer_size);
    else if (key == "id")
      number(info.id);
    else if (key == "stage")
      number(info.stage);
    else if (key == "group_type")
      number(info.group_type);
    else if (key == "n_idx")
      list(info.n_idx);
    else if (key == "n_slice")
      list(info.n_slice);
    else if (key == "c_idx")
      list(info.c_idx);
    else if (key == "c_slice")
      list(info.c_slice);
    else if (key == "d_idx")
      list(info.d_idx);
    else if (key == "d_slice")
      list(info.d_slice);
    else if (key == "h_idx")
      list(info.h_idx);
    else if (key == "h_slice")
      list(info.h_slice);
    else if (key == "w_idx")
      list(info.w_idx);
    else if (key == "w_slice")
      list(info.w_slice);
    else if (key == "eu_align") {
      if (value != "true" && value != "false") fail(line, key, "expected true or false");
      info.eu_align = value == "true";
    }
    // Other fields (slice_idx, can_merge, in_hslice_offset, ...) do not place anything.
  }
  for (const char* required : {"out_addr", "out_size", "id"}) {
    if (!seen.contains(required)) fail(line, required, "missing from #tpu.lg<...>");
  }
  const auto check_slices = [&](std::vector<int64_t>& slices, const std::vector<int64_t>& idx,
                                const char* name) {
    if (slices.empty()) slices = {1};  // a dim the op does not slice
    if (!idx.empty() && idx.size() != slices.size()) {
      fail(line, name, "has another length than its _idx list");
    }
    for (const int64_t s : slices) {
      if (s < 1) fail(line, name, fmt::format("a slice of {} elements", s));
    }
  };
  check_slices(info.n_slice, info.n_idx, "n_slice");
  check_slices(info.c_slice, info.c_idx, "c_slice");
  check_slices(info.d_slice, info.d_idx, "d_slice");
  check_slices(info.h_slice, info.h_idx, "h_slice");
  check_slices(info.w_slice, info.w_idx, "w_slice");
  for (const auto& [value, name] : {std::pair{info.out_addr, "out_addr"},
                                    {info.out_size, "out_size"},
                                    {info.buffer_addr, "buffer_addr"},
                                    {info.buffer_size, "buffer_size"}}) {
    if (value < 0) fail(line, name, fmt::format("negative ({})", value));
  }
  return info;
}

// tpu-mlir's element types as tessera names them; a quantized type by its storage type.
std::string element_type(std::string_view text, int64_t line) {
  std::string_view t = trim(text);
  for (const std::string_view prefix : {"!quant.uniform<", "!quant.calibrated<"}) {
    if (t.starts_with(prefix)) {
      t = t.substr(prefix.size());
      t = t.substr(0, std::min(t.find(':'), t.find('<')));
      break;
    }
  }
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"f32", "f32"},      {"f16", "f16"},  {"bf16", "bf16"}, {"i8", "s8"},
      {"si8", "s8"},       {"ui8", "u8"},   {"u8", "u8"},     {"u16", "u16"},
      {"u32", "u32"},      {"i16", "s16"},  {"si16", "s16"},  {"ui16", "u16"},
      {"i32", "s32"},      {"si32", "s32"}, {"ui32", "u32"},  {"f8E4M3FN", "f8e4m3fn"},
      {"f8E5M2", "f8e5m2"}};
  for (const auto& [mlir, name] : kNames) {
    if (t == mlir) return std::string(name);
  }
  fail(line, "result type",
       fmt::format("element type '{}' is not one tessera places",
                   printable_utf8(std::string(t.substr(0, 40)))));
}

// "tensor<1x64x56x56xf32>" (also with a ", 4294967296 : i64" address) -> shape and dtype.
void parse_tensor_type(std::string_view text, int64_t line, TpuMlirGroupOp& op) {
  const std::size_t start = text.find("tensor<");
  if (start == std::string_view::npos) fail(line, "result type", "expected tensor<...>");
  std::string_view body = enclosed(text, start + 6, '<', '>', line, "result type");
  while (!body.empty() && std::isdigit(static_cast<unsigned char>(body.front()))) {
    const std::size_t x = body.find('x');
    if (x == std::string_view::npos) break;
    const int64_t dim = integer(body.substr(0, x), line, "result type");
    if (dim < 1) fail(line, "result type", fmt::format("a dimension of {}", dim));
    op.shape.push_back(dim);
    body = body.substr(x + 1);
  }
  const std::vector<std::string_view> parts = top_level_items(body);
  op.dtype = element_type(parts.empty() ? body : parts.front(), line);
  op.global_result = parts.size() > 1;
}

TpuMlirGroupOp parse_group_op(std::string_view text, std::size_t lg, int64_t line) {
  TpuMlirGroupOp op;
  op.line = line;
  const std::string_view t = trim(text);
  const std::size_t quote = t.find('"');
  if (quote == std::string_view::npos) fail(line, "op", "expected \"dialect.Op\"(...)");
  if (t.starts_with('%')) {
    const std::size_t end = t.find_first_of(" :=");
    op.value = printable_utf8(t.substr(0, end));  // names go into reports and pictures
  }
  const std::size_t name_end = t.find('"', quote + 1);
  if (name_end == std::string_view::npos) fail(line, "op", "the op name is not closed");
  op.op = printable_utf8(std::string(t.substr(quote + 1, name_end - quote - 1)));
  if (name_end + 1 < t.size() && t[name_end + 1] == '(') {
    const std::string_view operands = enclosed(t, name_end + 1, '(', ')', line, "operands");
    for (const std::string_view item : top_level_items(operands)) {
      op.operands.push_back(printable_utf8(std::string(item)));
    }
  }
  const std::string_view lg_body = enclosed(text, lg + 7, '<', '>', line, "ginfo");
  op.info = parse_local_info(lg_body, line);
  const std::size_t arrow = text.rfind(") -> ");
  if (arrow == std::string_view::npos) fail(line, "result type", "no '-> type' after the op");
  parse_tensor_type(text.substr(arrow + 5), line, op);
  return op;
}

// The attributes on the line that closes a group's region: "}) {flow = [...], nsecs = 1 : i64}".
void parse_group_attributes(std::string_view text, int64_t line, TpuMlirGroup& group) {
  const std::size_t open = text.find('{');
  if (open == std::string_view::npos) fail(line, "flow", "the group's attributes are missing");
  bool has_flow = false;
  for (const std::string_view item : top_level_items(enclosed(text, open, '{', '}', line, "{"))) {
    const auto [key, value] = key_value(item, line);
    if (key == "flow") {
      has_flow = true;
      for (const int64_t id : integer_list(value, line, "flow")) {
        if (id < 0) {
          if (id != -static_cast<int64_t>(group.flow.size()) - 1) {
            fail(line, "flow", fmt::format("timestep mark {} out of order", id));
          }
          group.flow.emplace_back();
        } else if (group.flow.empty()) {
          fail(line, "flow", "an op id before the first timestep mark -1");
        } else {
          group.flow.back().push_back(id);
        }
      }
    } else if (key == "nsecs")
      group.nsecs = integer(value, line, key);
    else if (key == "csecs")
      group.csecs = integer(value, line, key);
    else if (key == "dsecs")
      group.dsecs = integer(value, line, key);
    else if (key == "hsecs")
      group.hsecs = integer(value, line, key);
    else if (key == "wsecs")
      group.wsecs = integer(value, line, key);
    else if (key == "swpipl_stage_num")
      group.swpipl_stage_num = integer(value, line, key);
  }
  if (!has_flow) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("line {}: field 'flow': the group has no timesteps", line));
  }
}

// `flow_line`: the line closing the group, where its flow is.
void check_group(const TpuMlirGroup& group, int64_t flow_line) {
  std::set<int64_t> ids;
  for (const TpuMlirGroupOp& op : group.ops) {
    if (!ids.insert(op.info.id).second) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("line {}: field 'id': op id {} is given twice in the group", op.line,
                              op.info.id));
    }
  }
  for (const auto& step : group.flow) {
    for (const int64_t id : step) {
      if (!ids.contains(id)) {
        throw Error(ErrorKind::kInvalid,
                    fmt::format("line {}: field 'flow': names op id {}, which the group does not "
                                "have",
                                flow_line, id));
      }
    }
  }
}

bool is_op_line(std::string_view t) {
  const std::size_t quote = t.find('"');
  return quote != std::string_view::npos &&
         (t.substr(quote).starts_with("\"tpu.") || t.substr(quote).starts_with("\"top.")) &&
         (t.starts_with('%') || t.starts_with('"'));
}

}  // namespace

bool looks_like_tpu_mlir(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  return head.find("module") != std::string_view::npos &&
         (text.find("\"tpu.") != std::string_view::npos ||
          text.find("module.chip") != std::string_view::npos);
}

TpuMlirModule parse_tpu_mlir_plan(std::string_view text) {
  if (static_cast<int64_t>(text.size()) > kMaxTpuMlirPlanBytes) {
    throw Error(ErrorKind::kOutOfRange,
                fmt::format("the file has {} bytes; tessera reads tpu-mlir plans of at most {}",
                            text.size(), kMaxTpuMlirPlanBytes));
  }
  TpuMlirModule module;
  std::optional<TpuMlirGroup> group;
  int64_t line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view row = text.substr(start, end - start);
    start = end + 1;
    ++line;
    const std::string_view t = trim(row);
    if (module.chip.empty()) {
      const std::size_t chip = row.find("module.chip = \"");
      if (chip != std::string_view::npos) {
        const std::string_view rest = row.substr(chip + 15);
        const std::size_t close = rest.find('"');
        if (close == std::string_view::npos || close == 0 || close > 32) {
          fail(line, "module.chip", "expected a chip name in quotes");
        }
        for (const char c : rest.substr(0, close)) {
          module.chip += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        module.chip = printable_utf8(module.chip);
      }
    }
    if (row.find("\"tpu.Group\"(") != std::string_view::npos) {
      if (group) fail(line, "tpu.Group", "a group inside a group");
      group.emplace();
      group->line = line;
      if (t.starts_with('%')) group->value = printable_utf8(t.substr(0, t.find_first_of(" :=")));
      continue;
    }
    if (!group) {
      if (is_op_line(t)) ++module.ops_outside_groups;
      continue;
    }
    if (t.starts_with("})")) {
      parse_group_attributes(t, line, *group);
      check_group(*group, line);
      module.groups.push_back(std::move(*group));
      group.reset();
      continue;
    }
    const std::size_t lg = row.find("#tpu.lg<");
    if (lg != std::string_view::npos) {
      group->ops.push_back(parse_group_op(row, lg, line));
    } else if (is_op_line(t)) {
      ++group->other_ops;
    }
  }
  if (group) fail(group->line, "tpu.Group", "the group's region is not closed");
  if (module.chip.empty()) {
    throw Error(ErrorKind::kInvalid,
                "field 'module.chip': the module does not say which chip it is for");
  }
  return module;
}

bool is_tpu_mlir_plan_file(const std::string& path) {
  if (path.ends_with(".mlir")) return true;
  try {
    return looks_like_tpu_mlir(read_regular_file(path, kMaxPlanFileBytes));
  } catch (const Error&) {
    return false;
  }
}

TpuMlirModule read_tpu_mlir_plan(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxTpuMlirPlanBytes);
  try {
    return parse_tpu_mlir_plan(text);
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("tpu-mlir plan '{}': {}", printable_utf8(path), e.message()));
  }
}

}  // namespace tessera::npu
