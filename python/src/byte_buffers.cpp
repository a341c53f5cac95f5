#include "byte_buffers.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#include "tessera/error.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

}  // namespace

NumpyArray<uint8_t> empty_bytes(int64_t bytes) {
  if (bytes < 0) throw Error(ErrorKind::kInvalid, "a buffer cannot have a negative size");
  const auto size = static_cast<std::size_t>(bytes);
  void* data = nullptr;
  if (size >= kHugePage) {
    const std::size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    data = std::aligned_alloc(kHugePage, rounded);
    if (data != nullptr) madvise(data, rounded, MADV_HUGEPAGE);
  } else {
    data = std::malloc(size == 0 ? 1 : size);
  }
  if (data == nullptr) throw std::bad_alloc();
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  const std::size_t shape[1] = {size};
  return NumpyArray<uint8_t>(static_cast<uint8_t*>(data), 1, shape, owner);
}

}  // namespace tessera::python
