// Layout-mismatch errors decoded (`tessera mismatch`): the two layouts an XLA, Mosaic
// or Pallas error names, what differs between them, what each costs, and what usually causes it.
//
//   "Failed to verify layout for Mosaic kernel operand 9: XLA layout ({0:S(1)}) does not match
//    Mosaic layout ({0:T(128)S(1)}) for an operand of shape s32[0]."  (tpu-inference#2506)
//   -> source "mosaic_operand", operand 9, expected s32[0]{0:T(128)S(1)} (the kernel's),
//      actual s32[0]{0:S(1)} (XLA's), differences: tiles none -> T(128); cause: XLA does not
//      tile arrays without elements, the kernel does: an empty operand.
//
// Recognised messages (fixtures in tests/inputs/fixtures/layout_errors):
// - Mosaic's operand check, today's wording: "XLA layout (L) does not match Mosaic layout (L)
//   for an operand of shape S" (source "mosaic_operand");
// - its older wording: "XLA layout does not match MLIR layout for an operand of shape S:
//   expected L, got L" (source "mosaic_operand"; expected is the kernel's, as in the newer one);
// - XLA's shape check: "Expected instruction to have shape equal to S, actual shape is S"
//   (source "xla_shape_check");
// - any other line that says "layout" and "match" or "expected" and holds two shapes with
//   layouts (source "other": the first is taken as expected).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/explain/layout_diff.h"
#include "tessera/inputs/input_explanation.h"

namespace tessera::inputs {

struct MismatchSide {
  std::string role;    // "Mosaic kernel", "XLA", "XLA's check", "instruction", "first", "second"
  std::string layout;  // the shape with layout, canonical ("" when it could not be read)
  int64_t size_bytes = 0;
  int64_t padding_bytes = 0;
  std::string tiles;  // "T(8,128)", "none"
  int64_t memory_space = 0;
  std::vector<int64_t> minor_to_major;
};

struct LayoutMismatch {
  std::string message;  // the line the error was found on
  int64_t line = 0;
  std::string source;              // "mosaic_operand", "xla_shape_check", "other"
  std::optional<int64_t> operand;  // the kernel operand the message names
  std::string shape;               // the array, "f32[16,3072]"
  MismatchSide expected;
  MismatchSide actual;
  std::vector<explain::LayoutDifference> differences;  // expected -> actual
  std::optional<explain::LayoutDiff> diff;  // the two layouts diffed, when they hold one array
  std::vector<std::string> causes;          // what usually causes it
  std::vector<std::string> fixes;
  std::string error;  // why a layout could not be read ("" when both were)
};

// Every layout mismatch in `text` (a pasted message, a log, a traceback). Never throws for
// malformed text: a layout that does not parse is reported in `error`.
std::vector<LayoutMismatch> find_layout_mismatches(std::string_view text);

// {mismatches: [{message, line, source, operand, shape, expected: {role, layout, size_bytes,
// padding_bytes, tiles, memory_space, minor_to_major}, actual: {...}, differences: [{what, a, b,
// text}], moved_elements, elements, relayout: {bytes_read, bytes_written, seconds, basis} or null,
// causes, fixes, error}]}; `a` of a difference is the expected side.
nlohmann::ordered_json mismatches_json(const std::vector<LayoutMismatch>& mismatches);

std::string mismatches_text(const std::vector<LayoutMismatch>& mismatches);

// The report of `tessera explain PATH --json` for `text`: input_explanation_json of its arrays
// plus "layout_mismatches", the mismatches objects above found in the same text (a pasted error
// is decoded beside the arrays it names). The CLI and Python give the same object.
nlohmann::ordered_json input_report_json(std::string_view text, const InputOptions& options);

// The same report as JSON text, written through `write` in parts (write_input_explanation_json)
// for the arrays `e` explains of `text`, with the keys of `extra` after "layout_mismatches".
void write_input_report_json(const std::function<void(std::string_view)>& write,
                             std::string_view text, const InputExplanation& e,
                             const nlohmann::ordered_json& extra);

}  // namespace tessera::inputs
