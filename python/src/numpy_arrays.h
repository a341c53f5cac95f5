// Small helpers to hand C++-owned buffers to NumPy without copying.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::python {

template <typename T>
using NumpyArray = nanobind::ndarray<nanobind::numpy, T>;

// A NumPy array of `shape` that owns `data` (freed with delete[] when NumPy drops it).
template <typename T>
NumpyArray<T> give_to_numpy(std::unique_ptr<T[]> data, const std::vector<std::size_t>& shape) {
  T* raw = data.get();
  nanobind::capsule owner(raw, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  data.release();
  return NumpyArray<T>(raw, shape.size(), shape.data(), owner);
}

}  // namespace tessera::python
