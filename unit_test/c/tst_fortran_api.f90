! Fortran test of Strata's C interface through the installed `strata` module
! (strata_c.f90, iso_c_binding). Stops with a non-zero code on any failure.
program tst_fortran_api
  use, intrinsic :: iso_c_binding
  use strata
  implicit none

  integer :: failures = 0
  integer(c_int) :: status
  integer(c_int32_t) :: pairs(8), offsets(5), waves(4), levels(4), short_offsets(2)
  integer(c_int64_t) :: pairs64(8), groups
  integer(c_int32_t), parameter :: cycle_pairs(6) = [0, 1, 1, 2, 2, 0]
  ! the diamond as the CSR of a lower-triangular matrix with its diagonal
  integer(c_int32_t), parameter :: lower_map(5) = [0, 1, 3, 5, 8]
  integer(c_int32_t), parameter :: lower_entries(8) = [0, 0, 1, 0, 2, 1, 2, 3]
  integer(c_int32_t), pointer :: levels32(:)
  type(c_ptr) :: plan
  integer(c_int64_t), pointer :: waves64(:), offsets64(:)
  character(len=:), allocatable :: message

  ! the diamond 0 -> {1, 2} -> 3, as (before, after) pairs, 0-based wave ids
  pairs = [0, 1, 0, 2, 1, 3, 2, 3]
  pairs64 = int(pairs, c_int64_t)

  call expect(strata_initialize() == STRATA_OK, "strata_initialize")
  call expect(strata_is_initialized() == 1, "strata_is_initialized")
  print '(a, a)', "strata on ", strata_execution_space_name()

  ! caller-provided arrays, with and without levels
  status = strata_plan_into_u32(4_c_int64_t, pairs, 4_c_size_t, offsets, 5_c_size_t, &
                                waves, 4_c_size_t, levels, 4_c_size_t, groups)
  call expect(status == STRATA_OK, "plan_into_u32: "//strata_last_error_message())
  call expect(groups == 3, "plan_into_u32 group count")
  call expect(all(offsets(1:4) == [0, 1, 3, 4]), "plan_into_u32 offsets")
  call expect(all(waves == [0, 1, 2, 3]), "plan_into_u32 waves")
  call expect(all(levels == [0, 1, 1, 2]), "plan_into_u32 levels")
  status = strata_plan_into_u32(4_c_int64_t, pairs, 4_c_size_t, offsets, 5_c_size_t, &
                                waves, 4_c_size_t, levels_capacity=0_c_size_t, group_count=groups)
  call expect(status == STRATA_OK .and. groups == 3, "plan_into_u32 without levels")

  ! too short group_offsets: BufferTooSmall and the group count to retry with
  status = strata_plan_into_u32(4_c_int64_t, pairs, 4_c_size_t, short_offsets, 2_c_size_t, &
                                waves, 4_c_size_t, levels_capacity=0_c_size_t, group_count=groups)
  call expect(status == STRATA_ERROR_BUFFER_TOO_SMALL, "BufferTooSmall status")
  call expect(groups == 3, "BufferTooSmall reports the group count")
  call expect(strata_status_name(status) == "BufferTooSmall", "strata_status_name")

  ! library-owned result, 64-bit ordinals
  status = strata_plan_u64(4_c_int64_t, pairs64, 4_c_size_t, plan)
  call expect(status == STRATA_OK, "plan_u64: "//strata_last_error_message())
  call expect(strata_plan_group_count(plan) == 3, "plan_u64 group count")
  call expect(strata_plan_global_barriers(plan) == 2, "plan_u64 global barriers")
  call c_f_pointer(strata_plan_group_offsets_u64(plan), offsets64, [strata_plan_group_count(plan) + 1])
  call c_f_pointer(strata_plan_waves_u64(plan), waves64, [strata_plan_wave_count(plan)])
  call expect(all(offsets64 == [0, 1, 3, 4]), "plan_u64 offsets")
  call expect(all(waves64 == [0, 1, 2, 3]), "plan_u64 waves")
  call expect(.not. c_associated(strata_plan_waves_u32(plan)), "wrong-width accessor is NULL")
  call expect(strata_last_error_kind() == STRATA_ERROR_INVALID_ARGUMENT, "wrong width error")
  call strata_plan_destroy(plan)

  ! a CSR: a matrix's lower triangle (diagonal ignored), and a malformed row_map
  status = strata_plan_csr_u32(4_c_int64_t, lower_map, lower_entries, 8_c_size_t, &
                               STRATA_CSR_LOWER_TRIANGLE, plan)
  call expect(status == STRATA_OK, "plan_csr_u32: "//strata_last_error_message())
  call expect(strata_plan_group_count(plan) == 3, "plan_csr_u32 group count")
  call c_f_pointer(strata_plan_levels_u32(plan), levels32, [strata_plan_wave_count(plan)])
  call expect(all(levels32 == [0, 1, 1, 2]), "plan_csr_u32 levels")
  call strata_plan_destroy(plan)
  status = strata_plan_csr_u32(4_c_int64_t, [0, 2, 1, 8, 8], lower_entries, 8_c_size_t, &
                               STRATA_CSR_LOWER_TRIANGLE, plan)
  call expect(status == STRATA_ERROR_INVALID_CSR, "plan_csr_u32 decreasing row_map")
  call expect(.not. c_associated(plan), "no plan for a bad CSR")
  message = strata_last_error_message()
  call expect(index(message, "InvalidCsr: ") == 1 .and. index(message, "Fix:") > 0, &
              "bad CSR message: "//message)

  ! a cycle: typed status, message with the kind and a Fix: hint
  status = strata_plan_u32(3_c_int64_t, cycle_pairs, 3_c_size_t, plan)
  call expect(status == STRATA_ERROR_CYCLE, "cycle status")
  call expect(.not. c_associated(plan), "no plan on error")
  call expect(strata_last_error_kind() == STRATA_ERROR_CYCLE, "cycle last error kind")
  message = strata_last_error_message()
  call expect(index(message, "Cycle: ") == 1, "cycle message kind: "//message)
  call expect(index(message, "Fix:") > 0, "cycle message Fix: hint")

  call expect(strata_finalize() == STRATA_OK, "strata_finalize")
  call expect(strata_is_initialized() == 0, "finalized")

  if (failures > 0) then
    print '(a, i0, a)', "tst_fortran_api: ", failures, " check(s) failed"
    stop 1
  end if
  print '(a)', "tst_fortran_api: all checks passed"

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a, a)', "CHECK failed: ", what
      failures = failures + 1
    end if
  end subroutine expect

end program tst_fortran_api
