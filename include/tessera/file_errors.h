// File errors that say why: "cannot read 'x.npy': No such file or directory",
// one wording for every front end that opens files.
#pragma once

#include <string>
#include <string_view>

#include "tessera/error.h"

namespace tessera {

// Error(kIo) "cannot ACTION 'PATH': REASON", the reason being strerror(error_number) ("No such
// file or directory", "Permission denied", "No space left on device"), or just "cannot ACTION
// 'PATH'" when error_number is 0. file_error("read", "x.npy", ENOENT).
Error file_error(std::string_view action, std::string_view path, int error_number);

// Throws Error(kIo) "cannot read 'PATH': it is a directory, not a file" when PATH names a
// directory (a stream opens one and then fails with a library-internal message).
void refuse_directory(std::string_view action, const std::string& path);

}  // namespace tessera
