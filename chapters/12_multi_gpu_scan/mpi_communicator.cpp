// Chapter 12, given: Communicator over MPI (Open MPI, or any MPI). Plain host C++, compiled
// without the emulator's instrumentation and linked with MPI::MPI_CXX.
#include "mpi_communicator.hpp"

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace ch12 {
namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(length)));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(int* argc, char*** argv) {
    check(MPI_Init(argc, argv), "MPI_Init");
    // Errors come back as codes (and become exceptions here) instead of ending the job at once.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  ~MpiCommunicator() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string text(version, static_cast<std::size_t>(length));
    const std::size_t cut = text.find_first_of(",\n");
    return "MPI (" + text.substr(0, cut) + ")";
  }

  // --8<-- [start:mpi_allgather]
  // MPI_Allgather of raw bytes: every rank's block lands at its rank's place, on every rank.
  void allgather_bytes(const void* mine, void* all, std::size_t bytes) override {
    check(
        MPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgather");
  }
  // --8<-- [end:mpi_allgather]

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(int* argc, char*** argv) {
  return std::make_unique<MpiCommunicator>(argc, argv);
}

}  // namespace ch12
