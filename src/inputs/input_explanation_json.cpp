// The input report as JSON (input_explanation.h): written as text, array by array, by one
// function; the nlohmann tree is that text parsed.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "json_writer.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/inputs/input_explanation.h"

namespace tessera::inputs {
namespace {

void write_fix(JsonWriter& w, const explain::ProgramFix& f) {
  w.begin_object();
  explain::for_each_fix_member(f,
                               [&w](const char* key, const auto& value) { w.member(key, value); });
  w.end_object();
}

void write_array(JsonWriter& w, const ArrayExplanation& a) {
  w.begin_object();
  w.member("shape", a.layout.empty() ? a.input.shape : a.layout);
  w.member("input_shape", a.input.shape);
  w.member("name", a.input.name);
  w.member("place", a.input.place);
  w.member("line", a.input.line);
  w.member("layout", a.layout);
  if (!a.shard_dims.empty()) w.member("shard_dims", a.shard_dims);
  w.member("size_bytes", a.size_bytes);
  w.member("unpadded_bytes", a.unpadded_bytes);
  w.member("padding_bytes", a.padding_bytes());
  w.member("expansion", a.unpadded_bytes == 0 ? 0.0
                                              : static_cast<double>(a.size_bytes) /
                                                    static_cast<double>(a.unpadded_bytes));
  w.member("cause", a.cause);
  w.key("suggestions");
  w.begin_array();
  for (const explain::ProgramFix& f : a.fixes) write_fix(w, f);
  w.end_array();
  w.key("report");
  w.begin_object();
  w.member("size", a.input.reported_size);
  w.member("unpadded_size", a.input.reported_unpadded);
  w.member("padding", a.input.reported_padding);
  w.member("operator", a.input.operator_text);
  w.end_object();
  w.key("tessera_text");
  w.begin_object();
  w.member("size", explain::xla_size_text(a.size_bytes));
  w.member("unpadded_size", explain::xla_size_text(a.unpadded_bytes));
  w.end_object();
  w.member("disagreements", a.disagreements);
  w.member("counted", a.input.same_buffer.empty());
  w.member("same_buffer", a.input.same_buffer);
  if (!a.error.empty()) w.member("error", a.error);
  w.end_object();
}

void write_report(const std::function<void(std::string_view)>& write, const InputExplanation& e,
                  const nlohmann::ordered_json& extra) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("format", input_format_name(e.format));
  w.key("arrays");
  w.begin_array();
  for (const ArrayExplanation& a : e.arrays) {
    write_array(w, a);
    if (out.size() > kChunk) {
      write(out);
      out.clear();
    }
  }
  w.end_array();
  w.key("out_of_memory");
  w.begin_array();
  for (const OutOfMemory& oom : e.out_of_memory) {
    w.begin_object();
    w.member("line", oom.line);
    w.member("memory_space", oom.memory_space);
    w.member("what", oom.what);
    w.member("required", oom.required);
    w.member("available", oom.available);
    w.member("message", oom.message);
    w.end_object();
  }
  w.end_array();
  w.member("warnings", e.warnings);
  w.member("buffers", e.buffers);
  w.member("totals_count", totals_count_text(e));
  w.member("total_size_bytes", e.total_size_bytes);
  w.member("total_unpadded_bytes", e.total_unpadded_bytes);
  w.member("total_padding_bytes", e.total_size_bytes - e.total_unpadded_bytes);
  w.member("total_saving_bytes", e.total_saving_bytes);
  for (const auto& [key, value] : extra.items()) {
    w.key(key);
    w.raw(value.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  w.end_object();
  out += '\n';
  write(out);
}

}  // namespace

nlohmann::ordered_json input_explanation_json(const InputExplanation& e) {
  std::string text;
  write_report([&](std::string_view part) { text += part; }, e, {});
  return nlohmann::ordered_json::parse(text);
}

void write_input_explanation_json(const std::function<void(std::string_view)>& write,
                                  const InputExplanation& e, const nlohmann::ordered_json& extra) {
  write_report(write, e, extra);
}

}  // namespace tessera::inputs
