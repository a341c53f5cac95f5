#include "tessera/render/memory_picture.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/html_page.h"
#include "render/picture_file.h"
#include "render/svg_body.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {
namespace {

// The plot's frame, in pixels; at most kColumns columns (each the most bytes of its positions),
// so a 100,000-instruction schedule is a picture of the same size as a short one.
constexpr double kLeft = 80, kTop = 50, kWidth = 760, kHeight = 300;
constexpr int64_t kColumns = 760;
constexpr std::size_t kBuffersNamed = 8;

std::string svg_text(const inputs::ProgramMemory& m, int64_t hbm_bytes, const std::string& title) {
  using explain::human_bytes;
  const std::vector<int64_t>& levels = m.hbm_over_schedule;
  const int64_t positions = std::max<int64_t>(1, static_cast<int64_t>(levels.size()));
  const int64_t peak = m.hbm.peak_bytes();
  int64_t top = std::max<int64_t>(1, peak);
  if (hbm_bytes > 0 && hbm_bytes < 2 * top) top = std::max(top, hbm_bytes);
  const double scale = kHeight / static_cast<double>(top) * 0.92;
  const auto y_of = [&](int64_t bytes) {
    return kTop + kHeight - scale * static_cast<double>(bytes);
  };
  const int64_t columns = std::min(kColumns, positions);
  const double step = kWidth / static_cast<double>(columns);
  const std::size_t named = std::min(kBuffersNamed, m.live_at_peak.size());
  const double height = kTop + kHeight + 60 + 18.0 * static_cast<double>(named);
  std::string out = svg_open(kLeft + kWidth + 40, height);
  out += fmt::format(R"(<text x="{}" y="24" font-size="16" font-family="sans-serif">{}</text>)",
                     kLeft, xml_escape(title));
  out += fmt::format(
      R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999" stroke-width="1"/>)",
      kLeft, kTop, kWidth, kHeight);
  // The area: one column per slice of the schedule, at the most bytes alive in it.
  std::string path = fmt::format("M {:.1f} {:.1f}", kLeft, kTop + kHeight);
  for (int64_t c = 0; c < columns; ++c) {
    const int64_t from = c * positions / columns;
    const int64_t to = std::max(from + 1, (c + 1) * positions / columns);
    int64_t most = levels.empty() ? peak : 0;
    for (int64_t p = from; p < to && p < static_cast<int64_t>(levels.size()); ++p) {
      most = std::max(most, levels[static_cast<std::size_t>(p)]);
    }
    const double x = kLeft + step * static_cast<double>(c);
    path += fmt::format(" L {:.1f} {:.1f} L {:.1f} {:.1f}", x, y_of(most), x + step, y_of(most));
  }
  path += fmt::format(" L {:.1f} {:.1f} Z", kLeft + kWidth, kTop + kHeight);
  out += fmt::format(R"(<path class="memory-area" d="{}" fill="#6baed6" stroke="#08519c"/>)", path);
  if (hbm_bytes > 0) {
    out += fmt::format(
        R"(<g class="hbm-capacity" data-bytes="{}"><line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" )"
        R"(stroke="#d62728" stroke-width="2" stroke-dasharray="8 4"/>)"
        R"(<text x="{}" y="{:.1f}" font-size="12" font-family="sans-serif" fill="#d62728">HBM {})"
        R"(</text></g>)",
        hbm_bytes, kLeft, y_of(hbm_bytes), kLeft + kWidth, y_of(hbm_bytes), kLeft + 4,
        y_of(hbm_bytes) - 4, human_bytes(hbm_bytes));
  }
  const int64_t at = std::max<int64_t>(0, m.peak_position);
  const double peak_x =
      kLeft + kWidth * (static_cast<double>(at) + 0.5) / static_cast<double>(positions);
  out += fmt::format(
      R"(<g class="peak-marker" data-position="{}" data-bytes="{}"><line x1="{:.1f}" y1="{}" )"
      R"(x2="{:.1f}" y2="{}" stroke="#000" stroke-width="1.5"/><text x="{:.1f}" y="{}" )"
      R"(font-size="12" font-family="sans-serif">peak {}{}</text></g>)",
      m.peak_position, peak, peak_x, kTop, peak_x, kTop + kHeight,
      std::min(peak_x, kLeft + kWidth - 260), kTop - 6, human_bytes(peak),
      m.peak_instruction.empty() ? "" : " at " + xml_escape(m.peak_instruction));
  out += fmt::format(
      R"(<text x="{}" y="{}" font-size="12" font-family="sans-serif">schedule: {} positions; )"
      R"(0 B at the bottom, {} at the top</text>)",
      kLeft, kTop + kHeight + 18, positions,
      human_bytes(static_cast<int64_t>(static_cast<double>(top) / 0.92)));
  out += fmt::format(R"(<text x="{}" y="{}" font-size="13" font-family="sans-serif">)"
                     R"(alive at the peak, largest first:</text>)",
                     kLeft, kTop + kHeight + 40);
  for (std::size_t i = 0; i < named; ++i) {
    const inputs::ProgramBuffer& b = m.live_at_peak[i];
    const std::string line =
        fmt::format("{} {} {} {}{}", human_bytes(b.size_bytes), inputs::buffer_kind_name(b.kind),
                    b.name, b.layout, b.source.empty() ? "" : "  " + b.source);
    out += fmt::format(
        R"(<g class="peak-buffer" data-offset="{}" data-name="{}" data-bytes="{}" data-info="{}">)"
        R"(<rect x="{}" y="{:.1f}" width="{}" height="16" fill="#ffffff" fill-opacity="0"/>)"
        R"(<text x="{}" y="{:.1f}" font-size="12" font-family="monospace">{}</text></g>)",
        i, xml_escape(b.name), b.size_bytes, xml_escape(line), kLeft - 4,
        kTop + kHeight + 45 + 18.0 * static_cast<double>(i), kWidth, kLeft,
        kTop + kHeight + 58 + 18.0 * static_cast<double>(i), xml_escape(line));
  }
  return out + "</svg>\n";
}

}  // namespace

std::string memory_svg(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                       const std::string& title) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_text(memory, hbm_bytes, title);
}

std::string memory_html(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                        const std::string& title) {
  return html_page(title, svg_text(memory, hbm_bytes, title));
}

void write_memory_picture(const inputs::ProgramMemory& memory, int64_t hbm_bytes,
                          const std::string& title, const std::string& path) {
  write_document(path, [&](PictureFormat format) {
    return format == PictureFormat::kSvg ? memory_svg(memory, hbm_bytes, title)
                                         : memory_html(memory, hbm_bytes, title);
  });
}

}  // namespace tessera::render
