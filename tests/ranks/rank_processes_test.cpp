// Tests of chapter 12's ranks as forked processes and their socket-pair allgather.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rank_processes.hpp"

namespace {

// Every rank contributes 100 * rank + round; each checks what it received, in rank order.
int exchange_rounds(ch12::Communicator& comm, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const std::vector<std::int64_t> all = ch12::allgather<std::int64_t>(comm, 100 * comm.rank() + round);
    if (static_cast<int>(all.size()) != comm.size()) return 10;
    for (int q = 0; q < comm.size(); ++q) {
      if (all[static_cast<std::size_t>(q)] != 100 * q + round) return 11;
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("the allgather gives every rank every rank's value, in rank order, round after round") {
  for (int ranks = 1; ranks <= 5; ++ranks) {
    CAPTURE(ranks);
    const std::vector<int> statuses = ch12::run_rank_processes(ranks, [](ch12::Communicator& comm) {
      return exchange_rounds(comm, 20);
    });
    CHECK(statuses == std::vector<int>(static_cast<std::size_t>(ranks), 0));
  }
}

TEST_CASE("a rank's status and a rank that throws come back to rank 0") {
  const std::vector<int> statuses = ch12::run_rank_processes(3, [](ch12::Communicator& comm) -> int {
    if (comm.rank() == 1) return 7;
    if (comm.rank() == 2) throw std::runtime_error("rank 2 gives up");
    return 0;
  });
  CHECK(statuses == std::vector<int>{0, 7, 1});
}

TEST_CASE("a rank that fails before an exchange ends the others' exchange with an error, not a wait") {
  // Rank 2 leaves at once; ranks 0 and 1 then find their allgather failing.
  const std::vector<int> statuses = ch12::run_rank_processes(3, [](ch12::Communicator& comm) -> int {
    if (comm.rank() == 2) return 5;
    try {
      (void)ch12::allgather<int>(comm, comm.rank());
    } catch (const std::runtime_error& e) {
      return std::string(e.what()).find("is gone") != std::string::npos ? 3 : 4;
    }
    return 0;
  });
  CHECK(statuses == std::vector<int>{3, 3, 5});
}

TEST_CASE("rank 0 failing ends the others' exchange too, and rank 0's exception reaches the caller") {
  CHECK_THROWS_WITH_AS(ch12::run_rank_processes(3,
                                                [](ch12::Communicator& comm) -> int {
                                                  if (comm.rank() == 0) throw std::runtime_error("rank 0 gives up");
                                                  try {
                                                    (void)ch12::allgather<int>(comm, comm.rank());
                                                  } catch (const std::runtime_error&) {
                                                    return 3;
                                                  }
                                                  return 0;
                                                }),
                       "rank 0 gives up", std::runtime_error);
}

TEST_CASE("memory made before the fork is shared: what children write, rank 0 reads") {
  ch12::SharedArray<int> slots(4);
  const std::vector<int> statuses = ch12::run_rank_processes(4, [&](ch12::Communicator& comm) {
    slots.data()[comm.rank()] = 10 + comm.rank();
    (void)ch12::allgather<int>(comm, 0);  // every rank has written
    return 0;
  });
  CHECK(statuses == std::vector<int>(4, 0));
  CHECK(std::vector<int>(slots.data(), slots.data() + 4) == std::vector<int>{10, 11, 12, 13});
}
