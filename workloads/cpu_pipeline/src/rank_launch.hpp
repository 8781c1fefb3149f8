// `cpu_pipeline --ranks N`: the workload launches its own ranks, as torch.multiprocessing or a
// launcher would: N forked processes, each with RANK, WORLD_SIZE, LOCAL_RANK and the rendezvous
// name in its environment (so a profiler reading the environment sees its rank), while the
// parent waits for them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rank_env.hpp"

namespace amdahl::cpu_pipeline {

// Forks `n` rank processes. In a child: returns its RankEnv (source "cpu_pipeline"). In the
// parent: waits for every child and returns nullopt with `exit_code` set (0 when all succeeded,
// else the first failure's code, 128 + N for a signal); once one rank fails the others are sent
// SIGTERM, so that none waits for its dead peer until the ring times out.
std::optional<RankEnv> launch_ranks(std::int64_t n, int& exit_code);

// The name of the ring's sockets, shared by the ranks of one run: CPU_PIPELINE_RENDEZVOUS if set
// (launch_ranks sets it), else from MASTER_ADDR:MASTER_PORT (torchrun), else the parent's pid
// (every rank of mpirun or of a local launcher is a child of the same process).
std::string rendezvous_name();

}  // namespace amdahl::cpu_pipeline
