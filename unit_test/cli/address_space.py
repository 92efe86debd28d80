"""What an address-space limit (ulimit -v, RLIMIT_AS) means for a strata
executable, shared by the CLI tests that climb such limits.

- The dynamic loader runs before any of strata's code: where it cannot map a
  library it prints "error while loading shared libraries", where its own
  allocations fail (TLS, the link map) it prints "out of memory"; all its
  fatal errors exit 127 (_dl_fatal_printf), a status strata never uses
  (0, 2, 3). Which limit lands there depends on the machine's libraries and
  address-space layout (seen at 16 MiB in CI's openmp-debug build), so a
  test skips such limits.
- Below the span of the executable's loadable segments the kernel cannot map
  it: exec fails after its point of no return and the process dies with
  SIGSEGV before any of its code runs (the CUDA tool maps ~8.5 MB of code and
  device images). That is not strata's crash, and a test skips such limits as
  it skips the loader's "error while loading shared libraries".
- The GNU OpenMP runtime allocates its thread state when the first parallel
  region starts; where that fails it prints "libgomp: Out of memory
  allocating N bytes" and exits with status 1 from inside the runtime,
  where no handler of strata's can run. Which limit lands there depends on
  the binary's size (seen at 16 MiB with two threads in the openmp-debug
  build); a test skips that limit as it skips the loader's failure.
- A GPU runtime (CUDA, HIP) reserves address space for the whole device when
  Kokkos starts, so a device build answers every finite limit a test can set
  with StorageReserveFailed from Kokkos::initialize, and may never succeed."""

import struct
import subprocess


def mapped_span(path):
    """Bytes from the lowest to the highest address of the ELF's PT_LOAD segments."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:  # not a 64-bit ELF: nothing known
            return 0
        order = "<" if head[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
        low, high = None, 0
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _, _, vaddr, _, _, memsz = struct.unpack(order + "IIQQQQQ", f.read(48))
            if p_type == 1:  # PT_LOAD
                low = vaddr if low is None else min(low, vaddr)
                high = max(high, vaddr + memsz)
        return 0 if low is None else high - low


def execution_space(strata):
    """The default execution space named by `strata --version`, e.g. 'OpenMP' or 'Cuda'."""
    out = subprocess.run([strata, "--version"], capture_output=True, text=True, timeout=120).stdout
    return out.rsplit(", ", 1)[-1].rstrip(")\n") if ", " in out else ""


def is_device_build(strata):
    return execution_space(strata) in ("Cuda", "HIP", "SYCL", "OpenMPTarget")


def loader_failed(returncode, stderr):
    """True when the dynamic loader gave up before strata ran: exit 127, and
    not a line of strata's."""
    return returncode == 127 and ("error while loading shared libraries" in stderr or
                                  not stderr.startswith("strata: "))


def killed_by_exec(returncode, limit, strata):
    """True when a SIGSEGV at this limit is the kernel failing to map the executable."""
    return returncode == -11 and limit < mapped_span(strata) + (2 << 20)  # + ld.so, stack, vdso


def openmp_runtime_out_of_memory(returncode, stderr):
    """True when GNU OpenMP's runtime itself ran out of memory and exited (its
    gomp_fatal), outside any code of strata's."""
    return returncode == 1 and "libgomp: Out of memory allocating" in stderr
