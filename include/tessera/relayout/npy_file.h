// NumPy's .npy format (versions 1.0, 2.0 and 3.0): a magic string, a header that is a Python dict
// literal, then the array's elements in row-major (C) or column-major (Fortran) order. tessera
// reads and writes it for `tessera convert` so data moves between NumPy and accelerator layouts.
//
//   \x93NUMPY \x01\x00 <len:u16> {'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/element_type.h"

namespace tessera::relayout {

struct NpyHeader {
  std::string descr;  // NumPy's type string: '<f4', '|b1', '<u2', ...
  bool fortran_order = false;
  std::vector<int64_t> shape;
  int64_t data_offset = 0;  // bytes before the first element
};

// Parses the header at the start of a .npy file. Throws Error(kSyntax) naming what is wrong when
// the bytes are not a .npy header (bad magic, unknown version, truncated, no 'descr'/'shape').
//   parse_npy_header(bytes of np.save(np.zeros((3,5), np.float32)))
//     == {descr "<f4", fortran_order false, shape {3,5}, data_offset 128}
NpyHeader parse_npy_header(std::span<const std::byte> file);

// The header bytes (version 1.0, or 2.0 when it would not fit) for a row-major array, padded so
// the data starts at a multiple of 64 bytes, as NumPy writes it.
std::string npy_header(std::string_view descr, const std::vector<int64_t>& shape);

// The descr tessera writes for an element type: '<f4' for f32, '|b1' for pred, '<V2' for bf16
// (NumPy has no bfloat16: np.save of an ml_dtypes.bfloat16 array writes '<V2' and np.load gives
// it back as raw 2-byte items, which .view(ml_dtypes.bfloat16) makes bfloat16 again; '<u2' is
// also read), '|i1' for s4 (one element per byte, as NumPy holds ml_dtypes' int4), '|u1' for
// the 8-bit float types (ml_dtypes saves every one of them as '<V1', which could not say which).
std::string npy_descr(ElementType type);

// Whether a file's descr may hold elements of `type`: its own descr, the byte order spelled
// '=' or '<' or '|', and for types NumPy lacks (bf16, f8*, s4/u4/s2/u2) same-sized raw or
// unsigned descrs ('<V2', '|V2', '<u2' for bf16).
bool npy_descr_accepts(std::string_view descr, ElementType type);

}  // namespace tessera::relayout
