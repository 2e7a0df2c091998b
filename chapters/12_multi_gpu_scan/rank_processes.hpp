// Chapter 12, given: ranks as processes that one program starts itself, and a communicator
// between them. The program calls run_rank_processes(K, body) once, before anything touches a
// device: fork() makes K - 1 more processes, so that rank r (0 .. K - 1) runs body(comm) in a
// process of its own, and the ranks exchange bytes through socket pairs, rank 0 in the middle:
//
//     rank 1 --\                 rank 0 reads every rank's bytes in rank order, then writes the
//     rank 2 ---+--- rank 0      whole array back to each: an allgather in 2 (K - 1) messages,
//     rank 3 --/                 as MPI's shared-memory transport would do it on one machine
//
// The GPU build uses it to start one process per GPU (and to hand NCCL's unique id from rank 0 to
// the others); the grading runner uses it as the communicator of its ranks. Host code, POSIX.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "communicator.hpp"

namespace ch12 {

class RankProcesses final : public Communicator {
 public:
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "socket pairs between the processes of one machine"; }

  void allgather_bytes(const void* mine, void* all, std::size_t bytes) override {
    unsigned char* out = static_cast<unsigned char*>(all);
    if (rank_ == 0) {
      std::memcpy(out, mine, bytes);
      for (int r = 1; r < size_; ++r) read_all(sockets_[r], out + static_cast<std::size_t>(r) * bytes, bytes, r);
      for (int r = 1; r < size_; ++r) write_all(sockets_[r], out, bytes * static_cast<std::size_t>(size_), r);
    } else {
      write_all(sockets_[0], mine, bytes, 0);
      read_all(sockets_[0], out, bytes * static_cast<std::size_t>(size_), 0);
    }
  }

  ~RankProcesses() override {
    for (int fd : sockets_) {
      if (fd >= 0) ::close(fd);
    }
  }

  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  template <class Body>
  friend std::vector<int> run_rank_processes(int ranks, Body&& body);

 private:
  RankProcesses(int rank, int size) : rank_(rank), size_(size), sockets_(static_cast<std::size_t>(size), -1) {}

  // A peer that is gone (it failed, or returned early) ends the exchange with an exception, never
  // with a wait: its end of the socket is closed when its process ends.
  void write_all(int fd, const void* data, std::size_t bytes, int peer) const {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    while (bytes > 0) {
      const ssize_t w = ::send(fd, p, bytes, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        throw std::runtime_error("rank " + std::to_string(rank_) + ": rank " + std::to_string(peer) + " is gone");
      p += w;
      bytes -= static_cast<std::size_t>(w);
    }
  }
  void read_all(int fd, void* data, std::size_t bytes, int peer) const {
    unsigned char* p = static_cast<unsigned char*>(data);
    while (bytes > 0) {
      const ssize_t got = ::recv(fd, p, bytes, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        throw std::runtime_error("rank " + std::to_string(rank_) + ": rank " + std::to_string(peer) + " is gone");
      p += got;
      bytes -= static_cast<std::size_t>(got);
    }
  }

  int rank_;
  int size_;
  std::vector<int> sockets_;  // rank 0: one per other rank; rank r > 0: sockets_[0], to rank 0
};

// Runs body(comm), which returns an exit status, in `ranks` processes: this one is rank 0, and
// ranks 1 .. ranks - 1 are forked children, which end with _exit(their status) when body returns
// (an exception there is printed and gives status 1), never returning into the caller. Rank 0
// returns every rank's status, after the others have ended (a child killed by a signal: 128 + it).
template <class Body>
std::vector<int> run_rank_processes(int ranks, Body&& body) {
  if (ranks < 1) throw std::invalid_argument("run_rank_processes: ranks must be at least 1");
  std::vector<int> parent_ends(static_cast<std::size_t>(ranks), -1);
  std::vector<pid_t> children(static_cast<std::size_t>(ranks), -1);
  std::fflush(nullptr);  // nothing buffered is printed twice
  for (int r = 1; r < ranks; ++r) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::close(pair[0]);
      for (int q = 1; q < r; ++q) ::close(parent_ends[static_cast<std::size_t>(q)]);  // the siblings' ends
      int status = 1;
      try {
        RankProcesses comm(r, ranks);
        comm.sockets_[0] = pair[1];
        status = body(static_cast<Communicator&>(comm));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
      }
      std::fflush(nullptr);
      ::_exit(status);
    }
    ::close(pair[1]);
    parent_ends[static_cast<std::size_t>(r)] = pair[0];
    children[static_cast<std::size_t>(r)] = pid;
  }
  auto wait_for_children = [&](std::vector<int>& statuses) {
    for (int r = 1; r < ranks; ++r) {
      int status = 0;
      while (::waitpid(children[static_cast<std::size_t>(r)], &status, 0) < 0 && errno == EINTR) {
      }
      statuses[static_cast<std::size_t>(r)] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  };
  std::vector<int> statuses(static_cast<std::size_t>(ranks), 0);
  std::unique_ptr<RankProcesses> comm(new RankProcesses(0, ranks));
  for (int r = 1; r < ranks; ++r)
    comm->sockets_[static_cast<std::size_t>(r)] = parent_ends[static_cast<std::size_t>(r)];
  try {
    statuses[0] = body(static_cast<Communicator&>(*comm));
  } catch (...) {
    comm.reset();  // closes rank 0's sockets: a rank that waits for an exchange ends with an error
    wait_for_children(statuses);
    throw;
  }
  comm.reset();
  wait_for_children(statuses);
  return statuses;
}

// Memory that the ranks of run_rank_processes share (made before the fork): where the children put
// what rank 0 must see, since a child's own memory ends with it.
template <class T>
class SharedArray {
 public:
  explicit SharedArray(std::size_t n) : n_(n) {
    if (n_ == 0) return;
    void* p = ::mmap(nullptr, n_ * sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    data_ = static_cast<T*>(p);
  }
  ~SharedArray() {
    if (data_ != nullptr) ::munmap(data_, n_ * sizeof(T));
  }
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;
  T* data() { return data_; }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  T* data_ = nullptr;
};

}  // namespace ch12
