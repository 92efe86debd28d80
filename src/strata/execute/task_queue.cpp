#include <strata/execute/task_queue.hpp>

#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>

namespace strata {

TaskQueueSnapshot TaskQueueSnapshot::from_tasks(const TaskWorkItem* tasks, std::size_t count) {
  TaskQueueSnapshot snapshot;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t word = tasks[i].state_word;
    if (word > static_cast<std::uint32_t>(TaskState::Faulted))
      throw PlanError::invalid_task_state(i, word);
    ++snapshot.counts_[word];
    if (is_schedulable(static_cast<TaskState>(word)) &&
        tasks[i].priority_age > snapshot.max_priority_age_)
      snapshot.max_priority_age_ = tasks[i].priority_age;
  }
  return snapshot;
}

std::uint32_t TaskQueueSnapshot::try_schedulable_count() const {
  return checked_count<std::uint32_t>(
      count(TaskState::Queued) + count(TaskState::Yielded) + count(TaskState::Requeued),
      "schedulable task count");
}

std::uint32_t TaskQueueSnapshot::requeue_count() const {
  return checked_count<std::uint32_t>(count(TaskState::Requeued), "requeued task count");
}

LaunchRequest TaskQueueSnapshot::try_apply_to_launch_request(LaunchRequest request) const {
  request.requeue_count = requeue_count();
  request.max_priority_age = max_priority_age_;
  return request;
}

}  // namespace strata
