#include "byte_buffers.h"

#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "tessera/error.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Freed large buffers kept for reuse: a fresh 64 MiB buffer costs more to fault in (the kernel
// zeroes every page) than converting into it, so repeated conversions of the same size reuse
// pages that are already mapped, as a caching allocator would. Bounded in count and bytes.
constexpr std::size_t kCachedBuffers = 4;
constexpr std::size_t kCachedBytes = std::size_t{512} << 20;

struct CachedBuffer {
  void* data;
  std::size_t bytes;
};

class BufferCache {
 public:
  void* take(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (buffers_[i].bytes == bytes) {
        void* data = buffers_[i].data;
        total_ -= bytes;
        buffers_.erase(buffers_.begin() + static_cast<std::ptrdiff_t>(i));
        return data;
      }
    }
    return nullptr;
  }
  // Keeps the buffer, evicting the oldest ones to stay within bounds; frees it if it is too big.
  void give(void* data, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > kCachedBytes) {
      std::free(data);
      return;
    }
    while (!buffers_.empty() &&
           (buffers_.size() >= kCachedBuffers || total_ + bytes > kCachedBytes)) {
      std::free(buffers_.front().data);
      total_ -= buffers_.front().bytes;
      buffers_.erase(buffers_.begin());
    }
    buffers_.push_back({data, bytes});
    total_ += bytes;
  }
  // Frees every kept buffer; returns the bytes given back.
  std::size_t release() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const CachedBuffer& b : buffers_) std::free(b.data);
    buffers_.clear();
    const std::size_t released = total_;
    total_ = 0;
    return released;
  }

 private:
  std::mutex mutex_;
  std::vector<CachedBuffer> buffers_;
  std::size_t total_ = 0;
};

// Never destroyed: NumPy may free buffers while the interpreter shuts down.
BufferCache& cache() {
  static auto* instance = new BufferCache;
  return *instance;
}

void* allocate_huge(std::size_t rounded) {
  if (void* reused = cache().take(rounded)) return reused;
  void* data = std::aligned_alloc(kHugePage, rounded);
  if (data != nullptr) madvise(data, rounded, MADV_HUGEPAGE);
  return data;
}

}  // namespace

int64_t release_buffers() {
  return static_cast<int64_t>(cache().release());
}

NumpyArray<uint8_t> empty_bytes(int64_t bytes) {
  if (bytes < 0) throw Error(ErrorKind::kInvalid, "a buffer cannot have a negative size");
  const auto size = static_cast<std::size_t>(bytes);
  const std::size_t shape[1] = {size};
  if (size < kHugePage) {
    void* data = std::malloc(size == 0 ? 1 : size);
    if (data == nullptr) throw std::bad_alloc();
    nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
    return NumpyArray<uint8_t>(static_cast<uint8_t*>(data), 1, shape, owner);
  }
  const std::size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
  // The capsule owns a record of the buffer and its size, so that it can go back to the cache.
  auto block = std::make_unique<CachedBuffer>(CachedBuffer{allocate_huge(rounded), rounded});
  if (block->data == nullptr) throw std::bad_alloc();
  auto* data = static_cast<uint8_t*>(block->data);
  nb::capsule owner(block.release(), [](void* p) noexcept {
    auto* record = static_cast<CachedBuffer*>(p);
    cache().give(record->data, record->bytes);
    delete record;
  });
  return NumpyArray<uint8_t>(data, 1, shape, owner);
}

}  // namespace tessera::python
