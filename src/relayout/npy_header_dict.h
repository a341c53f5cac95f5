// The dictionary in a .npy header, read as NumPy reads it (internal to npy_file.cpp). NumPy's
// np.load evaluates the header as a Python literal (ast.literal_eval) and then requires a dict
// with exactly the keys 'descr', 'fortran_order' and 'shape', a tuple of ints for 'shape' and a
// bool for 'fortran_order' (numpy/lib/format.py, _read_array_header). tessera refuses what NumPy
// refuses (an extra key and 'shape': (16), an int in parentheses, were accepted) and a
// little more that NumPy would read but no NumPy writes (escapes in strings, 1_000).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::relayout::detail {

struct NpyHeaderDict {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Throws Error(kSyntax) "not a valid .npy file: ..." naming what is wrong. `python2_longs`
// accepts the 'L' after an integer that Python 2 wrote (format versions 1.0 and 2.0, which NumPy
// still reads).
NpyHeaderDict parse_npy_header_dict(std::string_view text, bool python2_longs);

}  // namespace tessera::relayout::detail
