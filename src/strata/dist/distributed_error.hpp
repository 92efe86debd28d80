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
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <strata/core/error.hpp>
#include <strata/dist/communicator.hpp>

namespace strata::dist {

/// A PlanError with its position in the global input order.
struct OrderedError {
  std::uint64_t key = 0;
  PlanError error;
};

/// The fields of an error as bytes, and back.
std::vector<char> serialize_error(const PlanError& error);
PlanError deserialize_error(const std::vector<char>& bytes);

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
    local = e;
  } catch (const PlanError& e) {
    local = OrderedError{0, e};
  } catch (const std::bad_alloc& e) {
    local = OrderedError{0, PlanError::storage_reserve_failed("distributed planning buffers", 0,
                                                              e.what())};
  }
  agree_on_errors(comm, local);
}

}  // namespace strata::dist
