#include "tessera/render/npu_plan_picture.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "render/html_page.h"
#include "render/picture_file.h"
#include "tessera/render/picture_documents.h"

namespace tessera::render {
namespace {

// At most this many block rows: the whole local memory stays one screen tall.
constexpr int64_t kMaxRows = 256;
constexpr std::array<const char*, 10> kTensorPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                                        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                                                        "#17becf", "#393b79"};
constexpr const char* kOverlapColour = "#d62728";
// Tensors a block's hover text names: 362 tensors at one address made every block's text name
// all 362, and the picture grows with the text.
constexpr std::size_t kMaxHoldersNamed = 4;

const char* colour(int64_t tensor) {
  return kTensorPalette[static_cast<std::size_t>(tensor) % kTensorPalette.size()];
}

// Bytes of `runs` inside [begin, end), and the first such byte.
std::pair<int64_t, int64_t> clip(const npu::ByteRuns& runs, int64_t begin, int64_t end) {
  auto it = std::upper_bound(runs.begin(), runs.end(), begin,
                             [](int64_t b, const npu::ByteRun& r) { return b < r.end; });
  int64_t bytes = 0;
  int64_t first = -1;
  for (; it != runs.end() && it->begin < end; ++it) {
    const int64_t lo = std::max(it->begin, begin);
    const int64_t hi = std::min(it->end, end);
    if (lo < hi) {
      if (first < 0) first = lo;
      bytes += hi - lo;
    }
  }
  return {bytes, first};
}

}  // namespace

NpuPlanPicture build_npu_plan_picture(const npu::PlanCheck& check) {
  const npu::Device& device = check.plan.device;
  NpuPlanPicture p;
  p.npus = std::min(device.npus, kMaxPlanPictureNpus);
  p.bank_bytes = device.bank_bytes();
  p.block_bytes = 4;  // the spec's figures draw 4-byte blocks
  while (device.local_memory_bytes / p.block_bytes > kMaxRows) p.block_bytes *= 2;
  p.rows = (device.local_memory_bytes + p.block_bytes - 1) / p.block_bytes;
  std::vector<const npu::PlannedTensor*> shown;
  for (const npu::PlannedTensor& t : check.tensors) {
    if (t.fits) {
      shown.push_back(&t);
      p.names.push_back(t.name);
    }
  }
  p.title = fmt::format("local memory plan: {} tensors on {}", shown.size(), device.name);
  p.subtitle = fmt::format(
      "{} NPUs x {} bytes, {} bank(s) of {} bytes; one block = {} bytes; {} overlapping "
      "pair(s), {} empty-block reuse(s)",
      device.npus, device.local_memory_bytes, device.banks, device.bank_bytes(), p.block_bytes,
      check.counts.overlaps, check.counts.empty_block_reuse);
  if (p.npus < device.npus) {
    p.subtitle += fmt::format("; NPUs 0-{} drawn of {}", p.npus - 1, device.npus);
  }
  for (int64_t row = 0; row < p.rows; ++row) {
    for (int64_t q = 0; q < p.npus; ++q) {
      PlanBlock block;
      block.npu = q;
      block.byte_offset = row * p.block_bytes;
      block.address = q * device.local_memory_bytes + block.byte_offset;
      const int64_t end = std::min(block.byte_offset + p.block_bytes, device.local_memory_bytes);
      int64_t most = 0;
      std::vector<std::string> holders;
      int64_t unnamed_holders = 0;  // past kMaxHoldersNamed
      npu::ByteRuns stored;
      for (std::size_t i = 0; i < shown.size(); ++i) {
        const npu::ByteRuns& runs = shown[i]->runs[static_cast<std::size_t>(q)];
        const auto [bytes, first] = clip(runs, block.byte_offset, end);
        if (bytes > 0) {
          if (holders.size() < kMaxHoldersNamed) {
            const auto element = npu::element_at_byte(*shown[i]->tensor, q, first);
            holders.push_back(fmt::format(
                "{} {}", shown[i]->name,
                element ? fmt::format("({})", fmt::join(*element, ",")) : std::string("dummy")));
          } else {
            ++unnamed_holders;
          }
          if (!block.overlap) {  // once red, the block needs no more comparing
            const npu::ByteRuns mine = npu::intersect_runs(runs, {{block.byte_offset, end}});
            if (!npu::intersect_runs(stored, mine).empty()) block.overlap = true;
            stored = npu::unite_runs(stored, mine);
          }
          if (bytes > most) {
            most = bytes;
            block.owner = static_cast<int64_t>(i);
          }
        } else if (block.band_owner < 0) {
          const int64_t band_begin = shown[i]->tensor->start().offset;
          if (block.byte_offset < band_begin + shown[i]->bytes_per_npu && end > band_begin) {
            block.band_owner = static_cast<int64_t>(i);
          }
        }
      }
      const std::string where = fmt::format("NPU {}, bytes {}-{}, bank {}", q, block.byte_offset,
                                            end - 1, block.byte_offset / p.bank_bytes);
      if (unnamed_holders > 0) {
        holders.push_back(fmt::format("{} more tensor(s)", unnamed_holders));
      }
      if (!holders.empty()) {
        block.info = fmt::format("{}{} | {}", block.overlap ? "OVERLAP: " : "",
                                 fmt::join(holders, " & "), where);
      } else if (block.band_owner >= 0) {
        block.info = fmt::format("empty block in the band of {} | {}",
                                 shown[static_cast<std::size_t>(block.band_owner)]->name, where);
      } else {
        block.info = fmt::format("free | {}", where);
      }
      p.blocks.push_back(std::move(block));
    }
  }
  return p;
}

namespace {

std::string plan_svg_body(const NpuPlanPicture& p) {
  const double column = std::clamp(1100.0 / static_cast<double>(p.npus), 14.0, 90.0);
  const double gap = column > 30 ? 4 : 1;
  const double row_height = p.rows > 128 ? 4 : 8;
  const double left = 120;  // room for "524288 (bank 7)"
  const double top = 100;
  const double body = static_cast<double>(p.rows) * row_height;
  const double legend_rows = static_cast<double>(p.names.size() + 3);
  const double width = std::max(left + static_cast<double>(p.npus) * (column + gap) + 40, 760.0);
  const double height = top + body + 30 + legend_rows * 20;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" font-family="DejaVu Sans, Arial, sans-serif">)",
      width, height, width, height);
  out += "\n<defs>";
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    out += fmt::format(
        R"svg(<pattern id="band{}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="{}" stroke-width="2.5"/></pattern>)svg",
        i, colour(static_cast<int64_t>(i)));
  }
  out += "</defs>\n";
  out += fmt::format(R"(<rect x="0" y="0" width="{:.0f}" height="{:.0f}" fill="#ffffff"/>)", width,
                     height);
  out += fmt::format(R"(<text x="20" y="30" font-size="17" font-weight="bold">{}</text>)",
                     xml_escape(p.title));
  out += fmt::format(R"(<text x="20" y="52" font-size="12.5" fill="#444">{}</text>)",
                     xml_escape(p.subtitle));
  out += fmt::format(
      R"(<text x="20" y="72" font-size="12.5">{}</text>)",
      xml_escape(p.caption.empty()
                     ? "one column per NPU, byte offsets on the left; dashed lines: bank boundaries"
                     : p.caption));
  out += "\n";
  for (int64_t q = 0; q < p.npus; ++q) {
    if (p.npus > 16 && q % 8 != 0) continue;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="11" font-weight="bold" text-anchor="middle">{}</text>)",
        left + static_cast<double>(q) * (column + gap) + column / 2, top - 8,
        q < static_cast<int64_t>(p.column_labels.size())
            ? xml_escape(p.column_labels[static_cast<std::size_t>(q)])
        : p.npus > 16 ? std::to_string(q)
                      : fmt::format("NPU {}", q));
  }
  std::vector<bool> labelled(p.names.size(), false);
  for (std::size_t k = 0; k < p.blocks.size(); ++k) {
    const PlanBlock& b = p.blocks[k];
    const int64_t row = b.byte_offset / p.block_bytes;
    const double x = left + static_cast<double>(b.npu) * (column + gap);
    const double y = top + static_cast<double>(row) * row_height;
    std::string fill = "#f4f4f4";
    if (b.overlap) {
      fill = kOverlapColour;
    } else if (b.owner >= 0) {
      fill = colour(b.owner);
    } else if (b.band_owner >= 0) {
      fill = fmt::format("url(#band{})", b.band_owner);
    }
    out += fmt::format(
        R"(<g class="grid-cell" data-offset="{}" data-byte="{}" data-tile="NPU {}" data-padding="{}" data-info="{}"><rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"/><title>{}</title></g>)",
        b.address, b.address, b.npu, b.owner < 0 ? 1 : 0, xml_escape(b.info), x, y, column,
        row_height, fill, xml_escape(b.info));
    out += "\n";
  }
  // Names on the first block each tensor owns (reading order), then the bank boundaries.
  for (const PlanBlock& b : p.blocks) {
    if (b.owner < 0 || labelled[static_cast<std::size_t>(b.owner)]) continue;
    labelled[static_cast<std::size_t>(b.owner)] = true;
    const double x = left + static_cast<double>(b.npu) * (column + gap) + 2;
    const double y = top + static_cast<double>(b.byte_offset / p.block_bytes) * row_height;
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="11" font-weight="bold" fill="#000" stroke="#fff" stroke-width="3" paint-order="stroke" dominant-baseline="hanging" pointer-events="none">{}</text>)",
        x, y + 1, xml_escape(p.names[static_cast<std::size_t>(b.owner)]));
  }
  const double right = left + static_cast<double>(p.npus) * (column + gap);
  for (int64_t bank = 0; bank * p.bank_bytes < p.rows * p.block_bytes; ++bank) {
    const double y = top + static_cast<double>(bank * p.bank_bytes) /
                               static_cast<double>(p.block_bytes) * row_height;
    out += fmt::format(
        R"(<path d="M{:.1f},{:.1f}H{:.1f}" stroke="#000" stroke-width="1" stroke-dasharray="5,3" pointer-events="none"/><text x="{:.1f}" y="{:.1f}" font-size="10" fill="#333" text-anchor="end" dominant-baseline="hanging">{} (bank {})</text>)",
        left - 4, y, right, left - 6, y + 1, bank * p.bank_bytes, bank);
  }
  out += fmt::format(
      R"(<text x="{:.1f}" y="{:.1f}" font-size="10" fill="#333" text-anchor="end">{}</text>)",
      left - 6, top + body, p.rows * p.block_bytes);
  double ly = top + body + 24;
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    out += fmt::format(
        R"svg(<rect x="20" y="{:.0f}" width="28" height="14" fill="{}"/><rect x="54" y="{:.0f}" width="28" height="14" fill="url(#band{})" stroke="{}"/><text x="90" y="{:.0f}" font-size="12">{} (stored bytes; hatched: empty blocks of its band)</text>)svg",
        ly, colour(static_cast<int64_t>(i)), ly, i, colour(static_cast<int64_t>(i)), ly + 11,
        xml_escape(p.names[i]));
    ly += 20;
  }
  out += fmt::format(
      R"(<rect x="20" y="{:.0f}" width="28" height="14" fill="{}"/><text x="54" y="{:.0f}" font-size="12">overlap: two tensors store the same bytes</text>)",
      ly, kOverlapColour, ly + 11);
  ly += 20;
  out += fmt::format(
      R"(<rect x="20" y="{:.0f}" width="28" height="14" fill="#f4f4f4"/><text x="54" y="{:.0f}" font-size="12">free</text>)",
      ly, ly + 11);
  out += "\n</svg>\n";
  return out;
}

}  // namespace

std::string npu_plan_svg(const NpuPlanPicture& picture) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + plan_svg_body(picture);
}

std::string npu_plan_html(const NpuPlanPicture& picture) {
  return html_page(picture.title, plan_svg_body(picture));
}

void write_picture(const NpuPlanPicture& picture, const std::string& path) {
  write_document(path, [&](PictureFormat format) {
    return format == PictureFormat::kSvg ? npu_plan_svg(picture) : npu_plan_html(picture);
  });
}

}  // namespace tessera::render
