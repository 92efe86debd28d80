#pragma once
// Continuation-task slots as a device-visible queue publishes them, and the
// host snapshot a launch request is built from.
#include <cstddef>
#include <cstdint>

#include <strata/execute/launch_request.hpp>

namespace strata {

/// The state word of a task slot. Queued, Yielded and Requeued are
/// schedulable (a yielded or requeued task resumes on the device without a
/// host republish loop); the others add no launch lanes.
enum class TaskState : std::uint32_t {
  Empty = 0,
  Queued = 1,
  Running = 2,
  Yielded = 3,
  Requeued = 4,
  Paused = 5,
  Completed = 6,
  Faulted = 7,
};

inline constexpr bool is_schedulable(TaskState s) {
  return s == TaskState::Queued || s == TaskState::Yielded || s == TaskState::Requeued;
}

/// One slot. `state_word` is a raw word (it comes from device memory), so an
/// unknown value is representable and reported, not undefined behaviour.
struct TaskWorkItem {
  std::uint32_t state_word = 0;
  std::uint32_t priority_age = 0;  ///< launches the task has waited
  std::uint64_t payload = 0;       ///< opaque to the policy

  static TaskWorkItem with_state(TaskState s, std::uint32_t age = 0) {
    return TaskWorkItem{static_cast<std::uint32_t>(s), age, 0};
  }
};

class TaskQueueSnapshot {
 public:
  /// Throws InvalidTaskState naming the first slot with an unknown word.
  static TaskQueueSnapshot from_tasks(const TaskWorkItem* tasks, std::size_t count);

  /// Schedulable slots; CountOverflow if they do not fit the request's 32 bits.
  std::uint32_t try_schedulable_count() const;
  std::uint64_t count(TaskState s) const { return counts_[static_cast<std::uint32_t>(s)]; }
  std::uint32_t requeue_count() const;
  std::uint32_t max_priority_age() const { return max_priority_age_; }

  /// The request with this snapshot's requeue count and maximum priority age.
  LaunchRequest try_apply_to_launch_request(LaunchRequest request) const;

 private:
  std::uint64_t counts_[8] = {};
  std::uint32_t max_priority_age_ = 0;
};

}  // namespace strata
