// Chapter 12, given: Communicator over NCCL, for the GPU build. NCCL's collectives move device
// memory on a CUDA stream, so the few bytes of an allgather are staged through device buffers.
// Plain host C++, linked with the CUDA runtime and libnccl.
#include "nccl_communicator.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include <scanlab/cuda_check.hpp>

namespace ch12 {
namespace {

void check(ncclResult_t code, const char* what) {
  if (code != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(code));
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(Communicator& bootstrap, int device) : rank_(bootstrap.rank()), size_(bootstrap.size()) {
    SCANLAB_CUDA_CHECK(cudaSetDevice(device));
    ncclUniqueId id{};
    if (rank_ == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    std::string ids(sizeof(id) * static_cast<std::size_t>(size_), '\0');
    bootstrap.allgather_bytes(&id, ids.data(), sizeof(id));  // everyone takes rank 0's
    std::memcpy(&id, ids.data(), sizeof(id));
    check(ncclCommInitRank(&comm_, size_, id, rank_), "ncclCommInitRank");
    SCANLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~NcclCommunicator() override {
    if (staging_ != nullptr) cudaFree(staging_);
    cudaStreamDestroy(stream_);
    ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override {
    int version = 0;
    ncclGetVersion(&version);
    return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
  }

  // --8<-- [start:nccl_allgather]
  void allgather_bytes(const void* mine, void* all, std::size_t bytes) override {
    const std::size_t whole = bytes * static_cast<std::size_t>(size_);
    if (whole > staging_bytes_) {
      if (staging_ != nullptr) SCANLAB_CUDA_CHECK(cudaFree(staging_));
      staging_ = nullptr;
      SCANLAB_CUDA_CHECK(cudaMalloc(&staging_, whole + bytes));
      staging_bytes_ = whole;
    }
    unsigned char* recv = static_cast<unsigned char*>(staging_);
    unsigned char* send = recv + whole;
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(send, mine, bytes, cudaMemcpyHostToDevice, stream_));
    check(ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream_), "ncclAllGather");
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(all, recv, whole, cudaMemcpyDeviceToHost, stream_));
    SCANLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  // --8<-- [end:nccl_allgather]

 private:
  int rank_;
  int size_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* staging_ = nullptr;
  std::size_t staging_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(Communicator& bootstrap, int device) {
  return std::make_unique<NcclCommunicator>(bootstrap, device);
}

}  // namespace ch12
