// The CUDA runtime API on the emulator: memory (host memory standing in for device memory, with a
// registry so bad pointers and copies are reported), streams and events (launches are synchronous,
// so they only order host work), the modelled device, errors, and the launch entry point.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#include "internal.hpp"

namespace scanlab_emu::detail {
namespace {

cudaError_t last_error = cudaSuccess;     // what cudaGetLastError returns
cudaError_t pending_error = cudaSuccess;  // a failed kernel, reported by the next synchronizing call
std::size_t max_dynamic_optin = 0;        // the largest cudaFuncAttributeMaxDynamicSharedMemorySize set

struct Allocation {
  std::size_t bytes;
  std::size_t id;
  void* mapping;  // the pages holding it, with a guard page before and after them
  std::size_t mapping_bytes;
};
std::map<const char*, Allocation> allocations;  // device allocations by start address
std::size_t allocation_count = 0;
std::size_t allocated_bytes = 0;  // the sum of the live allocations' sizes

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

// Synchronizing calls report a kernel's failure once.
cudaError_t take_pending() {
  cudaError_t e = pending_error;
  pending_error = cudaSuccess;
  return set_error(e);
}

const Allocation* find_allocation(const void* p, const char** start) {
  const char* a = static_cast<const char*>(p);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (a >= it->first && a < it->first + std::max<std::size_t>(it->second.bytes, 1)) {
    if (start) *start = it->first;
    return &it->second;
  }
  return nullptr;
}

}  // namespace

// For memcheck and the fault handler: the allocation whose pages (guard pages included) hold p, or
// with `nearest`, the allocation whose pages are closest to p.
bool allocation_around(const void* p, AllocationInfo& out, bool nearest) {
  const char* a = static_cast<const char*>(p);
  auto after = allocations.upper_bound(a);
  const std::pair<const char* const, Allocation>* best = nullptr;
  std::size_t best_distance = ~std::size_t(0);
  auto consider = [&](const std::pair<const char* const, Allocation>& e) {
    const char* lo = static_cast<const char*>(e.second.mapping);
    const char* hi = lo + e.second.mapping_bytes;
    const std::size_t d = a < lo ? std::size_t(lo - a) : a >= hi ? std::size_t(a - hi) + 1 : 0;
    if (d < best_distance) {
      best_distance = d;
      best = &e;
    }
  };
  if (after != allocations.end()) consider(*after);
  if (after != allocations.begin()) consider(*std::prev(after));
  if (!best || (best_distance != 0 && !nearest)) return false;
  out.start = best->first;
  out.bytes = best->second.bytes;
  out.id = best->second.id;
  out.pages_lo = static_cast<const char*>(best->second.mapping);
  out.pages_hi = out.pages_lo + best->second.mapping_bytes;
  return true;
}

namespace {

struct Event {
  std::chrono::steady_clock::time_point when{};
  bool recorded = false;
};
struct Stream {};

cudaError_t in_kernel_error(const char* what) {
  std::fprintf(stderr, "scanlab emulator: %s called inside a kernel is not supported\n", what);
  return set_error(cudaErrorNotSupported);
}

}  // namespace

const cudaDeviceProp& modelled_device() {
  static const cudaDeviceProp prop = [] {
    cudaDeviceProp p{};
    std::snprintf(p.name, sizeof p.name, "scanlab CPU SIMT emulator (models 8 SMs of sm_90)");
    // Half the machine's RAM (the host needs the rest, for its own copies), or --device-memory.
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    p.totalGlobalMem = (pages > 0 && page > 0) ? std::size_t(pages) * std::size_t(page) / 2 : (std::size_t(4) << 30);
    if (options().device_memory) p.totalGlobalMem = std::size_t(options().device_memory);
    p.sharedMemPerBlock = 48 * 1024;
    p.regsPerBlock = 65536;
    p.warpSize = 32;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim[0] = 1024;
    p.maxThreadsDim[1] = 1024;
    p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 2147483647;
    p.maxGridSize[1] = 65535;
    p.maxGridSize[2] = 65535;
    p.totalConstMem = 64 * 1024;
    p.major = 9;
    p.minor = 0;
    p.multiProcessorCount = 8;
    p.l2CacheSize = 4 * 1024 * 1024;
    p.maxThreadsPerMultiProcessor = 2048;
    p.sharedMemPerMultiprocessor = 228 * 1024;
    p.regsPerMultiprocessor = 65536;
    p.sharedMemPerBlockOptin = 227 * 1024;
    p.maxBlocksPerMultiProcessor = 32;
    p.memoryBusWidth = 5120;
    p.concurrentKernels = 1;
    return p;
  }();
  return prop;
}

std::string describe_address(const void* addr) {
  char buf[200];
  if (!addr) return "(no address: __nanosleep)";
  const char* start = nullptr;
  if (const Allocation* a = find_allocation(addr, &start)) {
    std::snprintf(buf, sizeof buf, "%p (global memory: allocation #%zu of %zu bytes, byte offset %zu)", addr, a->id,
                  a->bytes, std::size_t(static_cast<const char*>(addr) - start));
    return buf;
  }
  if (is_shared_address(addr)) {
    if (Thread* t = running; t && t->block) {
      for (const SharedVar& v : t->block->vars) {
        const char* p = static_cast<const char*>(addr);
        if (p >= v.ptr && p < v.ptr + v.bytes) {
          std::snprintf(buf, sizeof buf, "%p (shared `%s`, byte offset %zu)", addr, v.name, std::size_t(p - v.ptr));
          return buf;
        }
      }
    }
    std::snprintf(buf, sizeof buf, "%p (shared memory)", addr);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%p", addr);
  return buf;
}

namespace {

// Snapshot of every device allocation, to rerun a launch from the same state.
std::vector<std::vector<char>> snapshot_device_memory() {
  std::vector<std::vector<char>> copy;
  for (auto& [p, a] : allocations) copy.emplace_back(p, p + a.bytes);
  return copy;
}
void restore_device_memory(const std::vector<std::vector<char>>& copy) {
  std::size_t i = 0;
  for (auto& [p, a] : allocations) std::memcpy(const_cast<char*>(p), copy[i++].data(), a.bytes);
}

// A kernel whose results depend on the order threads run between barriers has a race: run it under
// each order from the same starting memory and report the first difference.
void run_under_each_order(Launch& L) {
  Options& opt = options();
  const ThreadOrder saved = opt.thread_order;
  const ThreadOrder orders[] = {ThreadOrder::forward, ThreadOrder::reverse, ThreadOrder::random};
  const auto before = snapshot_device_memory();
  std::vector<std::vector<char>> reference;
  for (ThreadOrder order : orders) {
    if (!reference.empty()) restore_device_memory(before);
    opt.thread_order = order;
    run_launch(L);
    if (L.aborted) break;
    auto after = snapshot_device_memory();
    if (reference.empty()) {
      reference = std::move(after);
      continue;
    }
    std::size_t k = 0;
    for (auto& [p, a] : allocations) {
      const std::vector<char>& x = reference[k];
      const std::vector<char>& y = after[k++];
      std::size_t first = a.bytes, count = 0;
      for (std::size_t i = 0; i < a.bytes; ++i)
        if (x[i] != y[i]) {
          if (first == a.bytes) first = i;
          ++count;
        }
      if (count) {
        const std::string msg = std::string("kernel `") + L.kernel +
                                "`: outputs differ between thread orders forward and " + std::string(to_string(order)) +
                                ": allocation #" + std::to_string(a.id) + ", first at byte " + std::to_string(first) +
                                " (" + std::to_string(count) + " bytes differ): the kernel has a race";
        report_misuse(msg);
        std::fprintf(stderr, "scanlab emulator: %s\n  %s\n", msg.c_str(), describe_options().c_str());
        break;
      }
    }
  }
  if (!L.aborted && !reference.empty()) restore_device_memory(reference);  // keep the forward order's result
  opt.thread_order = saved;
}

}  // namespace

void launch_erased(const LaunchConfig& config, const char* kernel, const char* file, int line, KernelBody body,
                   void* context) {
  if (running) {
    in_kernel_error("a kernel launch (dynamic parallelism)");
    return;
  }
  const cudaDeviceProp& p = modelled_device();
  const dim3 g = config.grid, b = config.block;
  const unsigned long long threads = 1ull * b.x * b.y * b.z;
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 || b.x > unsigned(p.maxThreadsDim[0]) ||
      b.y > unsigned(p.maxThreadsDim[1]) || b.z > unsigned(p.maxThreadsDim[2]) ||
      threads > unsigned(p.maxThreadsPerBlock) || g.x > unsigned(p.maxGridSize[0]) ||
      g.y > unsigned(p.maxGridSize[1]) || g.z > unsigned(p.maxGridSize[2])) {
    // What the CUDA 13 runtime returns for every one of these (measured on an H200 with
    // tests/emu/runtime_api_test.cu; older runtimes said cudaErrorInvalidConfiguration).
    set_error(cudaErrorInvalidValue);
    return;
  }
  // Without an opt-in a block's static + dynamic shared memory must fit in 48 KiB. An opt-in raises the
  // dynamic allowance, and then static + dynamic may reach sharedMemPerBlockOptin. (The emulator does not
  // know which kernel a launch runs, so an opt-in counts for every kernel; static sizes are known only
  // when the kernel declares them, so an excess there fails the launch from inside.)
  const std::size_t dynamic_allowance = std::max<std::size_t>(p.sharedMemPerBlock, max_dynamic_optin);
  const std::size_t limit = max_dynamic_optin ? p.sharedMemPerBlockOptin : p.sharedMemPerBlock;
  if (config.shared_bytes > dynamic_allowance) {
    set_error(cudaErrorInvalidValue);
    return;
  }
  static std::mutex one_launch_at_a_time;
  std::lock_guard<std::mutex> lock(one_launch_at_a_time);
  Launch L;
  L.config = config;
  L.kernel = kernel;
  L.file = file;
  L.line = line;
  L.body = body;
  L.context = context;
  L.threads_per_block = unsigned(threads);
  L.dynamic_bytes = config.shared_bytes;
  L.shared_limit = limit;
  current_launch = &L;
  if (options().compare_orders) run_under_each_order(L);
  else run_launch(L);
  current_launch = nullptr;
  if (L.aborted) {
    pending_error = L.error;
    last_error = L.error;
  }
}

cudaError_t func_set_attribute(const void*, cudaFuncAttribute attr, int value) {
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || std::size_t(value) > modelled_device().sharedMemPerBlockOptin)
      return set_error(cudaErrorInvalidValue);
    max_dynamic_optin = std::max(max_dynamic_optin, std::size_t(value));
    return cudaSuccess;
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) return cudaSuccess;
  return set_error(cudaErrorInvalidValue);
}

cudaError_t occupancy_max_active_blocks(int* blocks, const void*, int block_size, std::size_t dynamic_smem) {
  if (!blocks || block_size <= 0 || block_size > 1024) return set_error(cudaErrorInvalidValue);
  *blocks = int(default_resident_blocks(unsigned(block_size), dynamic_smem) /
                unsigned(modelled_device().multiProcessorCount));
  return cudaSuccess;
}

}  // namespace scanlab_emu::detail

using namespace scanlab_emu::detail;

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define SCANLAB_EMU_NAME(x) \
  case x: return #x;
    SCANLAB_EMU_NAME(cudaSuccess)
    SCANLAB_EMU_NAME(cudaErrorInvalidValue)
    SCANLAB_EMU_NAME(cudaErrorMemoryAllocation)
    SCANLAB_EMU_NAME(cudaErrorInitializationError)
    SCANLAB_EMU_NAME(cudaErrorInvalidConfiguration)
    SCANLAB_EMU_NAME(cudaErrorInvalidPitchValue)
    SCANLAB_EMU_NAME(cudaErrorInvalidSymbol)
    SCANLAB_EMU_NAME(cudaErrorInvalidDevicePointer)
    SCANLAB_EMU_NAME(cudaErrorInvalidMemcpyDirection)
    SCANLAB_EMU_NAME(cudaErrorInvalidDeviceFunction)
    SCANLAB_EMU_NAME(cudaErrorNoDevice)
    SCANLAB_EMU_NAME(cudaErrorInvalidDevice)
    SCANLAB_EMU_NAME(cudaErrorInvalidResourceHandle)
    SCANLAB_EMU_NAME(cudaErrorNotReady)
    SCANLAB_EMU_NAME(cudaErrorIllegalAddress)
    SCANLAB_EMU_NAME(cudaErrorLaunchOutOfResources)
    SCANLAB_EMU_NAME(cudaErrorLaunchTimeout)
    SCANLAB_EMU_NAME(cudaErrorMisalignedAddress)
    SCANLAB_EMU_NAME(cudaErrorLaunchFailure)
    SCANLAB_EMU_NAME(cudaErrorNotSupported)
    SCANLAB_EMU_NAME(cudaErrorUnknown)
#undef SCANLAB_EMU_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

cudaError_t cudaGetLastError() {
  cudaError_t e = last_error;
  if (e == cudaSuccess) e = pending_error;
  last_error = cudaSuccess;
  pending_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return last_error != cudaSuccess ? last_error : pending_error; }

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice); }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *prop = modelled_device();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  const cudaDeviceProp& p = modelled_device();
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrClockRate: *value = 1000000; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = 1000000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default: return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return running ? in_kernel_error("cudaDeviceSynchronize") : take_pending(); }
cudaError_t cudaDeviceReset() {
  last_error = pending_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return set_error(cudaErrorInvalidValue);
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return set_error(cudaErrorInvalidValue);
  *total_bytes = modelled_device().totalGlobalMem;
  *free_bytes = allocated_bytes < *total_bytes ? *total_bytes - allocated_bytes : 0;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (running) return in_kernel_error("cudaMalloc");
  if (!ptr) return set_error(cudaErrorInvalidValue);
  *ptr = nullptr;
  // The emulated device's memory is host RAM: a program that asks for more than the device has, in
  // all, gets cudaErrorMemoryAllocation (as on a GPU) and a message, before the OS runs out of memory.
  const std::size_t total = modelled_device().totalGlobalMem;
  if (bytes > total || allocated_bytes > total - bytes) {
    std::fprintf(
        stderr,
        "scanlab emulator: cudaMalloc of %zu bytes fails with cudaErrorMemoryAllocation: %zu bytes in %zu "
        "allocation%s are in use and the emulated device has %zu bytes (%s)\n",
        bytes, allocated_bytes, allocations.size(), allocations.size() == 1 ? "" : "s", total,
        scanlab_emu::options().device_memory ? "--device-memory" : "half this machine's RAM; --device-memory sets it");
    return set_error(cudaErrorMemoryAllocation);
  }
  // Each allocation gets its own pages, placed so that it ends (256-byte aligned) just before an
  // inaccessible guard page, with another guard page before them: a kernel writing past either end
  // faults at once, as a GPU reports an illegal address, instead of silently corrupting the host
  // heap. The few bytes in between (the rounding up to 256) are caught by --memcheck.
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
  const std::size_t data_pages = (rounded + page - 1) / page * page;
  void* m =
      mmap(nullptr, data_pages + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return set_error(cudaErrorMemoryAllocation);
  char* guard = static_cast<char*>(m) + page + data_pages;
  if (mprotect(m, page, PROT_NONE) != 0 || mprotect(guard, page, PROT_NONE) != 0) {
    munmap(m, data_pages + 2 * page);
    return set_error(cudaErrorMemoryAllocation);
  }
  void* p = guard - rounded;
  // Fresh device memory holds garbage on a GPU; a visible pattern makes unwritten reads show.
  std::memset(p, 0xA5, bytes);
  allocations[static_cast<const char*>(p)] = Allocation{bytes, ++allocation_count, m, data_pages + 2 * page};
  allocated_bytes += bytes;
  *ptr = p;
  return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
  if (running) return in_kernel_error("cudaFree");
  if (!ptr) return cudaSuccess;
  auto it = allocations.find(static_cast<const char*>(ptr));
  if (it == allocations.end()) return set_error(cudaErrorInvalidValue);
  munmap(it->second.mapping, it->second.mapping_bytes);
  allocated_bytes -= it->second.bytes;
  allocations.erase(it);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  if (!ptr) return set_error(cudaErrorInvalidValue);
  *ptr = std::malloc(std::max<std::size_t>(bytes, 1));
  return *ptr ? cudaSuccess : set_error(cudaErrorMemoryAllocation);
}
cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}

namespace {
// A copy touching device memory must stay inside one allocation.
bool device_range_ok(const void* p, std::size_t bytes) {
  const char* start = nullptr;
  const Allocation* a = find_allocation(p, &start);
  if (!a) return true;  // host memory: the emulator cannot check it
  return static_cast<const char*>(p) + bytes <= start + a->bytes;
}
}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (running) return in_kernel_error("cudaMemcpy");
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return set_error(cudaErrorInvalidMemcpyDirection);
  if (cudaError_t e = take_pending(); e != cudaSuccess) return e;
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return set_error(cudaErrorInvalidValue);
  if (!device_range_ok(dst, bytes) || !device_range_ok(src, bytes)) return set_error(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
  if (running) return in_kernel_error("cudaMemset");
  if (bytes == 0) return cudaSuccess;
  if (!ptr || !device_range_ok(ptr, bytes)) return set_error(cudaErrorInvalidValue);
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  if (!stream) return set_error(cudaErrorInvalidValue);
  *stream = reinterpret_cast<cudaStream_t>(new Stream);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete reinterpret_cast<Stream*>(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return take_pending(); }

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  if (!event) return set_error(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(new Event);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!event) return set_error(cudaErrorInvalidResourceHandle);
  delete reinterpret_cast<Event*>(event);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (!event) return set_error(cudaErrorInvalidResourceHandle);
  auto* e = reinterpret_cast<Event*>(event);
  e->when = std::chrono::steady_clock::now();
  e->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!event) return set_error(cudaErrorInvalidResourceHandle);
  return take_pending();
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!event) return set_error(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return set_error(cudaErrorInvalidValue);
  if (!start || !end) return set_error(cudaErrorInvalidResourceHandle);
  auto* a = reinterpret_cast<Event*>(start);
  auto* b = reinterpret_cast<Event*>(end);
  if (!a->recorded || !b->recorded) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return cudaSuccess;
}
