// Chapter 12, given: the ranks of the GPU build, one process per GPU, exchanging through NCCL.
#pragma once

#include <memory>

#include "communicator.hpp"

namespace ch12 {

// Joins the NCCL communicator of the ranks of `bootstrap` (rank 0 makes NCCL's unique id and hands
// it to the others through bootstrap's allgather), on `device`, which becomes this process's
// current device. Ranks must be on distinct GPUs: NCCL refuses two ranks on one.
std::unique_ptr<Communicator> make_nccl_communicator(Communicator& bootstrap, int device);

}  // namespace ch12
