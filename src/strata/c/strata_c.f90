! strata_c.f90: Fortran bindings (iso_c_binding) to Strata's C interface,
! <strata/c/strata_c.h>; the semantics are documented there.
!
! Installed as source, next to the header (a .mod file is compiler-specific):
! add ${Strata_FORTRAN_SOURCE} to a Fortran target and `use strata` (which
! re-exports the iso_c_binding kinds and c_ptr / c_f_pointer the calls need).
!
! Integer mapping: uint32_t -> integer(c_int32_t), uint64_t -> integer(c_int64_t)
! (same bits; wave ids must stay below 2**31 resp. 2**63 to read as
! non-negative Fortran integers), size_t -> integer(c_size_t), status -> c_int.
! Wave ids, levels and group offsets are 0-based, as in C.
module strata
  use, intrinsic :: iso_c_binding
  implicit none
  private

  ! Re-exported from iso_c_binding: the kinds and types the interfaces below
  ! use, so that `use strata` alone is enough to call them.
  public :: c_int, c_int32_t, c_int64_t, c_size_t, c_char, c_ptr, c_null_ptr
  public :: c_associated, c_f_pointer

  integer(c_int), parameter, public :: STRATA_OK = 0
  integer(c_int), parameter, public :: STRATA_ERROR_INVALID_WAVE = 1
  integer(c_int), parameter, public :: STRATA_ERROR_SELF_DEPENDENCY = 2
  integer(c_int), parameter, public :: STRATA_ERROR_CYCLE = 3
  integer(c_int), parameter, public :: STRATA_ERROR_COUNT_OVERFLOW = 4
  integer(c_int), parameter, public :: STRATA_ERROR_STORAGE_RESERVE_FAILED = 5
  integer(c_int), parameter, public :: STRATA_ERROR_INVALID_ARGUMENT = 6
  integer(c_int), parameter, public :: STRATA_ERROR_PARSE_ERROR = 7
  integer(c_int), parameter, public :: STRATA_ERROR_IO_ERROR = 8
  integer(c_int), parameter, public :: STRATA_ERROR_BUFFER_TOO_SMALL = 100
  integer(c_int), parameter, public :: STRATA_ERROR_NOT_INITIALIZED = 101
  integer(c_int), parameter, public :: STRATA_ERROR_INVALID_CSR = 102
  integer(c_int), parameter, public :: STRATA_ERROR_INTERNAL = 255

  ! What row w of a CSR lists (strata_plan_csr_u32/_u64; see strata_c.h).
  integer(c_int), parameter, public :: STRATA_CSR_OUT_EDGES = 0
  integer(c_int), parameter, public :: STRATA_CSR_IN_EDGES = 1
  integer(c_int), parameter, public :: STRATA_CSR_LOWER_TRIANGLE = 2
  integer(c_int), parameter, public :: STRATA_CSR_UPPER_TRIANGLE = 3

  public :: strata_initialize, strata_finalize, strata_is_initialized
  public :: strata_plan_into_u32, strata_plan_into_u64
  public :: strata_plan_u32, strata_plan_u64, strata_plan_destroy
  public :: strata_plan_csr_u32, strata_plan_csr_u64
  public :: strata_plan_wave_count, strata_plan_group_count, strata_plan_global_barriers
  public :: strata_plan_group_offsets_u32, strata_plan_waves_u32, strata_plan_levels_u32
  public :: strata_plan_group_offsets_u64, strata_plan_waves_u64, strata_plan_levels_u64
  public :: strata_last_error_kind, strata_last_error_message, strata_status_name
  public :: strata_execution_space_name

  interface
    function strata_initialize() bind(c, name="strata_initialize") result(status)
      import :: c_int
      integer(c_int) :: status
    end function strata_initialize

    function strata_finalize() bind(c, name="strata_finalize") result(status)
      import :: c_int
      integer(c_int) :: status
    end function strata_finalize

    function strata_is_initialized() bind(c, name="strata_is_initialized") result(yes)
      import :: c_int
      integer(c_int) :: yes
    end function strata_is_initialized

    ! pairs(2*i-1) = before, pairs(2*i) = after of dependency i (0-based wave ids).
    ! levels is optional (absent: not written).
    function strata_plan_into_u32(wave_count, pairs, dependency_count, group_offsets, &
                                  group_offsets_capacity, waves, waves_capacity, levels, &
                                  levels_capacity, group_count) &
        bind(c, name="strata_plan_into_u32") result(status)
      import :: c_int, c_int32_t, c_int64_t, c_size_t
      integer(c_int64_t), value :: wave_count
      integer(c_int32_t), intent(in) :: pairs(*)
      integer(c_size_t), value :: dependency_count
      integer(c_int32_t), intent(inout) :: group_offsets(*)
      integer(c_size_t), value :: group_offsets_capacity
      integer(c_int32_t), intent(inout) :: waves(*)
      integer(c_size_t), value :: waves_capacity
      integer(c_int32_t), intent(inout), optional :: levels(*)
      integer(c_size_t), value :: levels_capacity
      integer(c_int64_t), intent(out) :: group_count
      integer(c_int) :: status
    end function strata_plan_into_u32

    function strata_plan_into_u64(wave_count, pairs, dependency_count, group_offsets, &
                                  group_offsets_capacity, waves, waves_capacity, levels, &
                                  levels_capacity, group_count) &
        bind(c, name="strata_plan_into_u64") result(status)
      import :: c_int, c_int64_t, c_size_t
      integer(c_int64_t), value :: wave_count
      integer(c_int64_t), intent(in) :: pairs(*)
      integer(c_size_t), value :: dependency_count
      integer(c_int64_t), intent(inout) :: group_offsets(*)
      integer(c_size_t), value :: group_offsets_capacity
      integer(c_int64_t), intent(inout) :: waves(*)
      integer(c_size_t), value :: waves_capacity
      integer(c_int64_t), intent(inout), optional :: levels(*)
      integer(c_size_t), value :: levels_capacity
      integer(c_int64_t), intent(out) :: group_count
      integer(c_int) :: status
    end function strata_plan_into_u64

    ! Library-owned result: plan is a type(c_ptr) handle; free it with strata_plan_destroy.
    function strata_plan_u32(wave_count, pairs, dependency_count, plan) &
        bind(c, name="strata_plan_u32") result(status)
      import :: c_int, c_int32_t, c_int64_t, c_size_t, c_ptr
      integer(c_int64_t), value :: wave_count
      integer(c_int32_t), intent(in) :: pairs(*)
      integer(c_size_t), value :: dependency_count
      type(c_ptr), intent(out) :: plan
      integer(c_int) :: status
    end function strata_plan_u32

    function strata_plan_u64(wave_count, pairs, dependency_count, plan) &
        bind(c, name="strata_plan_u64") result(status)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int64_t), value :: wave_count
      integer(c_int64_t), intent(in) :: pairs(*)
      integer(c_size_t), value :: dependency_count
      type(c_ptr), intent(out) :: plan
      integer(c_int) :: status
    end function strata_plan_u64

    ! A CSR: row_map(1:wave_count+1) 0-based offsets into entries(1:entry_count),
    ! entries 0-based wave ids; kind one of the STRATA_CSR_* constants. A
    ! matrix's CSR with kind STRATA_CSR_LOWER_TRIANGLE plans its triangular solve.
    function strata_plan_csr_u32(wave_count, row_map, entries, entry_count, kind, plan) &
        bind(c, name="strata_plan_csr_u32") result(status)
      import :: c_int, c_int32_t, c_int64_t, c_size_t, c_ptr
      integer(c_int64_t), value :: wave_count
      integer(c_int32_t), intent(in) :: row_map(*)
      integer(c_int32_t), intent(in) :: entries(*)
      integer(c_size_t), value :: entry_count
      integer(c_int), value :: kind
      type(c_ptr), intent(out) :: plan
      integer(c_int) :: status
    end function strata_plan_csr_u32

    function strata_plan_csr_u64(wave_count, row_map, entries, entry_count, kind, plan) &
        bind(c, name="strata_plan_csr_u64") result(status)
      import :: c_int, c_int64_t, c_size_t, c_ptr
      integer(c_int64_t), value :: wave_count
      integer(c_int64_t), intent(in) :: row_map(*)
      integer(c_int64_t), intent(in) :: entries(*)
      integer(c_size_t), value :: entry_count
      integer(c_int), value :: kind
      type(c_ptr), intent(out) :: plan
      integer(c_int) :: status
    end function strata_plan_csr_u64

    subroutine strata_plan_destroy(plan) bind(c, name="strata_plan_destroy")
      import :: c_ptr
      type(c_ptr), value :: plan
    end subroutine strata_plan_destroy

    function strata_plan_wave_count(plan) bind(c, name="strata_plan_wave_count") result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: plan
      integer(c_int64_t) :: n
    end function strata_plan_wave_count

    function strata_plan_group_count(plan) bind(c, name="strata_plan_group_count") result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: plan
      integer(c_int64_t) :: n
    end function strata_plan_group_count

    function strata_plan_global_barriers(plan) bind(c, name="strata_plan_global_barriers") &
        result(n)
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: plan
      integer(c_int64_t) :: n
    end function strata_plan_global_barriers

    ! The plan's arrays as C pointers: c_f_pointer them into Fortran arrays.
    function strata_plan_group_offsets_u32(plan) bind(c, name="strata_plan_group_offsets_u32") &
        result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_group_offsets_u32

    function strata_plan_waves_u32(plan) bind(c, name="strata_plan_waves_u32") result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_waves_u32

    function strata_plan_levels_u32(plan) bind(c, name="strata_plan_levels_u32") result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_levels_u32

    function strata_plan_group_offsets_u64(plan) bind(c, name="strata_plan_group_offsets_u64") &
        result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_group_offsets_u64

    function strata_plan_waves_u64(plan) bind(c, name="strata_plan_waves_u64") result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_waves_u64

    function strata_plan_levels_u64(plan) bind(c, name="strata_plan_levels_u64") result(p)
      import :: c_ptr
      type(c_ptr), value :: plan
      type(c_ptr) :: p
    end function strata_plan_levels_u64

    function strata_last_error_kind() bind(c, name="strata_last_error_kind") result(status)
      import :: c_int
      integer(c_int) :: status
    end function strata_last_error_kind

    function c_last_error_message() bind(c, name="strata_last_error_message") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function c_last_error_message

    function c_status_name(status) bind(c, name="strata_status_name") result(p)
      import :: c_ptr, c_int
      integer(c_int), value :: status
      type(c_ptr) :: p
    end function c_status_name

    function c_execution_space_name() bind(c, name="strata_execution_space_name") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function c_execution_space_name

    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

contains

  ! A NUL-terminated C string as a Fortran string ("" for NULL).
  function fortran_string(p) result(text)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    if (.not. c_associated(p)) then
      text = ""
      return
    end if
    n = int(c_strlen(p))
    allocate (character(len=n) :: text)
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function fortran_string

  !> The last error's message on this thread ("" after a successful call).
  function strata_last_error_message() result(text)
    character(len=:), allocatable :: text
    text = fortran_string(c_last_error_message())
  end function strata_last_error_message

  !> The name of a status ("Cycle", "BufferTooSmall", ...).
  function strata_status_name(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    text = fortran_string(c_status_name(status))
  end function strata_status_name

  !> The Kokkos execution space plans run on.
  function strata_execution_space_name() result(text)
    character(len=:), allocatable :: text
    text = fortran_string(c_execution_space_name())
  end function strata_execution_space_name

end module strata
