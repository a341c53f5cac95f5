#include "tessera/explain/target_note.h"

#include <fmt/format.h>

#include "tessera/explain/xla_sizes.h"
#include "tessera/xla/layout_report.h"
#include "tessera/xla/notation.h"

namespace tessera::explain {

std::optional<TargetNote> target_note(const xla::Shape& shape, const tpu::TpuTarget& target,
                                      tpu::DimensionOrder order) {
  if (!target.is_tpu() || !tpu::is_untiled(shape)) return std::nullopt;
  tpu::TileChoice choice;
  const xla::Shape tiled = tpu::apply_target(shape, target, &choice, order);
  return TargetNote{target, xla::print_shape(tiled), xla::TiledLayout(tiled).size_bytes(),
                    unpadded_bytes(tiled), choice.rule};
}

nlohmann::ordered_json target_note_json(const TargetNote& note) {
  return {{"target", std::string(tpu::target_name(note.target))},
          {"layout", note.layout},
          {"size_bytes", note.size_bytes},
          {"unpadded_bytes", note.unpadded_bytes},
          {"size_text", xla_size_text(note.size_bytes)},
          {"rule", note.rule}};
}

std::string target_note_text(const TargetNote& note) {
  return fmt::format("on a TPU          {} takes {} ({} bytes, {}) on {}; --target {} to use it\n",
                     note.layout, xla_size_text(note.size_bytes), note.size_bytes,
                     xla_expansion_text(note.size_bytes, note.unpadded_bytes),
                     tpu::target_name(note.target),
                     note.target.alias ? "tpu" : tpu::target_name(note.target));
}

nlohmann::ordered_json info_json(const xla::TiledLayout& layout,
                                 const std::optional<TargetNote>& note) {
  nlohmann::ordered_json out = xla::layout_report_json(layout);
  out["unpadded_bytes"] = unpadded_bytes(layout.shape());
  if (note) out["tpu"] = target_note_json(*note);
  return out;
}

std::string info_text(const xla::TiledLayout& layout, const std::optional<TargetNote>& note) {
  std::string out = xla::layout_report_text(layout);
  const int64_t size = layout.size_bytes();
  const int64_t unpadded = unpadded_bytes(layout.shape());
  out += fmt::format("as XLA says it    Size: {}, Unpadded size: {} ({})\n", xla_size_text(size),
                     xla_size_text(unpadded), xla_expansion_text(size, unpadded));
  if (note) out += target_note_text(*note);
  return out;
}

}  // namespace tessera::explain
