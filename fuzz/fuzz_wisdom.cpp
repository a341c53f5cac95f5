// Fuzzes the planner's text inputs: variant names (--variant, RelayoutOptions::variant) and wisdom
// JSON (files in the user's cache, --import). Input: one byte choosing which, then the text. A
// variant must be refused with tessera::Error or give a variant whose name parses back to itself;
// wisdom must be refused with tessera::Error or merged, after which the export is bounded by the
// input's size and reads back to the same export (nothing dropped, nothing added).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "relayout/kernel_variant.h"
#include "tessera/error.h"
#include "tessera/relayout/planner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace tessera::relayout;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 0) {
    try {
      const VariantTokens tokens = parse_variant(text);
      for (const KernelClass k : tuned_classes()) {
        const KernelVariant v = resolved(apply_tokens(model_variant(k), tokens));
        const std::string name = variant_name(k, v);
        if (variant_name(k, resolved(apply_tokens(model_variant(k), parse_variant(name)))) != name)
          __builtin_trap();
      }
    } catch (const tessera::Error&) {
    }
    return 0;
  }
  forget_wisdom();
  try {
    import_wisdom(text, "fuzz");
  } catch (const tessera::Error&) {
    return 0;
  }
  const std::string first = export_wisdom();
  // Depth is bounded as the text is read: an indented export stays proportional to the input.
  if (first.size() > 256 * size + 65536) __builtin_trap();
  try {
    forget_wisdom();
    import_wisdom(first, "export");
  } catch (const tessera::Error&) {
    __builtin_trap();  // what was merged must export as wisdom
  }
  // Every entry survives a round trip, this host's, other hosts' and those with unknown tokens.
  if (export_wisdom() != first) __builtin_trap();
  return 0;
}
