// Chapter 12, given: the one interface the scan across devices talks to. A rank is one process
// that owns one device; the ranks of a run form a communicator, and the only collective the scan
// needs is an allgather: every rank contributes the same number of bytes, and every rank receives
// all contributions, in rank order.
//
// Three implementations, each a real exchange between processes:
//   MpiCommunicator      (mpi_communicator.cpp)   the emulator build, under mpirun -np K: MPI_Allgather
//   NcclCommunicator     (nccl_communicator.cpp)  the GPU build, one process per GPU: ncclAllGather
//   RankProcesses        (rank_processes.hpp)     K processes forked by one program, talking through
//                                                 socket pairs: how the GPU build starts its ranks,
//                                                 and the ranks of the grading runner
// Host code only: buffers are host memory (an implementation that needs device memory, as NCCL
// does, stages the few bytes itself).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace ch12 {

// --8<-- [start:communicator]
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // What carries the bytes ("MPI (Open MPI ...)", "NCCL 2.28", ...), for the driver's first line.
  virtual std::string name() const = 0;
  // Every rank passes `bytes` bytes at `mine`; afterwards all[r * bytes, (r + 1) * bytes) holds
  // rank r's, on every rank. A collective: every rank of the communicator must call it.
  virtual void allgather_bytes(const void* mine, void* all, std::size_t bytes) = 0;
};
// --8<-- [end:communicator]

// The allgather of one value per rank: result[r] is rank r's value, on every rank.
// --8<-- [start:allgather_value]
template <class T>
std::vector<T> allgather(Communicator& comm, const T& mine) {
  static_assert(std::is_trivially_copyable_v<T>, "values cross process boundaries as bytes");
  std::vector<T> all(static_cast<std::size_t>(comm.size()));
  comm.allgather_bytes(&mine, all.data(), sizeof(T));
  return all;
}
// --8<-- [end:allgather_value]

}  // namespace ch12
