#include "tessera/npu/local_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "tessera/error.h"
#include "tessera/integer_text.h"
#include "tessera/regular_file.h"
#include "tessera/strict_json.h"
#include "tessera/utf8_text.h"

namespace tessera::npu {
namespace {

using Json = nlohmann::json;

bool lower_equals(std::string_view text, std::string_view word) {
  return text.size() == word.size() &&
         std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

// Runs `body`; a tessera::Error leaves it with `where` in front of its message.
template <typename Body>
auto named(const std::string& where, Body body) {
  try {
    return body();
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("{}: {}", where, e.message()));
  }
}

std::string tensor_where(const std::string& name, std::string_view field) {
  return field.empty() ? fmt::format("tensor '{}'", name)
                       : fmt::format("tensor '{}', field '{}'", name, field);
}

// A field given as text or as an integer, as the text the NPU parsers take.
std::string scalar_text(const Json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return value.dump();
  throw Error(ErrorKind::kInvalid,
              fmt::format("{}: must be a string or an integer, not {}", where, value.type_name()));
}

// [1,6,2,8] or "1,6,2,8" -> "1,6,2,8".
std::string shape_text(const Json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{}: must be a list [N,C,H,W], not {}", where, value.type_name()));
  }
  std::vector<std::string> parts;
  for (const Json& item : value) parts.push_back(scalar_text(item, where));
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string device_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_object()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("field 'device': must be a preset name, 'npus=..,lmem=..,align=..' "
                            "or an object, not {}",
                            value.type_name()));
  }
  std::vector<std::string> items;
  for (const auto& [key, item] : value.items()) {
    items.push_back(fmt::format("{}={}", key, scalar_text(item, "field 'device." + key + "'")));
  }
  return fmt::format("{}", fmt::join(items, ","));
}

void refuse_unknown_fields(const Json& object, std::initializer_list<std::string_view> known,
                           const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw Error(ErrorKind::kInvalid, fmt::format("{}: unknown field '{}' (known: {})", where, key,
                                                   fmt::join(known, ", ")));
    }
  }
}

std::vector<std::string> name_list(const Json& value, const std::string& where) {
  if (!value.is_array()) {
    throw Error(ErrorKind::kInvalid, fmt::format("{}: must be a list of tensor names", where));
  }
  std::vector<std::string> names;
  for (const Json& item : value) {
    if (!item.is_string()) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("{}: {} is not a tensor name", where, item.dump()));
    }
    names.push_back(item.get<std::string>());
  }
  return names;
}

// Names go into reports, pictures (XML allows no control character at all) and JSON (which needs
// UTF-8), so a name must print as it is ("a\u0001b" made an SVG that was not XML).
std::string printable_name(const Json& object, const std::string& where) {
  if (!object.contains("name") || !object["name"].is_string() ||
      object["name"].get<std::string>().empty()) {
    throw Error(ErrorKind::kInvalid, fmt::format("{}: needs a 'name' (a non-empty string)", where));
  }
  std::string name = object["name"].get<std::string>();
  if (const std::string why = unprintable_reason(name); !why.empty()) {
    throw Error(ErrorKind::kInvalid, fmt::format("{}: the name '{}' cannot be printed as it is: {}",
                                                 where, printable_utf8(name), why));
  }
  return name;
}

PlanTensor parse_tensor(const Json& object, const std::string& device, std::size_t position) {
  if (!object.is_object()) {
    throw Error(ErrorKind::kInvalid, fmt::format("tensors[{}]: must be an object, not {}", position,
                                                 object.type_name()));
  }
  PlanTensor t;
  t.name = printable_name(object, fmt::format("tensors[{}]", position));
  refuse_unknown_fields(object,
                        {"name", "shape", "rows", "cols", "w", "dtype", "layout", "mode", "address",
                         "gdma_row_stride"},
                        tensor_where(t.name, ""));
  const auto text = [&](const char* field, bool required) -> std::optional<std::string> {
    if (!object.contains(field)) {
      if (!required) return std::nullopt;
      throw Error(ErrorKind::kInvalid, fmt::format("{}: missing", tensor_where(t.name, field)));
    }
    const std::string where = tensor_where(t.name, field);
    return std::string(field) == "shape" ? shape_text(object[field], where)
                                         : scalar_text(object[field], where);
  };
  t.tensor.device = device;
  t.tensor.dtype = *text("dtype", true);
  t.tensor.address = *text("address", true);
  t.auto_address = lower_equals(trim(t.tensor.address), "auto");
  if (const auto layout = text("layout", false)) t.tensor.layout = *layout;
  if (const auto mode = text("mode", false)) t.tensor.mode = *mode;
  if (object.contains("gdma_row_stride")) {
    if (!object["gdma_row_stride"].is_boolean()) {
      throw Error(ErrorKind::kInvalid, fmt::format("{}: must be true or false",
                                                   tensor_where(t.name, "gdma_row_stride")));
    }
    t.tensor.gdma_row_stride = object["gdma_row_stride"].get<bool>();
  }
  const bool matrix_form = object.contains("rows") || object.contains("cols");
  if (matrix_form == object.contains("shape")) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("{}: give either 'shape' [N,C,H,W] or 'rows' and 'cols' (a matrix)",
                            tensor_where(t.name, "")));
  }
  if (matrix_form) {
    if (object.contains("layout") || object.contains("mode")) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("{}: a matrix is always aligned with no storage mode; drop "
                              "'layout' and 'mode'",
                              tensor_where(t.name, "")));
    }
    MatrixArguments m;
    m.device = device;
    m.rows = *text("rows", true);
    m.columns = *text("cols", true);
    m.dtype = t.tensor.dtype;
    m.address = t.tensor.address;
    m.gdma_row_stride = t.tensor.gdma_row_stride;
    const std::string width = text("w", true).value();
    if (lower_equals(trim(width), "best")) {
      m.best_width = true;
    } else {
      m.width = width;
    }
    t.matrix = m;
  } else {
    t.tensor.shape = *text("shape", true);
    if (object.contains("w")) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("{}: 'w' belongs to the matrix form (rows, cols, w)",
                              tensor_where(t.name, "")));
    }
  }
  // Each field through its own parser first, so an error names the field.
  const auto check_field = [&](const char* field, auto parse) {
    named(tensor_where(t.name, field), parse);
  };
  check_field("dtype", [&] { return parse_npu_element_type(t.tensor.dtype); });
  if (!t.auto_address) check_field("address", [&] { return parse_address(t.tensor.address); });
  if (t.matrix) {
    check_field("rows", [&] { return parse_address(t.matrix->rows, "rows"); });
    check_field("cols", [&] { return parse_address(t.matrix->columns, "cols"); });
    if (t.matrix->width) check_field("w", [&] { return parse_address(*t.matrix->width, "w"); });
  } else {
    check_field("shape", [&] { return parse_tensor_shape(t.tensor.shape); });
    check_field("layout", [&] { return parse_layout(t.tensor.layout); });
    check_field("mode", [&] { return parse_storage_mode(t.tensor.mode); });
  }
  return t;
}

PlanOp parse_op(const Json& object, const std::set<std::string>& names, std::size_t position) {
  if (!object.is_object()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("ops[{}]: must be an object with a 'name' (a string)", position));
  }
  PlanOp op;
  op.name = printable_name(object, fmt::format("ops[{}]", position));
  const std::string where = fmt::format("op '{}'", op.name);
  refuse_unknown_fields(object, {"name", "reads", "writes"}, where);
  if (object.contains("reads")) op.reads = name_list(object["reads"], where + ", field 'reads'");
  if (object.contains("writes")) {
    op.writes = name_list(object["writes"], where + ", field 'writes'");
  }
  for (const auto* list : {&op.reads, &op.writes}) {
    for (const std::string& name : *list) {
      if (!names.contains(name)) {
        throw Error(
            ErrorKind::kInvalid,
            fmt::format("{}: names tensor '{}', which the plan does not have", where, name));
      }
    }
  }
  return op;
}

std::vector<std::vector<std::string>> parse_timesteps(const Json& list,
                                                      const std::set<std::string>& names) {
  if (!list.is_array() || list.empty()) {
    throw Error(ErrorKind::kInvalid,
                "plan: field 'timesteps' must be a non-empty list of lists of tensor names");
  }
  std::vector<std::vector<std::string>> timesteps;
  for (std::size_t step = 0; step < list.size(); ++step) {
    const std::string where = fmt::format("timesteps[{}]", step);
    timesteps.push_back(name_list(list[step], where));
    for (const std::string& name : timesteps.back()) {
      if (!names.contains(name)) {
        throw Error(
            ErrorKind::kInvalid,
            fmt::format("{}: names tensor '{}', which the plan does not have", where, name));
      }
    }
  }
  return timesteps;
}

}  // namespace

LocalTensor make_plan_tensor(const LocalPlan& plan, const PlanTensor& tensor,
                             std::optional<int64_t> address) {
  (void)plan;
  const std::string address_text = address ? std::to_string(*address) : tensor.tensor.address;
  if (!address && tensor.auto_address) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("tensor '{}' has address auto: place the plan first", tensor.name));
  }
  if (tensor.matrix) {
    MatrixArguments m = *tensor.matrix;
    m.address = address_text;
    return make_matrix_layout(m).tensor();
  }
  TensorArguments t = tensor.tensor;
  t.address = address_text;
  return make_local_tensor(t);
}

LocalPlan parse_local_plan(const Json& plan) {
  if (!plan.is_object()) {
    throw Error(ErrorKind::kInvalid,
                fmt::format("a plan is a JSON object with 'device' and 'tensors', not {}",
                            plan.type_name()));
  }
  refuse_unknown_fields(plan, {"device", "tensors", "ops", "timesteps"}, "plan");
  if (!plan.contains("device")) throw Error(ErrorKind::kInvalid, "plan: missing field 'device'");
  if (!plan.contains("tensors") || !plan["tensors"].is_array() || plan["tensors"].empty()) {
    throw Error(ErrorKind::kInvalid, "plan: field 'tensors' must be a non-empty list");
  }
  LocalPlan out;
  out.device_text = device_text(plan["device"]);
  out.device = named("field 'device'", [&] { return parse_device(out.device_text); });
  out.device_text = format_device(out.device);
  std::set<std::string> names;
  std::size_t position = 0;
  for (const Json& object : plan["tensors"]) {
    PlanTensor t = parse_tensor(object, out.device_text, position++);
    if (!names.insert(t.name).second) {
      throw Error(ErrorKind::kInvalid, fmt::format("tensor '{}' is named twice", t.name));
    }
    // Validate now so that every later step can build it: auto tensors at address 0.
    const std::optional<int64_t> address =
        t.auto_address ? std::optional<int64_t>(0) : std::nullopt;
    named(tensor_where(t.name, ""), [&] { return make_plan_tensor(out, t, address); });
    out.tensors.push_back(std::move(t));
  }
  if (plan.contains("ops")) {
    if (!plan["ops"].is_array())
      throw Error(ErrorKind::kInvalid, "plan: field 'ops' must be a list");
    position = 0;
    for (const Json& object : plan["ops"]) out.ops.push_back(parse_op(object, names, position++));
  }
  if (plan.contains("timesteps")) out.timesteps = parse_timesteps(plan["timesteps"], names);
  return out;
}

LocalPlan parse_local_plan_text(std::string_view text) {
  return parse_local_plan(parse_strict_json(text, "the plan"));
}

LocalPlan read_local_plan(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxPlanFileBytes);
  return named(fmt::format("plan '{}'", path), [&] { return parse_local_plan_text(text); });
}

nlohmann::ordered_json local_plan_json(const LocalPlan& plan) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  const auto number_or_text = [](const std::string& text) -> nlohmann::ordered_json {
    if (lower_equals(trim(text), "auto") || lower_equals(trim(text), "best")) {
      return std::string(trim(text));
    }
    return parse_integer(text, "value");
  };
  for (const PlanTensor& t : plan.tensors) {
    nlohmann::ordered_json object = {{"name", t.name}};
    if (t.matrix) {
      object["rows"] = number_or_text(t.matrix->rows);
      object["cols"] = number_or_text(t.matrix->columns);
      object["w"] =
          t.matrix->best_width ? nlohmann::ordered_json("best") : number_or_text(*t.matrix->width);
    } else {
      const TensorShape shape = parse_tensor_shape(t.tensor.shape);
      object["shape"] = shape;
    }
    object["dtype"] = t.tensor.dtype;
    if (!t.matrix) {
      object["layout"] = t.tensor.layout;
      object["mode"] = t.tensor.mode;
    }
    object["address"] = number_or_text(t.tensor.address);
    if (t.tensor.gdma_row_stride) object["gdma_row_stride"] = true;
    tensors.push_back(std::move(object));
  }
  nlohmann::ordered_json out = {{"device", plan.device_text}, {"tensors", tensors}};
  if (!plan.ops.empty()) {
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (const PlanOp& op : plan.ops) {
      ops.push_back({{"name", op.name}, {"reads", op.reads}, {"writes", op.writes}});
    }
    out["ops"] = ops;
  }
  if (!plan.timesteps.empty()) out["timesteps"] = plan.timesteps;
  return out;
}

namespace {

// "a:k=v:k=v" -> name "a" and the pairs; values keep their commas.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_spec(
    std::string_view text, std::string_view what) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(':', start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const std::string name(trim(parts.front()));
  if (name.empty() || name.find('=') != std::string::npos) {
    throw Error(ErrorKind::kSyntax,
                fmt::format("{} '{}' must start with a name: NAME:key=value:...", what, text));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string_view::npos) {
      throw Error(ErrorKind::kSyntax,
                  fmt::format("{} '{}': item '{}' is not key=value", what, text, parts[i]));
    }
    pairs.emplace_back(std::string(trim(parts[i].substr(0, equals))),
                       std::string(trim(parts[i].substr(equals + 1))));
  }
  return {name, pairs};
}

}  // namespace

Json parse_tensor_spec(std::string_view text) {
  auto [name, pairs] = split_spec(text, "--tensor");
  Json object = {{"name", name}};
  for (auto& [key, value] : pairs) {
    if (object.contains(key)) {
      throw Error(ErrorKind::kInvalid,
                  fmt::format("--tensor '{}': key '{}' is given twice", text, key));
    }
    if (key == "gdma_row_stride") {
      object[key] = value == "true" || value == "1";
    } else {
      object[key] = value;  // the plan parser checks keys and values
    }
  }
  return object;
}

Json parse_op_spec(std::string_view text) {
  auto [name, pairs] = split_spec(text, "--op");
  Json object = {{"name", name}};
  for (auto& [key, value] : pairs) {
    Json names = Json::array();
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t end = std::min(value.find(',', start), value.size());
      const std::string item(trim(std::string_view(value).substr(start, end - start)));
      if (!item.empty()) names.push_back(item);
      start = end + 1;
    }
    object[key] = names;
  }
  return object;
}

}  // namespace tessera::npu
