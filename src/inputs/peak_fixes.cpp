// What to change so that the peak falls: the buffers alive there, largest first, each with the
// change a user can make and at most the bytes it takes off the peak (docs/howto/
// explain-oom-report.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tessera/error.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/explain/program_fixes.h"
#include "tessera/explain/xla_sizes.h"
#include "tessera/inputs/program_memory.h"
#include "tessera/tpu/target_profile.h"
#include "tessera/xla/notation.h"
#include "tessera/xla/tiled_layout.h"

namespace tessera::inputs {
namespace {

using explain::human_bytes;

int64_t stored_bytes(const std::string& text, const tpu::TpuTarget& target) {
  return xla::TiledLayout(tpu::layout_for_target(text, target)).size_bytes();
}

// f32[N,k] with a minor dim of k <= 8 padded to the 128 lanes: k arrays f32[N] store it without
// the padding, and a program that uses the columns apart never forms the [N,k] array again. A
// reshape to f32[N*k] would be undone by every consumer that needs [N,k] back.
std::optional<PeakFix> column_split(const ProgramBuffer& b, const xla::Shape& shape,
                                    const tpu::TpuTarget& target) {
  if (shape.rank() != 2 || shape.dimensions[1] > 8 || shape.dimensions[1] < 2) return std::nullopt;
  const std::string type(element_type_name(shape.element_type));
  const int64_t k = shape.dimensions[1];
  const int64_t columns =
      k * stored_bytes(fmt::format("{}[{}]", type, shape.dimensions[0]), target);
  if (columns >= b.size_bytes) return std::nullopt;
  return PeakFix{
      b.name,
      fmt::format("keep its {} columns as {} arrays {}[{}] (x[:, i] where it is made, "
                  "and use them apart): {} instead of {}",
                  k, k, type, shape.dimensions[0], human_bytes(columns), human_bytes(b.size_bytes)),
      b.size_bytes - columns, true};
}

std::string where(const ProgramBuffer& b) {
  return b.source.empty()
             ? (b.op_name.empty() ? b.name : b.op_name)
             : fmt::format("{} ({})", b.source, b.op_name.empty() ? b.name : b.op_name);
}

// The array as bf16, laid out as the compiler lays out a device array of that shape.
int64_t bf16_bytes(const xla::Shape& shape, const tpu::TpuTarget& target) {
  return stored_bytes(fmt::format("bf16[{}]", fmt::join(shape.dimensions, ",")), target);
}

PeakFix fix_for(const ProgramBuffer& b, const tpu::TpuTarget& target) {
  const bool user = b.kind != BufferKind::kTemporary || !b.source.empty();
  if (!user) {
    return {b.name, "the compiler's own buffer (its metadata names no line of the program)", 0,
            false};
  }
  if (b.donated) {
    // Changed alone, the output no longer fits the parameter's buffer: the aliasing ends and
    // the peak rises (tests/python/test_program_memory_live.py recompiles it).
    return {b.name,
            "written into its donated parameter's buffer (donate_argnums): change that "
            "parameter, and this output follows it",
            0, true};
  }
  xla::Shape shape;
  try {
    shape = xla::parse_shape(b.layout);
  } catch (const Error&) {
    return {b.name, "", 0, true};
  }
  const int64_t unpadded = explain::unpadded_bytes(shape);
  const int64_t padding = b.size_bytes - unpadded;
  if (padding * 10 >= b.size_bytes) {
    if (auto split = column_split(b, shape, target)) return *split;
    const auto fixes = explain::program_fixes(shape, b.size_bytes, target, 1);
    if (!fixes.empty() && fixes.front().bytes_saved > 0) {
      return {b.name,
              fmt::format("{} (-> {}); only if every consumer takes the new shape: one that "
                          "needs {} back makes the compiler form it again",
                          fixes.front().change, fixes.front().layout,
                          b.layout.substr(0, b.layout.find('{'))),
              fixes.front().bytes_saved, true};
    }
  }
  // No padding to remove: the changes that shrink an array anyway.
  std::vector<std::string> changes;
  int64_t saves = 0;
  const bool wide =
      shape.element_type == ElementType::kF32 || shape.element_type == ElementType::kS32;
  if (shape.element_type == ElementType::kF32) {
    if (b.kind == BufferKind::kTemporary) {
      // What a narrower intermediate saves depends on how the compiler then fuses the ops
      // around it: stated, not counted.
      changes.push_back(fmt::format("compute it in bf16 at {}", where(b)));
    } else {
      changes.push_back("bf16 instead of f32 halves it");
      saves = std::max<int64_t>(0, b.size_bytes - bf16_bytes(shape, target));
    }
  }
  switch (b.kind) {
    case BufferKind::kParameter:
      changes.push_back("shard it over the devices (a NamedSharding on a mesh axis)");
      changes.push_back("donate it (donate_argnums) when an output of its shape replaces it");
      break;
    case BufferKind::kOutput:
      changes.push_back("shard it over the devices");
      changes.push_back(
          "return a reduction of it rather than the whole array, if that is what is used");
      break;
    case BufferKind::kTemporary:
      changes.push_back(
          fmt::format("recompute it where it is needed (jax.checkpoint around the "
                      "code at {}) instead of keeping it",
                      where(b)));
      if (!wide) changes.push_back("compute it in smaller chunks (lax.map or a scan over rows)");
      break;
  }
  std::string change;
  for (const std::string& c : changes) change += (change.empty() ? "" : "; ") + c;
  return {b.name, change, saves, true};
}

}  // namespace

std::vector<PeakFix> peak_fixes(const ProgramMemory& memory, const tpu::TpuTarget& target,
                                std::size_t top) {
  std::vector<PeakFix> out;
  for (const ProgramBuffer& b : memory.live_at_peak) {
    if (out.size() >= top) break;
    out.push_back(fix_for(b, target));
    out.back().saves_at_peak = std::min(out.back().saves_at_peak, b.size_bytes);
  }
  return out;
}

}  // namespace tessera::inputs
