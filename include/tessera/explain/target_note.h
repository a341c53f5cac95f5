// `tessera info` (and index/unindex) of a shape written without tiles keep XLA's literal meaning,
// but say in one line what the same array takes on a TPU, so nobody reads "0% padding" without
// learning what a TPU does.
//
// Example: info of f32[1024,3] -> the literal report (12 KiB, unpadded_bytes 12288) and
//   tpu {target "tpu-v5e", layout "f32[1024,3]{0,1:T(4,128)}"... }: the note line reads
//   "on a TPU          f32[1024,3]{0,1:T(4,128)} takes 16.0K (16384 bytes, 1.3x expansion) on
//    tpu-v5e; --target tpu to use it". (Era 2020: {1,0:T(8,128)}, 512.0K, on tpu-v3.)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tessera/tpu/target_profile.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::explain {

struct TargetNote {
  tpu::TpuTarget target;  // the generation (alias set when named "tpu": "--target tpu")
  std::string layout;     // canonical, with the target's tiles
  int64_t size_bytes = 0;
  int64_t unpadded_bytes = 0;
  std::string rule;
};

// The note for `shape` under `target`; nullopt when the shape names tiles or E(n) (nothing to
// add) or the target has no generation. `order`: whether the compiler orders the dims (a shape
// written without a layout) or the written order is kept.
std::optional<TargetNote> target_note(const xla::Shape& shape, const tpu::TpuTarget& target,
                                      tpu::DimensionOrder order = tpu::DimensionOrder::kAsWritten);

// {target, layout, size_bytes, unpadded_bytes, size_text, rule}
nlohmann::ordered_json target_note_json(const TargetNote& note);

// One line, ending in a newline.
std::string target_note_text(const TargetNote& note);

// `tessera info --json`: layout_report_json plus unpadded_bytes, and "tpu" when a note is given.
nlohmann::ordered_json info_json(const xla::TiledLayout& layout,
                                 const std::optional<TargetNote>& note);

// `tessera info`: layout_report_text plus XLA's size words, and the note line when given.
std::string info_text(const xla::TiledLayout& layout, const std::optional<TargetNote>& note);

}  // namespace tessera::explain
