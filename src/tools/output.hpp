#pragma once
// strata's standard output: exit 0 only when all of it was written.
//
// std::cout is pointed at a buffer that writes file descriptor 1 with
// write(2) and keeps the errno of the first failed write (a full disk or
// /dev/full: ENOSPC; `ulimit -f`: EFBIG, SIGXFSZ being ignored; a pipe whose
// reader is gone with SIGPIPE ignored: EPIPE; a closed stdout: EBADF). After
// the command, finish_output() flushes it and throws OutputError when any
// write failed; main prints `strata: output error: ...` and exits 3.
#include <string>

namespace strata::tools {

/// A write to stdout failed; the output is incomplete.
struct OutputError {
  int error_number;  ///< errno of the first failed write
};

/// First thing in main: file descriptors 0-2 that are closed are reopened on
/// /dev/null (so no file opened later lands on them), a closed stdout is
/// remembered as failed (EBADF), and SIGXFSZ is ignored (a write beyond
/// `ulimit -f` then fails with EFBIG instead of killing the process).
void prepare_standard_streams();

/// Points std::cout at the checked buffer (after Kokkos::initialize, which
/// writes its own messages on std::cout).
void capture_stdout();

/// Flushes std::cout and restores its buffer; throws OutputError if any
/// write failed (also for a stdout that was closed from the start).
void finish_output();

/// Restores std::cout's own buffer, dropping what the checked buffer holds
/// unwritten (after an error nothing more reaches stdout); no-op after finish_output.
void discard_output();

/// Whether a write to stdout has failed so far (errno, or 0).
int output_error_number();

/// What a command reports on stderr beside its result (--time's figures):
/// held here and printed by main after the command, after its error line
/// when it failed, so that a `strata:` error is always the first line.
std::ostream& diagnostics();

/// diagnostics()'s text so far, emptied.
std::string take_diagnostics();

/// `output error: stdout: <strerror> (the output is incomplete). Fix: <hint>`
std::string output_error_message(int error_number);

}  // namespace strata::tools
