"""Strata: plan a wave dependency DAG into the fewest global barrier layers.

    >>> import numpy as np, strata
    >>> plan = strata.plan(4, np.array([[0, 1], [0, 2], [1, 3], [2, 3]]))
    >>> plan.group_offsets, plan.waves, plan.level
    (array([0, 1, 3, 4]), array([0, 1, 2, 3]), array([0, 1, 1, 2]))

`plan(wave_count, dependencies)` takes the wave count and an integer array of
shape (E, 2), one row (before, after) per dependency with 0-based wave ids
(`after` waits for `before`), and returns a `Plan` whose arrays are int64
NumPy arrays: the waves of group g are waves[group_offsets[g]:group_offsets[g + 1]],
ascending, and level[w] is the group of wave w. It is the plan `strata plan`
prints for the same graph (Kahn layers: deterministic on every backend).

Every bad input raises a `PlanError` subclass named after its kind
(`CycleError`, `InvalidWaveError`, ...) with `.kind`, `.message` (ending with a
`Fix:` hint) and `.fields` (those of the kind, e.g. `unscheduled_waves`), also
readable as attributes (`err.unscheduled_waves`).

Kokkos is started on the first plan (`initialize()` starts it earlier; Kokkos
reads OMP_NUM_THREADS and the KOKKOS_* variables) and finalized when Python
exits, unless the program started it itself.
"""

import atexit as _atexit
import operator as _operator

import numpy as _np

from . import _strata

__all__ = [
    "plan", "Plan", "initialize", "execution_space", "__version__",
    "PlanError", "InvalidWaveError", "SelfDependencyError", "CycleError",
    "CountOverflowError", "StorageReserveFailedError", "InvalidArgumentError", "InternalError",
]

__version__ = _strata.version()


class PlanError(Exception):
    """A typed Strata error: `kind` (e.g. "Cycle"), `message` (the whole text,
    ending with a `Fix:` hint) and `fields` (a dict of the kind's fields)."""

    kind = "PlanError"

    def __init__(self, message, fields=None):
        super().__init__(message)
        self.message = message
        self.fields = dict(fields or {})

    def __getattr__(self, name):
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(name)


class InvalidWaveError(PlanError):
    """A dependency names a wave outside 0..wave_count-1 (fields: wave_count, before, after)."""
    kind = "InvalidWave"


class SelfDependencyError(PlanError):
    """A wave depends on itself (fields: wave)."""
    kind = "SelfDependency"


class CycleError(PlanError):
    """The graph has a cycle (fields: unscheduled_waves, the waves no layer reached)."""
    kind = "Cycle"


class CountOverflowError(PlanError):
    """A count does not fit the planner's types (fields: field)."""
    kind = "CountOverflow"


class StorageReserveFailedError(PlanError, MemoryError):
    """An allocation failed (fields: field, requested)."""
    kind = "StorageReserveFailed"


class InvalidArgumentError(PlanError, ValueError):
    """An argument is not what plan() takes."""
    kind = "InvalidArgument"


class InternalError(PlanError):
    """An unexpected failure inside Strata (a bug: report it)."""
    kind = "Internal"


_BY_KIND = {cls.kind: cls for cls in (InvalidWaveError, SelfDependencyError, CycleError,
                                      CountOverflowError, StorageReserveFailedError,
                                      InvalidArgumentError, InternalError)}


def _raise(kind, message, fields):
    raise _BY_KIND.get(kind, PlanError)(message, fields)


def _invalid(what, fix):
    raise InvalidArgumentError("InvalidArgument: %s. Fix: %s" % (what, fix))


_started = False


def initialize():
    """Start Kokkos now (plan() does on its first call); no-op once it runs."""
    global _started
    if _started:
        return
    failure = _strata.initialize()
    if failure is not None:
        _raise(*failure)
    _started = True
    _atexit.register(_strata.finalize)  # finalizes only a Kokkos Strata started


def execution_space():
    """The Kokkos execution space plans run on ("OpenMP", "Serial", "Cuda", ...)."""
    initialize()
    return _strata.execution_space()


class Plan:
    """A barrier plan: `group_offsets` (group_count + 1 entries), `waves`
    (grouped, ascending in each group) and `level` (the group of each wave),
    int64 NumPy arrays, read-only."""

    __slots__ = ("wave_count", "group_offsets", "waves", "level")

    def __init__(self, wave_count, group_offsets, waves, level):
        for array in (group_offsets, waves, level):
            array.flags.writeable = False
        self.wave_count = wave_count
        self.group_offsets, self.waves, self.level = group_offsets, waves, level

    @property
    def group_count(self):
        return len(self.group_offsets) - 1

    @property
    def global_barriers(self):
        return max(self.group_count - 1, 0)

    def group(self, g):
        """The waves of group g (a view of `waves`)."""
        return self.waves[self.group_offsets[g]:self.group_offsets[g + 1]]

    def groups(self):
        """Every group's waves, as a list of arrays."""
        return [self.group(g) for g in range(self.group_count)]

    def __repr__(self):
        return "strata.Plan(wave_count=%d, group_count=%d, global_barriers=%d)" % (
            self.wave_count, self.group_count, self.global_barriers)


def _dependency_array(dependencies):
    """(E, 2) uint64, C-contiguous, from any integer array-like; InvalidArgumentError otherwise."""
    deps = _np.asarray(dependencies)
    if deps.size == 0:
        return _np.zeros((0, 2), dtype=_np.uint64)
    if deps.ndim != 2 or deps.shape[1] != 2:
        _invalid("dependencies has shape %s, not (E, 2)" % (deps.shape,),
                 "pass one row (before, after) per dependency, e.g. np.array([[0, 1], [1, 2]])")
    if deps.dtype.kind not in "iu":
        _invalid("dependencies has dtype %s, not an integer type" % deps.dtype,
                 "pass wave ids as integers (e.g. dtype np.int64)")
    if deps.dtype.kind == "i":
        negative = _np.flatnonzero((deps < 0).any(axis=1))
        if negative.size:
            row = int(negative[0])
            _invalid("dependency %d (%d, %d) has a negative wave id"
                     % (row, deps[row, 0], deps[row, 1]),
                     "wave ids are 0-based and non-negative")
    return _np.ascontiguousarray(deps, dtype=_np.uint64)


def plan(wave_count, dependencies):
    """Plan `wave_count` waves under `dependencies` (an integer array of shape
    (E, 2), rows (before, after)): a `Plan`, or a `PlanError` subclass."""
    try:
        count = _operator.index(wave_count)
    except TypeError:
        _invalid("wave_count is %r, not an integer" % (wave_count,), "pass the number of waves")
    if count < 0 or count >= 2 ** 64:
        _invalid("wave_count %d is outside 0..2^64-1" % count, "pass the number of waves")
    pairs = _dependency_array(dependencies)
    initialize()
    status, payload = _strata.plan(count, pairs)
    if status != 0:
        _raise(*payload)
    return Plan(count, *payload)
