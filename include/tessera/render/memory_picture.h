// A picture of HBM over a program's schedule, as a memory viewer draws it from a run: the bytes
// alive at each position (arguments and outputs held throughout, temporaries above them), the
// generation's HBM as a dashed line, the peak marked, and the buffers alive there named.
// Every drawn part carries a class and data-* attributes so that a reader or a test finds it:
// "memory-area", "hbm-capacity" (data-bytes), "peak-marker" (data-position, data-bytes) and one
// "peak-buffer" per named buffer (data-name, data-bytes).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/inputs/program_memory.h"

namespace tessera::render {

// `hbm_bytes` 0 draws no capacity line.
std::string memory_svg(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                       const std::string& title);

// The same SVG in a self-contained HTML page.
std::string memory_html(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                        const std::string& title);

// Writes memory_svg or memory_html by the file's extension (.svg, .html, .htm): Error(kInvalid)
// for another one, Error(kIo) when the file cannot be written (a temporary renamed on success).
void write_memory_picture(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                          const std::string& title, const std::string& path);

}  // namespace tessera::render
