// Reading a file for `tessera convert` ("mmap ... or chunked pread/pwrite with a bounded
// buffer, measure both"): the same conversion, a raw f32[N,N] file to T(8,128) in groups of
// ~32 MiB of destination pieces, with the input either mapped (io::InputFile: MADV_SEQUENTIAL,
// pages released after each group, what the CLI does) or read with pread into a bounded window
// of 40 MiB of reused pages. Both write into one pre-faulted buffer, so only the input differs;
// BM_FileRead/<size> is the floor: pread of the whole file through the same window, no work.
// BM_FileConvert/<size> is the whole of `tessera convert` (relayout::FileConversion: the input
// mapped, the output written into a temporary file and renamed, in the page cache).
//
//   tessera_bench --benchmark_filter='^BM_File' --benchmark_enable_random_interleaving=true
//     --benchmark_repetitions=5   (one command line)
//
// The input file, TMPDIR/tessera_file_input_<size>.raw (default /tmp), is written once per process
// and stays in the page cache (warm, as the issue measures). Threads: TESSERA_BENCH_THREADS or 2.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.h"
#include "tessera/io/input_file.h"
#include "tessera/relayout/file_conversion.h"
#include "tessera/relayout/layout_operand.h"
#include "tessera/relayout/relayout_plan.h"

namespace {

namespace relayout = tessera::relayout;

constexpr int64_t kGroupBytes = relayout::kFileGroupBytes;
constexpr int64_t kWindowBytes = int64_t{40} << 20;  // a group plus its last piece, rounded up

using tessera::bench::bench_threads;

struct FileCase {
  const char* name;
  int64_t n;  // f32[n,n]
};

const FileCase kFileCases[] = {{"256MiB", 8192}, {"1GiB", 16384}};

std::string input_path(const FileCase& c) {
  const char* directory = std::getenv("TMPDIR");
  return std::string(directory != nullptr ? directory : "/tmp") + "/tessera_file_input_" + c.name +
         ".raw";
}

// A case's plan, input file and destination.
struct FileData {
  explicit FileData(const FileCase& c)
      : path(input_path(c)),
        from(relayout::parse_layout_operand(fmt_shape(c.n, ""))),
        to(relayout::parse_layout_operand(fmt_shape(c.n, ":T(8,128)"))),
        plan(relayout::plan(*from.map, *to.map, {.threads = bench_threads()})),
        bytes(from.map->size_bytes()),
        destination(static_cast<std::size_t>(to.map->size_bytes()), std::byte{1}) {
    std::vector<uint32_t> chunk(std::size_t{1} << 20);
    const int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (descriptor < 0) throw std::runtime_error("cannot write " + path);
    uint32_t value = 0;
    for (int64_t written = 0; written < bytes;) {
      for (uint32_t& v : chunk) v = value++ * 2654435761u;
      const auto n = ::write(descriptor, chunk.data(), chunk.size() * 4);
      if (n <= 0) throw std::runtime_error("cannot write " + path);
      written += n;
    }
    ::close(descriptor);
  }
  ~FileData() { ::unlink(path.c_str()); }
  FileData(const FileData&) = delete;
  FileData& operator=(const FileData&) = delete;

  static std::string fmt_shape(int64_t n, const char* tiles) {
    const std::string d = std::to_string(n);
    return "f32[" + d + "," + d + "]{1,0" + tiles + "}";
  }

  std::string path;
  relayout::LayoutOperand from, to;
  relayout::RelayoutPlan plan;
  int64_t bytes;
  std::vector<std::byte> destination;
};

// Both cases are kept (1.25 GiB of destinations, 1.25 GiB of files in the page cache), so random
// interleaving does not rewrite a file between benchmarks.
std::unique_ptr<FileData> held[std::size(kFileCases)];

FileData& data_for(const FileCase& c) {
  std::unique_ptr<FileData>& slot = held[static_cast<std::size_t>(&c - kFileCases)];
  if (!slot) slot = std::make_unique<FileData>(c);
  return *slot;
}

// Calls run(first, end, source_begin, source_end) for each group of pieces, as file conversions
// group them. For a row-major source and T(8,128) (N a multiple of 128), the pieces are bands of
// whole tile rows in order, and a band of the destination reads exactly the same bytes of the
// source.
template <class F>
void for_each_group(const relayout::RelayoutPlan& plan, F&& run) {
  int64_t done = 0;
  for (const relayout::PieceGroup& group : relayout::piece_groups(plan, kGroupBytes)) {
    run(group.first, group.end, done, done + group.bytes);
    done += group.bytes;
  }
}

void report(benchmark::State& state, int64_t bytes, std::chrono::steady_clock::time_point start) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(bytes) * static_cast<double>(state.iterations()) / seconds);
}

void BM_FileMmap(benchmark::State& state, const FileCase* c) {
  FileData& data = data_for(*c);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const tessera::io::InputFile input(data.path);
    for_each_group(data.plan, [&](int64_t first, int64_t end, int64_t, int64_t) {
      data.plan.execute_pieces(input.bytes(), data.destination, first, end);
      input.release_mapped_pages();
    });
    benchmark::ClobberMemory();
  }
  report(state, data.bytes, start);
}

// A read-only view of the whole file whose only backed part is the current group: the window's
// pages (a memfd) are mapped at the group's place, filled with pread, and moved on.
struct PreadWindow {
  explicit PreadWindow(int64_t file_bytes)
      : size(static_cast<std::size_t>(file_bytes)), memory(::memfd_create("window", 0)) {
    if (memory < 0 || ::ftruncate(memory, kWindowBytes) != 0)
      throw std::runtime_error("memfd_create");
    void* reserved = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reserved == MAP_FAILED) throw std::runtime_error("mmap");
    view = static_cast<std::byte*>(reserved);
  }
  ~PreadWindow() {
    ::munmap(view, size);
    ::close(memory);
  }
  PreadWindow(const PreadWindow&) = delete;
  PreadWindow& operator=(const PreadWindow&) = delete;

  void fill(int file, int64_t begin, int64_t end) {
    auto* at = ::mmap(view + begin, static_cast<std::size_t>(end - begin), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_FIXED | MAP_POPULATE, memory, 0);
    if (at == MAP_FAILED) throw std::runtime_error("mmap window");
    for (int64_t at_byte = begin; at_byte < end;) {
      const auto n =
          ::pread(file, view + at_byte, static_cast<std::size_t>(end - at_byte), at_byte);
      if (n <= 0) throw std::runtime_error("pread");
      at_byte += n;
    }
  }
  void release(int64_t begin, int64_t end) {
    ::mmap(view + begin, static_cast<std::size_t>(end - begin), PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  }
  std::span<const std::byte> bytes() const { return {view, size}; }

  std::size_t size;
  int memory;
  std::byte* view = nullptr;
};

void BM_FilePread(benchmark::State& state, const FileCase* c) {
  FileData& data = data_for(*c);
  PreadWindow window(data.bytes);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const int file = ::open(data.path.c_str(), O_RDONLY);
    ::posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL);
    for_each_group(data.plan, [&](int64_t first, int64_t end, int64_t begin, int64_t stop) {
      window.fill(file, begin, stop);
      data.plan.execute_pieces(window.bytes(), data.destination, first, end);
      window.release(begin, stop);
    });
    ::close(file);
    benchmark::ClobberMemory();
  }
  report(state, data.bytes, start);
  // Outside the timing: the pread path wrote what the mapped path writes.
  std::vector<std::byte> by_pread = data.destination;
  const tessera::io::InputFile input(data.path);
  data.plan.execute(input.bytes(), data.destination);
  if (by_pread != data.destination) state.SkipWithError("pread and mmap outputs differ");
}

void BM_FileRead(benchmark::State& state, const FileCase* c) {
  FileData& data = data_for(*c);
  std::vector<std::byte> buffer(static_cast<std::size_t>(kGroupBytes));
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const int file = ::open(data.path.c_str(), O_RDONLY);
    for (int64_t at = 0; at < data.bytes;) {
      const auto n = ::pread(file, buffer.data(), buffer.size(), at);
      if (n <= 0) break;
      at += n;
    }
    ::close(file);
    benchmark::ClobberMemory();
  }
  report(state, data.bytes, start);
}

void BM_FileConvert(benchmark::State& state, const FileCase* c) {
  FileData& data = data_for(*c);
  relayout::FileConversionOptions options;
  options.from = data.from.text;
  options.to = data.to.text;
  options.relayout.threads = bench_threads();
  const std::string output = data.path + ".converted";
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    relayout::FileConversion conversion(data.path, output, options);
    conversion.write();
  }
  report(state, data.bytes, start);
  ::unlink(output.c_str());
}

const bool registered = [] {
  for (const FileCase& c : kFileCases) {
    const std::string name = c.name;
    benchmark::RegisterBenchmark(("BM_FileMmap/" + name).c_str(), BM_FileMmap, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_FilePread/" + name).c_str(), BM_FilePread, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_FileConvert/" + name).c_str(), BM_FileConvert, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_FileRead/" + name).c_str(), BM_FileRead, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
