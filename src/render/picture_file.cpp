#include "render/picture_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "tessera/error.h"
#include "tessera/file_errors.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {

void write_document(const std::string& path,
                    const std::function<std::string(PictureFormat)>& render) {
  const std::size_t dot = path.find_last_of('.');
  std::string extension = dot == std::string::npos ? std::string() : path.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  PictureFormat format;
  if (extension == "svg") {
    format = PictureFormat::kSvg;
  } else if (extension == "html" || extension == "htm") {
    format = PictureFormat::kHtml;
  } else {
    throw Error(ErrorKind::kInvalid,
                fmt::format("cannot tell the picture format of '{}': the file name must end in "
                            ".svg or .html",
                            path));
  }
  const std::string document = render(format);
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw file_error("write", path, errno);
  file << document;
  file.flush();
  if (!file) throw Error(ErrorKind::kIo, fmt::format("writing '{}' failed", path));
}

void write_picture(const XlaPicture& picture, const std::string& path) {
  write_document(path, [&](PictureFormat format) {
    return format == PictureFormat::kSvg ? xla_svg(picture) : xla_html(picture);
  });
}

}  // namespace tessera::render
