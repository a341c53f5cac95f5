#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <vector>

#include "render/html_page.h"
#include "render/picture_file.h"
#include "tessera/render/npu_picture.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {
namespace {

// Channel colours (the same channel always lands on the same NPU, spec "Scatter Features").
constexpr std::array<const char*, 12> kChannelPalette = {
    "#9ecae1", "#fdae6b", "#a1d99b", "#fc9272", "#bcbddc", "#fdd0a2",
    "#c7e9c0", "#dadaeb", "#f7b6d2", "#c6dbef", "#e7cb94", "#b5cf6b"};
constexpr double kBlockWidth = 76;
constexpr double kBlockHeight = 20;
constexpr double kLeft = 90;
constexpr double kTop = 100;

std::string element_text(const std::optional<std::vector<int64_t>>& e) {
  return e ? fmt::format("({})", fmt::join(*e, ",")) : std::string("dummy");
}

std::string block_group(const NpuBlock& b, double x, double y) {
  std::string contents;
  for (std::size_t k = 0; k < b.elements.size(); ++k) {
    contents += (k ? " " : "") + element_text(b.elements[k]);
  }
  const bool empty = b.elements.empty();
  const std::string where = fmt::format("NPU {}, byte {}, bank {}", b.npu, b.byte_offset, b.bank);
  const std::string info =
      empty ? fmt::format("empty block | {} | address {}", where, b.address)
            : fmt::format("{}{} | {} | address {}", contents,
                          b.past_matrix ? " (past the matrix's columns)" : "", where, b.address);
  std::string out = fmt::format(R"(<g class="grid-cell" data-offset="{}")", b.address);
  if (!empty && b.elements.front()) {
    out += fmt::format(R"( data-index="{}")", fmt::join(*b.elements.front(), ","));
  }
  out += fmt::format(R"( data-tile="{}" data-byte="{}" data-padding="{}" data-info="{}">)",
                     xml_escape(where), b.address, empty ? 1 : 0, xml_escape(info));
  if (empty) {
    out += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" fill="#ffffff" stroke="#c8c8c8" stroke-dasharray="2,2"/>)",
        x, y, kBlockWidth, kBlockHeight);
  } else {
    const char* fill =
        b.past_matrix
            ? "#eeeeee"
            : kChannelPalette[static_cast<std::size_t>(b.channel) % kChannelPalette.size()];
    const double part = kBlockWidth / static_cast<double>(b.elements.size());
    for (std::size_t k = 0; k < b.elements.size(); ++k) {
      out += fmt::format(
          R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}" stroke="#ffffff"/>)",
          x + part * static_cast<double>(k), y, part, kBlockHeight,
          b.elements[k] ? fill : "url(#dummy)");
    }
    // The label: the element; for a packed block the range of the packed first axis and the
    // rest of the index ("n4-5 0,0,0": n = 4 and 5, then dummies).
    std::string label;
    if (b.past_matrix) {
      label = "past M";
    } else if (b.elements.size() == 1) {
      label = fmt::format("{}", fmt::join(*b.elements.front(), ","));
    } else {
      const auto& first = *b.elements.front();
      int64_t last = first[0];
      for (const auto& e : b.elements) {
        if (e) last = (*e)[0];
      }
      const std::vector<int64_t> rest(first.begin() + 1, first.end());
      label = fmt::format("n{}-{} {}", first[0], last, fmt::join(rest, ","));
    }
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="middle" dominant-baseline="central">{}</text>)",
        x + kBlockWidth / 2, y + kBlockHeight / 2, label.size() > 12 ? 8.5 : 10.5,
        xml_escape(label));
  }
  out += fmt::format("<title>{}</title></g>\n", xml_escape(info));
  return out;
}

// Long runs of rows that are empty in every NPU shown (the aligned layout's gaps, unused channel
// rows) are drawn as one short "... N empty rows ..." band: the picture stays readable.
constexpr int64_t kMinRowsToAggregate = 4;
constexpr double kSkipHeight = 16;

struct VisualRow {
  int64_t row = 0;      // a drawn row of the window
  int64_t skipped = 0;  // or, when > 0, a band standing for this many empty rows
};

std::vector<VisualRow> aggregate_empty_rows(const NpuPicture& p, int64_t rows, int64_t columns) {
  auto empty = [&](int64_t r) {
    for (int64_t c = 0; c < columns; ++c) {
      if (!p.blocks[static_cast<std::size_t>(r * columns + c)].elements.empty()) return false;
    }
    return true;
  };
  std::vector<VisualRow> out;
  for (int64_t r = 0; r < rows;) {
    int64_t end = r;
    while (end < rows && empty(end)) ++end;
    if (end - r >= kMinRowsToAggregate + 2) {
      out.push_back({r, 0});  // keep the first and last empty row so the gap's edges show
      out.push_back({0, end - r - 2});
      out.push_back({end - 1, 0});
      r = end;
    } else {
      out.push_back({r, 0});
      ++r;
    }
  }
  return out;
}

std::string npu_svg_body(const NpuPicture& p) {
  const int64_t columns = p.window.col_end - p.window.col_begin;
  const int64_t rows = p.window.row_end - p.window.row_begin;
  const double width =
      std::max(kLeft + static_cast<double>(columns) * (kBlockWidth + 6) + 30, 900.0);
  const std::vector<VisualRow> visual_rows = aggregate_empty_rows(p, rows, columns);
  double drawn_height = 0;
  for (const VisualRow& v : visual_rows) drawn_height += v.skipped > 0 ? kSkipHeight : kBlockHeight;
  const double height = kTop + drawn_height + 80;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="DejaVu Sans, Arial, sans-serif">)",
      width, height, width, height);
  out +=
      "\n<defs><pattern id=\"dummy\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f0f0f0\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888\" "
      "stroke-width=\"2\"/></pattern></defs>\n";
  out += fmt::format(R"(<rect x="0" y="0" width="{:.0f}" height="{:.0f}" fill="#ffffff"/>)", width,
                     height);
  out += fmt::format(R"(<text x="20" y="30" font-size="17" font-weight="bold">{}</text>)",
                     xml_escape(p.title));
  out += fmt::format(R"(<text x="20" y="52" font-size="12.5" fill="#444">{}</text>)",
                     xml_escape(p.subtitle));
  std::string caption = "local memory: one column per NPU, byte offsets on the left";
  if (p.window.row_begin != 0 || p.window.row_end != p.rows || p.window.col_begin != 0 ||
      p.window.col_end != p.npus) {
    caption += fmt::format(" (block rows {}:{} of {}, NPUs {}:{} of {})", p.window.row_begin,
                           p.window.row_end, p.rows, p.window.col_begin, p.window.col_end, p.npus);
  }
  out += fmt::format(R"(<text x="20" y="72" font-size="12.5">{}</text>)", xml_escape(caption));
  out += "\n";
  for (int64_t c = 0; c < columns; ++c) {
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="12" font-weight="bold" text-anchor="middle">NPU {}</text>)",
        kLeft + static_cast<double>(c) * (kBlockWidth + 6) + kBlockWidth / 2, kTop - 8,
        p.window.col_begin + c);
  }
  double y = kTop;
  for (const VisualRow& visual : visual_rows) {
    if (visual.skipped > 0) {
      out += fmt::format(
          R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="#888" font-style="italic" dominant-baseline="central">... {} empty rows ({} bytes) in every NPU shown ...</text>)",
          kLeft + 8, y + kSkipHeight / 2, visual.skipped, visual.skipped * p.block_bytes);
      y += kSkipHeight;
      continue;
    }
    const int64_t r = visual.row;
    const int64_t byte = p.first_byte + (p.window.row_begin + r) * p.block_bytes;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="10" fill="#666" text-anchor="end" dominant-baseline="central">{}</text>)",
        kLeft - 8, y + kBlockHeight / 2, byte);
    if (p.batch_bytes > 0 && r > 0 && (byte - p.first_byte) % p.batch_bytes == 0) {
      out += fmt::format(
          R"(<path d="M{:.1f},{:.1f}h{:.1f}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6,3"/>)",
          kLeft - 4, y, static_cast<double>(columns) * (kBlockWidth + 6));
    }
    for (int64_t c = 0; c < columns; ++c) {
      const auto& block = p.blocks[static_cast<std::size_t>(r * columns + c)];
      out += block_group(block, kLeft + static_cast<double>(c) * (kBlockWidth + 6), y);
    }
    y += kBlockHeight;
  }
  const double ly = height - 40;
  out += fmt::format(
      R"(<rect x="20" y="{:.0f}" width="28" height="14" fill="#fff" stroke="#c8c8c8" stroke-dasharray="2,2"/><text x="54" y="{:.0f}" font-size="12">empty block (gap or unused channel slot)</text>)",
      ly, ly + 11);
  out += fmt::format(
      R"svg(<rect x="330" y="{:.0f}" width="28" height="14" fill="url(#dummy)"/><text x="364" y="{:.0f}" font-size="12">dummy (4N/2N/2IC packing)</text>)svg",
      ly, ly + 11);
  out += fmt::format(
      R"(<path d="M560,{:.0f}h28" stroke="#d62728" stroke-width="1.5" stroke-dasharray="6,3"/><text x="594" y="{:.0f}" font-size="12">next batch n (N stride)</text>)",
      ly + 7, ly + 11);
  out += "\n</svg>\n";
  return out;
}

}  // namespace

std::string npu_svg(const NpuPicture& picture) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + npu_svg_body(picture);
}

std::string npu_html(const NpuPicture& picture) {
  return html_page(picture.title, npu_svg_body(picture));
}

void write_picture(const NpuPicture& picture, const std::string& path) {
  write_document(path, [&](PictureFormat format) {
    return format == PictureFormat::kSvg ? npu_svg(picture) : npu_html(picture);
  });
}

}  // namespace tessera::render
