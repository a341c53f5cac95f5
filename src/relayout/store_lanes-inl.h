// One vector stored by a Highway kernel: a non-temporal store for a streamed destination, a plain
// one otherwise. Shared by the per-target kernels (portable_*.cpp); included after
// hwy/highway.h, once per target (Highway's -inl.h convention).
#if defined(TESSERA_RELAYOUT_STORE_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_RELAYOUT_STORE_LANES_INL_H_
#undef TESSERA_RELAYOUT_STORE_LANES_INL_H_
#else
#define TESSERA_RELAYOUT_STORE_LANES_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::relayout::HWY_NAMESPACE {

// `stream` needs `to` aligned to the vector (the callers check it).
template <class D>
HWY_INLINE void StoreLanes(D d, hwy::HWY_NAMESPACE::Vec<D> v, hwy::HWY_NAMESPACE::TFromD<D>* to,
                           bool stream) {
  if (stream) {
    hwy::HWY_NAMESPACE::Stream(v, d, to);
  } else {
    hwy::HWY_NAMESPACE::StoreU(v, d, to);
  }
}

}  // namespace tessera::relayout::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // TESSERA_RELAYOUT_STORE_LANES_INL_H_
