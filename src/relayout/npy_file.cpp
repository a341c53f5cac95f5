#include "tessera/relayout/npy_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "npy_header_dict.h"
#include "tessera/error.h"

namespace tessera::relayout {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorKind::kSyntax, fmt::format("not a valid .npy file: {}", what));
}

// The descr without its byte-order mark; nullopt for big-endian multi-byte types.
std::optional<std::string> body(std::string_view descr) {
  if (descr.empty()) return std::nullopt;
  const char order = descr.front();
  std::string rest(descr.substr(1));
  if (order == '<' || order == '|' || order == '=') return rest;
  if (order == '>' && rest.size() >= 2 && rest.substr(1) == "1") return rest;
  return std::nullopt;
}

}  // namespace

NpyHeader parse_npy_header(std::span<const std::byte> file) {
  const auto byte_at = [&](std::size_t i) { return static_cast<unsigned char>(file[i]); };
  if (file.size() < 10) bad("shorter than the 10-byte preamble");
  for (std::size_t i = 0; i < kMagic.size(); ++i) {
    if (byte_at(i) != static_cast<unsigned char>(kMagic[i]))
      bad("the magic string \\x93NUMPY is missing");
  }
  const int major = byte_at(6);
  std::size_t length = 0;
  std::size_t start = 0;
  if (major == 1) {
    length = byte_at(8) | (std::size_t{byte_at(9)} << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) bad("truncated header length");
    length = byte_at(8) | (std::size_t{byte_at(9)} << 8) | (std::size_t{byte_at(10)} << 16) |
             (std::size_t{byte_at(11)} << 24);
    start = 12;
  } else {
    bad(fmt::format("unknown format version {}", major));
  }
  if (length > file.size() - start) bad("the header is truncated");
  const std::string_view dict(reinterpret_cast<const char*>(file.data()) + start, length);
  detail::NpyHeaderDict values = detail::parse_npy_header_dict(dict, major <= 2);
  NpyHeader header;
  header.descr = std::move(values.descr);
  header.fortran_order = values.fortran_order;
  header.shape = std::move(values.shape);
  header.data_offset = static_cast<int64_t>(start + length);
  return header;
}

std::string npy_header(std::string_view descr, const std::vector<int64_t>& shape) {
  std::string tuple;
  for (int64_t d : shape) tuple += fmt::format("{}, ", d);
  if (shape.size() > 1) tuple.resize(tuple.size() - 2);  // (3, 5) but (3,)
  if (shape.size() == 1) tuple.resize(tuple.size() - 1);
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, tuple);
  const bool v1 = dict.size() + 11 < 65536;
  const std::size_t preamble = v1 ? 10 : 12;
  const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  const std::size_t n = dict.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (!v1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + dict;
}

std::string npy_descr(ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return "|b1";
    case ElementType::kS1:
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kS8:
      return "|i1";
    case ElementType::kS16:
      return "<i2";
    case ElementType::kS32:
      return "<i4";
    case ElementType::kS64:
      return "<i8";
    case ElementType::kU16:
      return "<u2";
    case ElementType::kBF16:
      return "<V2";  // what np.save writes for an ml_dtypes.bfloat16 array
    case ElementType::kU32:
      return "<u4";
    case ElementType::kU64:
      return "<u8";
    case ElementType::kF16:
      return "<f2";
    case ElementType::kF32:
      return "<f4";
    case ElementType::kF64:
      return "<f8";
    case ElementType::kC64:
      return "<c8";
    case ElementType::kC128:
      return "<c16";
    default:
      return "|u1";  // u1/u2/u4/u8 and the 8-bit float types
  }
}

bool npy_descr_accepts(std::string_view descr, ElementType type) {
  const std::optional<std::string> got = body(descr);
  if (!got) return false;
  const std::string own = *body(npy_descr(type));
  if (*got == own) return true;
  const bool native = type == ElementType::kPred || is_complex(type) || type == ElementType::kF16 ||
                      type == ElementType::kF32 || type == ElementType::kF64 ||
                      (is_integral(type) && bit_width(type) >= 8);
  if (native) return false;
  // Types NumPy lacks: raw bytes of the same size, or (for s4/u4/...) either signedness.
  const std::string size = own.substr(1);
  return *got == "V" + size || *got == "u" + size || *got == "i" + size;
}

}  // namespace tessera::relayout
