// Chapter 12, given: the ranks of an MPI program (the emulator build, started by mpirun -np K).
#pragma once

#include <memory>

#include "communicator.hpp"

namespace ch12 {

// MPI_Init on the first call (MPI_Finalize when the communicator goes away): the communicator of
// every process mpirun started (MPI_COMM_WORLD). Run without mpirun, the program is one rank.
std::unique_ptr<Communicator> make_mpi_communicator(int* argc, char*** argv);

}  // namespace ch12
