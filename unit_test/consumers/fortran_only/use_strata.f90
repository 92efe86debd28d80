! `use strata` alone, as the README shows: the kinds (c_int, c_int32_t,
! c_int64_t, c_size_t), c_ptr and c_f_pointer come from the module. Plans the
! diamond 0 -> {1, 2} -> 3 into caller arrays and into a library-owned plan,
! and checks a cycle's error. Stops with a non-zero code on any failure.
program use_strata
  use strata
  implicit none

  integer(c_int32_t) :: pairs(8), offsets(4), waves(4)
  integer(c_int64_t) :: groups
  type(c_ptr) :: plan
  integer(c_int32_t), pointer :: plan_waves(:)

  pairs = [0, 1, 0, 2, 1, 3, 2, 3]
  if (strata_initialize() /= STRATA_OK) error stop "strata_initialize"

  if (strata_plan_into_u32(4_c_int64_t, pairs, 4_c_size_t, offsets, 4_c_size_t, waves, &
                           4_c_size_t, levels_capacity=0_c_size_t, group_count=groups) &
      /= STRATA_OK) error stop "strata_plan_into_u32"
  if (groups /= 3 .or. any(offsets /= [0, 1, 3, 4]) .or. any(waves /= [0, 1, 2, 3])) &
    error stop "caller arrays: wrong plan"

  if (strata_plan_u32(4_c_int64_t, pairs, 4_c_size_t, plan) /= STRATA_OK) error stop "strata_plan_u32"
  call c_f_pointer(strata_plan_waves_u32(plan), plan_waves, [4])
  if (strata_plan_group_count(plan) /= 3 .or. any(plan_waves /= [0, 1, 2, 3])) &
    error stop "library-owned plan: wrong plan"
  call strata_plan_destroy(plan)

  pairs(1:6) = [0, 1, 1, 2, 2, 0]
  if (strata_plan_into_u32(3_c_int64_t, pairs, 3_c_size_t, offsets, 4_c_size_t, waves, &
                           4_c_size_t, levels_capacity=0_c_size_t, group_count=groups) &
      /= STRATA_ERROR_CYCLE) error stop "cycle not reported"
  if (strata_status_name(strata_last_error_kind()) /= "Cycle") error stop "cycle: status name"

  if (strata_finalize() /= STRATA_OK) error stop "strata_finalize"
  print '(a, a, a)', "use strata alone: diamond planned on ", strata_execution_space_name(), &
    ", cycle reported"
end program use_strata
