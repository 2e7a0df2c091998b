// Chapter 12's grading runner: the student's combine_preceding and seeded look-back, run through
// the chapter's given code on the inputs the checker (12_multi_gpu_scan.cu) sends. It decides
// nothing; see scanlab/grading/runner.hpp.
//
// The ranks of a scan across devices, for multi_rank_scan:
//   emulator  one process per rank, forked by this runner (chapters/12_multi_gpu_scan/
//             rank_processes.hpp), each with its own emulated device holding only its slice; the
//             ranks exchange their totals through that file's Communicator (socket pairs)
//   GPU       one thread per rank, all on this runner's GPU (a process that has used CUDA cannot
//             fork children that use it, and NCCL refuses two ranks on one GPU); the ranks exchange
//             through ThreadRanks below
// Not mpirun: mpirun does start inside the grader's sandbox, but the runner must stay the one
// process that reads the checker's requests on standard input and answers on its reply channel,
// which mpirun hands to no rank; an mpirun per request would also cost about half a second each.
// Either way the exchange is the same collective through the same Communicator interface.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>
#include <scanlab/verify.hpp>

#include "multi_gpu_scan_dispatch.cuh"
#include "rank_processes.hpp"

using namespace scanlab::grading;

namespace {

template <class T>
T single_input(const Call& call, std::size_t i, const char* what) {
  const std::vector<T> v = call.input<T>(i);
  if (v.size() != 1) throw std::runtime_error(std::string(what) + " must be one value");
  return v[0];
}

ch12::Form form_of(const Call& call) {
  const std::string f = call.param<std::string>("form", "fused");
  if (f != "fused" && f != "scan-then-add") throw std::runtime_error("form '" + f + "' is not a form");
  return f == "fused" ? ch12::Form::fused : ch12::Form::scan_then_add;
}

#if !defined(SCANLAB_EMU)
// Ranks as threads of this process: run(body) runs body(comm) in `ranks` threads and returns each
// one's status. An allgather waits for every rank; a rank that failed ends every wait with an
// error, so that no rank waits for it forever.
class ThreadRanks {
 public:
  explicit ThreadRanks(int ranks) : ranks_(ranks) {}

  template <class Body>
  std::vector<int> run(Body&& body) {
    std::vector<int> statuses(static_cast<std::size_t>(ranks_), 1);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks_; ++r) {
      threads.emplace_back([&, r] {
        Rank comm(*this, r);
        try {
          statuses[static_cast<std::size_t>(r)] = body(static_cast<ch12::Communicator&>(comm));
        } catch (...) {
          statuses[static_cast<std::size_t>(r)] = 1;
        }
        if (statuses[static_cast<std::size_t>(r)] != 0) fail();
      });
    }
    for (std::thread& t : threads) t.join();
    return statuses;
  }

 private:
  class Rank final : public ch12::Communicator {
   public:
    Rank(ThreadRanks& all, int rank) : all_(all), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return all_.ranks_; }
    std::string name() const override { return "threads of one process"; }
    void allgather_bytes(const void* mine, void* all, std::size_t bytes) override {
      all_.allgather(rank_, mine, all, bytes);
    }

   private:
    ThreadRanks& all_;
    int rank_;
  };

  void allgather(int rank, const void* mine, void* all, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (failed_) throw std::runtime_error("another rank failed");
    if (arrived_ == 0) gathering_.assign(bytes * static_cast<std::size_t>(ranks_), 0);
    std::memcpy(gathering_.data() + bytes * static_cast<std::size_t>(rank), mine, bytes);
    const unsigned long round = round_;
    if (++arrived_ == ranks_) {
      arrived_ = 0;
      gathered_ = gathering_;
      ++round_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] {
        return round_ != round || failed_;
      });
      if (round_ == round) throw std::runtime_error("another rank failed");
    }
    std::memcpy(all, gathered_.data(), bytes * static_cast<std::size_t>(ranks_));
  }

  void fail() {
    std::lock_guard<std::mutex> lock(mutex_);
    failed_ = true;
    changed_.notify_all();
  }

  int ranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<unsigned char> gathering_, gathered_;
  int arrived_ = 0;
  unsigned long round_ = 0;
  bool failed_ = false;
};
#endif

}  // namespace

// The offset of rank `rank` from the totals of every rank (input 0). Output: one value.
SCANLAB_GRADE_ENTRY(combine_preceding) {
  with_monoid<Plus<std::int32_t>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> totals = call.input<T>(0);
    const int rank = call.param<int>("rank");
    if (rank < 0 || static_cast<std::size_t>(rank) >= totals.size()) throw std::runtime_error("rank out of range");
    call.output(std::vector<T>{ch12::combine_preceding(totals.data(), rank, op)});
  });
}

// One device's scan of input 0 started from the seed (input 1, one value), into a poisoned output
// (or in place). Parameters: kind, in_place.
SCANLAB_GRADE_ENTRY(seeded_scan) {
  with_monoid<Plus<std::int32_t>, Plus<float>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const T seed = single_input<T>(call, 1, "the seed");
    const bool in_place = call.param<bool>("in_place", false);
    ch12::SeededScan<T> scan(in.size());
    call.info("tile_items", ch12::SeededScan<T>::kTileItems);
    call.output(run_on_device(
        in,
        [&](T* d_in, T* d_out) {
          scan.scan(call.kind(), d_in, d_out, in.size(), seed, op);
        },
        in_place));
  });
}

// The scan of input 0 across `ranks` ranks, each a process with its slice on its own device.
// Parameters: ranks, kind, form, in_place. Output: the whole array, each slice as its rank left it
// (poison where a rank wrote nothing).
SCANLAB_GRADE_ENTRY(multi_rank_scan) {
  with_monoid<Plus<std::int32_t>, Plus<float>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const int ranks = call.param<int>("ranks");
    if (ranks < 1 || ranks > 8) throw std::runtime_error("ranks must be 1 .. 8");
    const ScanKind kind = call.kind();
    const ch12::Form form = form_of(call);
    const bool in_place = call.param<bool>("in_place", false);
    const std::size_t n = in.size();

    constexpr std::size_t kMessage = 240;
    ch12::SharedArray<T> out(n);
    ch12::SharedArray<char> messages(static_cast<std::size_t>(ranks) * kMessage);
    if (n > 0) scanlab::fill_poison(out.data(), n);
    if (messages.size() > 0) std::memset(messages.data(), 0, messages.size());

    auto rank_body = [&](ch12::Communicator& comm) -> int {
      char* message = messages.data() + static_cast<std::size_t>(comm.rank()) * kMessage;
      try {
        const ch12::Slice slice = ch12::slice_of(n, comm.size(), comm.rank());
        scanlab::DeviceBuffer<T> d_in(slice.size), d_out(in_place ? 0 : slice.size);
        d_in.fill_poison();
        if (slice.size > 0) d_in.upload(in.data() + slice.begin, slice.size);
        d_out.fill_poison();
        T* d_result = in_place ? d_in.data() : d_out.data();
        ch12::SeededScan<T> scan(slice.size);
        ch12::multi_gpu_scan(comm, scan, d_in.data(), d_result, slice.size, kind, op, form);
        SCANLAB_CHECK_SYNC();
        if (slice.size > 0) {
          SCANLAB_CUDA_CHECK(
              cudaMemcpy(out.data() + slice.begin, d_result, slice.size * sizeof(T), cudaMemcpyDeviceToHost));
        }
        return 0;
      } catch (const std::exception& e) {
        std::snprintf(message, kMessage, "%s", e.what());
        return 1;
      }
    };
#if defined(SCANLAB_EMU)
    const std::vector<int> statuses = ch12::run_rank_processes(ranks, rank_body);
#else
    const std::vector<int> statuses = ThreadRanks(ranks).run(rank_body);
#endif
    std::string failures;
    for (int r = 0; r < ranks; ++r) {
      if (statuses[static_cast<std::size_t>(r)] == 0) continue;
      const char* m = messages.data() + static_cast<std::size_t>(r) * kMessage;
      failures +=
          (failures.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + " failed" +
          (m[0] != '\0' ? std::string(": ") + std::string(m, strnlen(m, kMessage))
                        : std::string(" (exit status ") + std::to_string(statuses[static_cast<std::size_t>(r)]) + ")");
    }
    if (!failures.empty()) throw std::runtime_error(failures);
    call.info("tile_items", ch12::SeededScan<T>::kTileItems);
    call.output(std::vector<T>(out.data(), out.data() + n));
  });
}
