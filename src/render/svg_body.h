// The <svg> element shared by the SVG file and the HTML page (without the XML declaration).
#pragma once

#include <string>

#include "tessera/render/xla_picture.h"

namespace tessera::render {

std::string svg_body(const XlaPicture& picture);

}  // namespace tessera::render
