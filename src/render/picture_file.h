// Writing a picture to a file whose extension says the format.
#pragma once

#include <functional>
#include <string>

namespace tessera::render {

enum class PictureFormat { kSvg, kHtml };

// Picks the format from `path` (.svg, .html or .htm, any case), renders with `render` and
// writes the file. Throws Error(kInvalid) for another extension, Error(kIo) when writing fails.
void write_document(const std::string& path,
                    const std::function<std::string(PictureFormat)>& render);

}  // namespace tessera::render
