// Which data-parallel rank this process is, from the environment a launcher sets: torchrun
// (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI's mpirun (OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK),
// PMI launchers such as MPICH's and Intel MPI's (PMI_RANK, PMI_SIZE), Slurm's srun (SLURM_PROCID,
// SLURM_NTASKS). Pure: the variables come through a lookup function.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace amdahl::cpu_pipeline {

struct RankEnv {
  std::int64_t rank = 0;
  std::int64_t world_size = 1;
  std::int64_t local_rank = 0;
  std::string source;  // which launcher's variables ("torchrun", "mpirun", "pmi", "slurm")
};

class RankEnvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// nullopt when no launcher's pair of variables (rank and world size) is set; throws
// RankEnvError when one is set but malformed or inconsistent (rank outside the world).
using EnvLookup = std::function<const char*(const char*)>;
std::optional<RankEnv> rank_from_env(const EnvLookup& lookup);

// The same over the process environment (std::getenv).
std::optional<RankEnv> rank_from_process_env();

}  // namespace amdahl::cpu_pipeline
