// XLA's array element types (PrimitiveType) with their bit widths.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace tessera {

enum class ElementType {
  kPred,
  kS1,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU1,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kF4E2M1FN,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E3M4,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E8M0FNU,
};

// XLA's lower-case name: element_type_name(ElementType::kBF16) == "bf16".
std::string_view element_type_name(ElementType type);

// Bits of information in one value: 1 for pred and s1, 4 for s4, 64 for c64.
int bit_width(ElementType type);

// Bits one element occupies when the layout does not say otherwise (no E(n)): whole bytes,
// so pred, s4 and f4e2m1fn take 8 bits, as XLA's ByteSizeOfPrimitiveType gives.
int default_storage_bits(ElementType type);

bool is_integral(ElementType type);  // s*, u* (not pred)
bool is_floating(ElementType type);  // f*, bf16 (not complex)
bool is_complex(ElementType type);

// Parses a type name, case-insensitively (`f32`, `F32`), also accepting the names NPU SDKs, NumPy
// and JAX use (`fp32`, `int8`, `uint16`, `float32`, `bfloat16`, `bool`, `int4`, `complex64`,
// `float8_e4m3fn`). nullopt when unknown.
std::optional<ElementType> parse_element_type(std::string_view name);

// All types, in XLA's order, for tests and help texts.
std::span<const ElementType> all_element_types();

}  // namespace tessera
