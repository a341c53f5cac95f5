#include "tessera/relayout/npy_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "tessera/checked_arithmetic.h"
#include "tessera/error.h"
#include "tessera/xla/shape_limits.h"

namespace tessera::relayout {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorKind::kSyntax, fmt::format("not a valid .npy file: {}", what));
}

// The text after `'key':` (or "key":), with leading spaces skipped. A quoted word that is not
// followed by a colon is a value (a descr may well be spelled 'shape'), not the key. A key given
// twice is refused: NumPy's literal_eval keeps the last, a first-match reader the first, and the
// two would read different arrays from one file (issue 14 item 9).
std::string_view value_of(std::string_view dict, std::string_view key) {
  std::optional<std::string_view> found;
  for (const char quote : {'\'', '"'}) {
    const std::string quoted = fmt::format("{}{}{}", quote, key, quote);
    for (std::size_t at = dict.find(quoted); at != std::string_view::npos;
         at = dict.find(quoted, at + 1)) {
      std::size_t colon = at + quoted.size();
      while (colon < dict.size() && dict[colon] == ' ') ++colon;
      if (colon >= dict.size() || dict[colon] != ':') continue;
      if (found) bad(fmt::format("the header gives '{}' twice", key));
      std::string_view rest = dict.substr(colon + 1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      found = rest;
    }
  }
  if (!found) bad(fmt::format("the header has no '{}'", key));
  return *found;
}

std::string parse_descr(std::string_view dict) {
  const std::string_view v = value_of(dict, "descr");
  if (v.empty() || (v.front() != '\'' && v.front() != '"')) bad("'descr' is not a string");
  const std::size_t end = v.find(v.front(), 1);
  if (end == std::string_view::npos) bad("'descr' is not terminated");
  return std::string(v.substr(1, end - 1));
}

bool parse_fortran_order(std::string_view dict) {
  const std::string_view v = value_of(dict, "fortran_order");
  if (v.starts_with("True")) return true;
  if (v.starts_with("False")) return false;
  bad("'fortran_order' is neither True nor False");
}

std::vector<int64_t> parse_shape_tuple(std::string_view dict) {
  std::string_view v = value_of(dict, "shape");
  if (v.empty() || v.front() != '(') bad("'shape' is not a tuple");
  const std::size_t end = v.find(')');
  if (end == std::string_view::npos) bad("'shape' is not terminated");
  v = v.substr(1, end - 1);
  std::vector<int64_t> shape;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
    if (i == v.size()) break;
    if (!std::isdigit(static_cast<unsigned char>(v[i])))
      bad("'shape' holds something other than sizes");
    int64_t n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      n = checked_add(checked_multiply(n, 10, "a .npy dimension"), v[i] - '0', "a .npy dimension");
      ++i;
    }
    if (i < v.size() && v[i] == 'L') ++i;  // Python 2 longs
    xla::check_rank(shape.size() + 1);     // stop reading at the limit
    shape.push_back(n);
  }
  return shape;
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
  const std::string dict(reinterpret_cast<const char*>(file.data()) + start, length);
  NpyHeader header;
  header.descr = parse_descr(dict);
  header.fortran_order = parse_fortran_order(dict);
  header.shape = parse_shape_tuple(dict);
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
    case ElementType::kBF16:
      return "<u2";
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
