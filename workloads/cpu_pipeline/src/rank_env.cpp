// Reads the rank and world size a launcher put in the environment (rank_env.hpp).
#include "rank_env.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace amdahl::cpu_pipeline {
namespace {

struct Scheme {
  const char* source;
  const char* rank;
  const char* size;
  const char* local_rank;
};

// In order: the first launcher whose rank and size are both set wins.
constexpr Scheme kSchemes[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

std::int64_t parse(const char* name, const char* v) {
  const std::string_view s(v);
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc{} || end != s.data() + s.size() || out < 0) {
    throw RankEnvError(std::string(name) + " must be a non-negative integer, got '" + v + "'");
  }
  return out;
}

bool set(const char* v) { return v != nullptr && *v != '\0'; }

}  // namespace

std::optional<RankEnv> rank_from_env(const EnvLookup& lookup) {
  for (const Scheme& s : kSchemes) {
    const char* rank = lookup(s.rank);
    const char* size = lookup(s.size);
    if (!set(rank) || !set(size)) continue;
    RankEnv env;
    env.source = s.source;
    env.rank = parse(s.rank, rank);
    env.world_size = parse(s.size, size);
    if (env.world_size < 1 || env.rank >= env.world_size) {
      throw RankEnvError(std::string(s.rank) + "=" + rank + " is not a rank of " + s.size + "=" +
                         size);
    }
    const char* local = lookup(s.local_rank);
    env.local_rank = set(local) ? parse(s.local_rank, local) : env.rank;
    return env;
  }
  return std::nullopt;
}

std::optional<RankEnv> rank_from_process_env() {
  return rank_from_env([](const char* name) { return std::getenv(name); });
}

}  // namespace amdahl::cpu_pipeline
