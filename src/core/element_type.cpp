#include "tessera/element_type.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace tessera {
namespace {

struct TypeInfo {
  ElementType type;
  std::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, 30> kTypes = {{
    {ElementType::kPred, "pred", 1},
    {ElementType::kS1, "s1", 1},
    {ElementType::kS2, "s2", 2},
    {ElementType::kS4, "s4", 4},
    {ElementType::kS8, "s8", 8},
    {ElementType::kS16, "s16", 16},
    {ElementType::kS32, "s32", 32},
    {ElementType::kS64, "s64", 64},
    {ElementType::kU1, "u1", 1},
    {ElementType::kU2, "u2", 2},
    {ElementType::kU4, "u4", 4},
    {ElementType::kU8, "u8", 8},
    {ElementType::kU16, "u16", 16},
    {ElementType::kU32, "u32", 32},
    {ElementType::kU64, "u64", 64},
    {ElementType::kF16, "f16", 16},
    {ElementType::kBF16, "bf16", 16},
    {ElementType::kF32, "f32", 32},
    {ElementType::kF64, "f64", 64},
    {ElementType::kC64, "c64", 64},
    {ElementType::kC128, "c128", 128},
    {ElementType::kF4E2M1FN, "f4e2m1fn", 4},
    {ElementType::kF8E5M2, "f8e5m2", 8},
    {ElementType::kF8E4M3, "f8e4m3", 8},
    {ElementType::kF8E4M3FN, "f8e4m3fn", 8},
    {ElementType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {ElementType::kF8E3M4, "f8e3m4", 8},
    {ElementType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    {ElementType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    {ElementType::kF8E8M0FNU, "f8e8m0fnu", 8},
}};

// The enum and the table list types in the same order.
const TypeInfo& info(ElementType type) {
  return kTypes[static_cast<std::size_t>(type)];
}

struct Alias {
  std::string_view alias;
  ElementType type;
};
// Names used by NPU SDKs, NumPy, ml_dtypes and JAX for the same types (a JAX user pastes
// x.dtype.name: int4, complex64, float8_e4m3fn).
constexpr std::array<Alias, 31> kAliases = {{
    {"fp32", ElementType::kF32},
    {"float32", ElementType::kF32},
    {"fp16", ElementType::kF16},
    {"float16", ElementType::kF16},
    {"bfloat16", ElementType::kBF16},
    {"fp64", ElementType::kF64},
    {"int2", ElementType::kS2},
    {"uint2", ElementType::kU2},
    {"int4", ElementType::kS4},
    {"uint4", ElementType::kU4},
    {"int8", ElementType::kS8},
    {"uint8", ElementType::kU8},
    {"int16", ElementType::kS16},
    {"uint16", ElementType::kU16},
    {"int32", ElementType::kS32},
    {"uint32", ElementType::kU32},
    {"int64", ElementType::kS64},
    {"uint64", ElementType::kU64},
    {"bool", ElementType::kPred},
    {"float64", ElementType::kF64},
    {"complex64", ElementType::kC64},
    {"complex128", ElementType::kC128},
    {"float4_e2m1fn", ElementType::kF4E2M1FN},
    {"float8_e5m2", ElementType::kF8E5M2},
    {"float8_e4m3", ElementType::kF8E4M3},
    {"float8_e4m3fn", ElementType::kF8E4M3FN},
    {"float8_e4m3b11fnuz", ElementType::kF8E4M3B11FNUZ},
    {"float8_e3m4", ElementType::kF8E3M4},
    {"float8_e5m2fnuz", ElementType::kF8E5M2FNUZ},
    {"float8_e4m3fnuz", ElementType::kF8E4M3FNUZ},
    {"float8_e8m0fnu", ElementType::kF8E8M0FNU},
}};

std::vector<ElementType> make_all() {
  std::vector<ElementType> all;
  for (const TypeInfo& t : kTypes) all.push_back(t.type);
  return all;
}

}  // namespace

std::string_view element_type_name(ElementType type) {
  return info(type).name;
}
int bit_width(ElementType type) {
  return info(type).bits;
}
int default_storage_bits(ElementType type) {
  return std::max(8, info(type).bits);
}

bool is_integral(ElementType type) {
  return type >= ElementType::kS1 && type <= ElementType::kU64;
}
bool is_complex(ElementType type) {
  return type == ElementType::kC64 || type == ElementType::kC128;
}
bool is_floating(ElementType type) {
  return type != ElementType::kPred && !is_integral(type) && !is_complex(type);
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const TypeInfo& t : kTypes) {
    if (t.name == lower) return t.type;
  }
  for (const Alias& a : kAliases) {
    if (a.alias == lower) return a.type;
  }
  return std::nullopt;
}

std::span<const ElementType> all_element_types() {
  static const std::vector<ElementType> all = make_all();
  return all;
}

}  // namespace tessera
