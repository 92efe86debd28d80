#pragma once
// Collective errors. Every phase of distributed planning runs through
// collective_phase(): whatever a rank throws there (a PlanError, or an
// allocation failure) becomes its candidate error, and all ranks then agree
// with three MPI_Allreduce calls — is there an error, the lowest order key,
// the lowest rank holding it — after which that rank broadcasts the error's
// fields and every rank throws the identical PlanError. A rank that found
// nothing still takes part, so no rank is ever left waiting in a collective.
//
// The order key makes "the first offender" global: a dependency's index in
// the global input order, a line number for parse errors; 0 for errors
// every rank would report alike.
//
// A rank that runs out of memory says so in the terms of a distributed run:
// StorageReserveFailed keeps its count and field but its Fix: names the
// per-rank budget and the rank count (not "shard the graph": it is sharded),
// and an allocation that failed outside the sized helpers (a bare
// std::bad_alloc) does not claim a count it does not know.
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/distributed/communicator.hpp>

namespace strata::distributed {

/// A PlanError with its position in the global input order.
struct OrderedError {
  std::uint64_t key = 0;
  PlanError error;
};

/// The fields of an error as bytes, and back.
std::vector<char> serialize_error(const PlanError& error);
PlanError deserialize_error(const std::vector<char>& bytes);

/// The hint of a rank out of memory (see the file comment).
inline constexpr const char* rank_memory_fix =
    "lower DistributedOptions::rank_budget_bytes to the memory a rank can really allocate (the run then asks for "
    "more ranks), or run with more ranks";

/// `error` with its Fix: hint replaced by `fix`.
PlanError with_fix(const PlanError& error, const std::string& fix);
/// A candidate error as a distributed run reports it (see the file comment).
PlanError in_distributed_terms(const PlanError& error);
/// StorageReserveFailed for an allocation whose size is not known here.
PlanError allocation_failed(const char* what);

/// Agrees on the local candidate errors (see the file comment); throws the
/// winning error on every rank, or returns when no rank has one.
void agree_on_errors(const Communicator& comm, const std::optional<OrderedError>& local);

/// Runs `phase` on this rank, then agrees on errors with every other rank.
template <class Phase>
void collective_phase(const Communicator& comm, Phase&& phase) {
  std::optional<OrderedError> local;
  try {
    phase();
  } catch (const OrderedError& e) {
    local = OrderedError{e.key, in_distributed_terms(e.error)};
  } catch (const PlanError& e) {
    local = OrderedError{0, in_distributed_terms(e)};
  } catch (const std::bad_alloc& e) {
    local = OrderedError{0, allocation_failed(e.what())};
  }
  agree_on_errors(comm, local);
}

}  // namespace strata::distributed
