// The device the NPU spec draws its figures on: X = 4 NPUs of S = 1024 bytes, 128-byte alignment.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tessera/error.h"
#include "tessera/npu/device.h"

namespace tessera::npu::test_support {

inline Device spec_device() {
  return make_device(4, 1024, 128);
}

// Runs `action`, expecting tessera::Error of `kind` whose message contains `fragment`.
template <typename Action>
void expect_error(ErrorKind kind, const std::string& fragment, Action&& action) {
  try {
    action();
    ADD_FAILURE() << "expected an error containing '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), kind) << error.what();
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

}  // namespace tessera::npu::test_support
