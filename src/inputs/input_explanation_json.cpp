// The input report as JSON (input_explanation.h), as one tree or written array by array.
#include <nlohmann/json.hpp>
#include <functional>
#include <string_view>
#include <string>

#include "tessera/explain/xla_sizes.h"
#include "tessera/inputs/input_explanation.h"

namespace tessera::inputs {
namespace {

using Json = nlohmann::ordered_json;

Json array_json(const ArrayExplanation& a) {
  Json fixes = Json::array();
  for (const auto& f : a.fixes) fixes.push_back(explain::program_fix_json(f));
  Json item;
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
  item["suggestions"] = std::move(fixes);
  item["report"] = {{"size", a.input.reported_size},
                    {"unpadded_size", a.input.reported_unpadded},
                    {"padding", a.input.reported_padding}};
  item["tessera_text"] = {{"size", explain::xla_size_text(a.size_bytes)},
                          {"unpadded_size", explain::xla_size_text(a.unpadded_bytes)}};
  item["disagreements"] = a.disagreements;
  item["counted"] = a.input.same_buffer.empty();
  item["same_buffer"] = a.input.same_buffer;
  if (!a.error.empty()) item["error"] = a.error;
  return item;
}

// Everything but the arrays, which `arrays` stands in for.
Json report_json(const InputExplanation& e, Json arrays) {
  Json summaries = Json::array();
  for (const OutOfMemory& oom : e.out_of_memory) {
    summaries.push_back({{"line", oom.line},
                         {"memory_space", oom.memory_space},
                         {"what", oom.what},
                         {"required", oom.required},
                         {"available", oom.available},
                         {"message", oom.message}});
  }
  Json out;
  out["format"] = input_format_name(e.format);
  out["arrays"] = std::move(arrays);
  out["out_of_memory"] = std::move(summaries);
  out["warnings"] = e.warnings;
  out["buffers"] = e.buffers;
  out["totals_count"] = totals_count_text(e);
  out["total_size_bytes"] = e.total_size_bytes;
  out["total_unpadded_bytes"] = e.total_unpadded_bytes;
  out["total_padding_bytes"] = e.total_size_bytes - e.total_unpadded_bytes;
  out["total_saving_bytes"] = e.total_saving_bytes;
  return out;
}

// The user's bytes (names, messages) in JSON: what is not UTF-8 is replaced, not refused.
std::string dumped(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

nlohmann::ordered_json input_explanation_json(const InputExplanation& e) {
  Json arrays = Json::array();
  for (const ArrayExplanation& a : e.arrays) arrays.push_back(array_json(a));
  return report_json(e, std::move(arrays));
}

void write_input_explanation_json(const std::function<void(std::string_view)>& write,
                                  const InputExplanation& e,
                                  const nlohmann::ordered_json& extra) {
  // The tree without its arrays, a marker where they go; then each array's own small tree,
  // indented as it would be inside the whole one.
  constexpr std::string_view kMarker = "\"@arrays@\"";
  Json report = report_json(e, std::string(kMarker.substr(1, kMarker.size() - 2)));
  for (const auto& [key, value] : extra.items()) report[key] = value;
  const std::string text = dumped(report);
  const std::size_t at = text.find(kMarker);
  write(std::string_view(text).substr(0, at));
  if (e.arrays.empty()) {
    write("[]");
  } else {
    std::string chunk = "[";
    for (std::size_t i = 0; i < e.arrays.size(); ++i) {
      chunk += i == 0 ? "\n    " : ",\n    ";
      for (char c : dumped(array_json(e.arrays[i]))) {
        chunk += c;
        if (c == '\n') chunk += "    ";
      }
      if (chunk.size() > (1 << 16)) {
        write(chunk);
        chunk.clear();
      }
    }
    write(chunk + "\n  ]");
  }
  write(std::string_view(text).substr(at + kMarker.size()));
  write("\n");
}

}  // namespace tessera::inputs
