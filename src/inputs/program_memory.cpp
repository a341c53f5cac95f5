#include "tessera/inputs/program_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "hlo_module_header.h"
#include "program_buffers.h"
#include "program_liveness.h"
#include "tessera/explain/layout_explanation.h"
#include "tessera/tpu/generations.h"
#include "tessera/utf8_text.h"

namespace tessera::inputs {
namespace {

// The generation's record (tessera/tpu/generations.h), or none for a target without one.
const tpu::TpuGeneration* generation_of(const tpu::TpuTarget& target) {
  return target.is_tpu() ? &tpu::tpu_generation(target) : nullptr;
}

int64_t output_tuple_table_bytes(int64_t elements, const tpu::TpuTarget& target) {
  if (elements == 0) return 0;
  const tpu::TpuGeneration* g = generation_of(target);
  const int64_t granule = g ? g->output_table_granule : 512;
  return (4 * elements + granule - 1) / granule * granule;
}

std::string space_name(int64_t space) {
  switch (space) {
    case 0:
      return "hbm";
    case 1:
      return "vmem";
    case 2:
      return "smem";
    default:
      return fmt::format("S({})", space);
  }
}

void add_figures(nlohmann::ordered_json& out, const MemoryFigures& f) {
  out["argument_size_in_bytes"] = f.argument_size_in_bytes;
  out["output_size_in_bytes"] = f.output_size_in_bytes;
  out["alias_size_in_bytes"] = f.alias_size_in_bytes;
  out["temp_size_in_bytes"] = f.temp_size_in_bytes;
  out["peak_bytes"] = f.peak_bytes();
}

// At most this many buffers alive at the peak are kept (a module can hold 100,000 parameters).
constexpr std::size_t kMaxLiveAtPeak = 1000;

int64_t fixes_saving(const ProgramMemory& m) {
  int64_t saving = 0;
  for (const PeakFix& f : m.fixes) saving += f.saves_at_peak;
  return saving;
}

}  // namespace

const std::size_t kFixedBuffers = 5;

std::string_view buffer_kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::kParameter:
      return "parameter";
    case BufferKind::kOutput:
      return "output";
    case BufferKind::kTemporary:
      return "temporary";
  }
  return "temporary";
}

std::string_view memory_basis_name(MemoryBasis basis) {
  switch (basis) {
    case MemoryBasis::kSchedule:
      return "schedule";
    case MemoryBasis::kEstimate:
      return "estimate";
    case MemoryBasis::kBufferAssignment:
      return "buffer_assignment";
  }
  return "estimate";
}

int64_t hbm_capacity_bytes(const tpu::TpuTarget& target) {
  const tpu::TpuGeneration* g = generation_of(target);
  return g ? tpu::hbm_bytes(*g) : 0;
}

ProgramMemory program_memory(std::string_view module_text, const HloModuleText& module,
                             const tpu::TpuTarget& target) {
  const HloModuleHeader header = read_hlo_module_header(module_text);
  ScheduledBuffers scheduled = schedule_buffers(module, header, target);
  ProgramMemory m;
  m.basis = header.scheduled ? MemoryBasis::kSchedule : MemoryBasis::kEstimate;
  m.schedule_length = static_cast<int64_t>(scheduled.schedule.size());
  place_temporaries_in_outputs(scheduled.buffers);
  std::vector<int64_t> hbm_temporaries;
  const auto peaks = temporary_peaks(scheduled.buffers, m.schedule_length, &hbm_temporaries);
  for (int64_t space = 0; space < 8; ++space) {
    MemoryFigures f;
    f.argument_size_in_bytes = scheduled.argument_bytes_by_space[space];
    f.output_size_in_bytes = scheduled.output_bytes_by_space[space];
    if (space == 0) {
      f.output_size_in_bytes += output_tuple_table_bytes(scheduled.output_tuple_elements, target);
      f.alias_size_in_bytes = scheduled.alias_bytes;
    }
    if (const auto peak = peaks.find(space); peak != peaks.end()) {
      f.temp_size_in_bytes = peak->second.bytes;
    }
    if (space == 0) m.hbm = f;
    if (space == 0 || f.peak_bytes() > 0) m.memory_spaces.push_back({space, f});
  }
  for (const auto& [space, peak] : peaks) {
    if (space >= 8) m.memory_spaces.push_back({space, {0, 0, 0, peak.bytes}});
  }
  if (const auto peak = peaks.find(0); peak != peaks.end() && peak->second.bytes > 0) {
    m.peak_position = peak->second.position;
    m.peak_instruction = scheduled.schedule[static_cast<std::size_t>(m.peak_position)];
  }
  m.live_at_peak = hbm_buffers_alive_at(scheduled.buffers, m.peak_position);
  if (m.live_at_peak.size() > kMaxLiveAtPeak) m.live_at_peak.resize(kMaxLiveAtPeak);
  const int64_t held =
      m.hbm.argument_size_in_bytes + m.hbm.output_size_in_bytes - m.hbm.alias_size_in_bytes;
  m.hbm_over_schedule.reserve(hbm_temporaries.size());
  for (int64_t t : hbm_temporaries) m.hbm_over_schedule.push_back(held + t);
  if (hbm_temporaries.empty())
    m.hbm_over_schedule.assign(static_cast<std::size_t>(m.schedule_length), held);
  m.fixes = peak_fixes(m, target, kFixedBuffers);
  m.buffers = std::move(scheduled.buffers);
  m.notes = std::move(scheduled.notes);
  if (m.basis == MemoryBasis::kEstimate) {
    m.notes.insert(m.notes.begin(),
                   "the module is not scheduled (no is_scheduled=true): the order of its text "
                   "stands in for the schedule, and the compiler will still fuse, lay out and "
                   "reorder it: an estimate");
  }
  return m;
}

ProgramMemory with_buffer_assignment(ProgramMemory from_module, const ProgramMemory& assigned) {
  from_module.basis = MemoryBasis::kBufferAssignment;
  from_module.hbm = assigned.hbm;
  from_module.memory_spaces = assigned.memory_spaces;
  const int64_t held = assigned.hbm.argument_size_in_bytes + assigned.hbm.output_size_in_bytes -
                       assigned.hbm.alias_size_in_bytes;
  // The live ranges stay the module's; the level they stand on is the compiler's.
  const int64_t lowest = from_module.hbm_over_schedule.empty()
                             ? 0
                             : *std::min_element(from_module.hbm_over_schedule.begin(),
                                                 from_module.hbm_over_schedule.end());
  for (int64_t& bytes : from_module.hbm_over_schedule) bytes = held + (bytes - lowest);
  from_module.notes.push_back(
      "the figures are the compiler's buffer assignment's; the live ranges are the module's");
  return from_module;
}

nlohmann::ordered_json program_memory_json(const ProgramMemory& m) {
  // Names, layouts and metadata come from the module's text as they are: JSON holds them as
  // printable UTF-8 (tests/fuzz seeds: fuzz/seeds/program_memory/).
  const auto text = [](const std::string& s) { return printable_utf8(s); };
  nlohmann::ordered_json out = {{"basis", memory_basis_name(m.basis)}};
  add_figures(out, m.hbm);
  nlohmann::ordered_json spaces = nlohmann::ordered_json::array();
  for (const MemorySpaceFigures& s : m.memory_spaces) {
    nlohmann::ordered_json item = {{"memory_space", s.memory_space},
                                   {"name", space_name(s.memory_space)}};
    add_figures(item, s.figures);
    if (s.allocated_bytes >= 0) item["allocated_bytes"] = s.allocated_bytes;
    spaces.push_back(std::move(item));
  }
  out["memory_spaces"] = std::move(spaces);
  out["schedule_length"] = m.schedule_length;
  out["peak_position"] = m.peak_position;
  out["peak_instruction"] = text(m.peak_instruction);
  nlohmann::ordered_json live = nlohmann::ordered_json::array();
  for (const ProgramBuffer& b : m.live_at_peak) {
    live.push_back({{"name", text(b.name)},
                    {"layout", text(b.layout)},
                    {"size_bytes", b.size_bytes},
                    {"kind", buffer_kind_name(b.kind)},
                    {"op_name", text(b.op_name)},
                    {"source", text(b.source)}});
  }
  out["live_at_peak"] = std::move(live);
  nlohmann::ordered_json fixes = nlohmann::ordered_json::array();
  for (const PeakFix& f : m.fixes) {
    fixes.push_back({{"buffer", text(f.buffer)},
                     {"change", text(f.change)},
                     {"saves_at_peak_bytes", f.saves_at_peak},
                     {"user_can_change", f.user_can_change}});
  }
  out["fixes"] = std::move(fixes);
  out["fixes_saving_bytes"] = fixes_saving(m);
  out["peak_after_fixes_bytes"] = m.hbm.peak_bytes() - fixes_saving(m);
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const std::string& note : m.notes) notes.push_back(text(note));
  out["notes"] = std::move(notes);
  return out;
}

std::string program_memory_text(const ProgramMemory& m, const tpu::TpuTarget& target,
                                std::size_t top) {
  using explain::human_bytes;
  const MemoryFigures& f = m.hbm;
  std::string out = fmt::format(
      "HBM, as the compiler counts it ({}):\n",
      m.basis == MemoryBasis::kBufferAssignment ? "the compiler's buffer assignment"
      : m.basis == MemoryBasis::kSchedule
          ? fmt::format("live ranges on the schedule of {} instructions", m.schedule_length)
          : "an estimate: the module is not scheduled");
  auto row = [&](std::string_view what, int64_t bytes, std::string_view note) {
    out += fmt::format("  {:<13}{:>12}{}{}\n", what, human_bytes(bytes), note.empty() ? "" : "  ",
                       note);
  };
  row("arguments", f.argument_size_in_bytes, "");
  row("outputs", f.output_size_in_bytes, "");
  row("aliased", f.alias_size_in_bytes, "donated arguments that are outputs too, counted once");
  row("temporaries", f.temp_size_in_bytes,
      m.peak_instruction.empty()
          ? "alive at once at the peak"
          : fmt::format("at the peak, at {} (position {} of {})", m.peak_instruction,
                        m.peak_position, m.schedule_length));
  const int64_t capacity = hbm_capacity_bytes(target);
  const std::string generation(tpu::target_name(target));
  std::string verdict;
  if (capacity > 0) {
    verdict = f.peak_bytes() <= capacity
                  ? fmt::format("of {} HBM on {}: fits", human_bytes(capacity), generation)
                  : fmt::format("of {} HBM on {}: DOES NOT FIT, {} over", human_bytes(capacity),
                                generation, human_bytes(f.peak_bytes() - capacity));
  }
  row("peak", f.peak_bytes(), verdict);
  for (const MemorySpaceFigures& s : m.memory_spaces) {
    if (s.memory_space == 0 || s.figures.peak_bytes() == 0) continue;
    const std::string name = space_name(s.memory_space);
    out +=
        fmt::format("  ({}: {} at its peak, apart from HBM)\n",
                    name.starts_with("S(") ? name : fmt::format("{} S({})", name, s.memory_space),
                    human_bytes(s.figures.peak_bytes()));
  }
  if (!m.live_at_peak.empty()) {
    out += "buffers alive at the peak, largest first:\n";
    const std::size_t shown = std::min(top, m.live_at_peak.size());
    for (std::size_t i = 0; i < shown; ++i) {
      const ProgramBuffer& b = m.live_at_peak[i];
      out += fmt::format("  {:>3}  {:>10}  {:<9}  {}  {}{}\n", i + 1, human_bytes(b.size_bytes),
                         buffer_kind_name(b.kind), b.name, b.layout,
                         b.donated ? "  (in its donated parameter's buffer, counted once)" : "");
      if (!b.op_name.empty() || !b.source.empty()) {
        out += fmt::format("        op_name={} source={}\n", b.op_name.empty() ? "-" : b.op_name,
                           b.source.empty() ? "-" : b.source);
      }
    }
    if (shown < m.live_at_peak.size()) {
      out += fmt::format("  ... {} more (--json lists them)\n", m.live_at_peak.size() - shown);
    }
  }
  if (!m.fixes.empty()) {
    out += "what would lower the peak, largest buffer first:\n";
    for (const PeakFix& fix : m.fixes) {
      out += fmt::format("  {}: {}{}\n", fix.buffer, fix.change.empty() ? "-" : fix.change,
                         fix.saves_at_peak > 0 ? fmt::format(" (at most {} less at the peak)",
                                                             human_bytes(fix.saves_at_peak))
                                               : "");
    }
    const int64_t after = f.peak_bytes() - fixes_saving(m);
    out += fmt::format("fixing the top {} saves at most {} at the peak: {}{}\n", m.fixes.size(),
                       human_bytes(fixes_saving(m)), human_bytes(after),
                       capacity == 0 ? ""
                       : after <= capacity
                           ? fmt::format(", under the {} of HBM", human_bytes(capacity))
                           : fmt::format(", still over the {} of HBM", human_bytes(capacity)));
  }
  for (const std::string& note : m.notes) out += "note: " + note + "\n";
  return out;
}

}  // namespace tessera::inputs
