// Error kinds, fields and messages (host only).
#include <string>

#include <gtest/gtest.h>

#include <strata/core/error.hpp>
#include <strata/core/ordinal.hpp>

namespace strata {
namespace {

void expect_message(const PlanError& e, const char* kind, const char* fragment) {
  const std::string text = e.what();
  EXPECT_EQ(text.rfind(std::string(kind) + ": ", 0), 0u) << text;
  EXPECT_NE(text.find(fragment), std::string::npos) << text;
  EXPECT_NE(text.find(". Fix: "), std::string::npos) << text;
}

TEST(Errors, MessagesStartWithTheKindAndEndWithAFix) {
  const auto invalid = PlanError::invalid_wave(2, 0, 2);
  expect_message(invalid, "InvalidWave", "before=0 after=2 for wave_count=2");
  EXPECT_EQ(invalid.kind(), ErrorKind::InvalidWave);
  expect_message(PlanError::self_dependency(7), "SelfDependency", "wave 7 depends on itself");
  const auto cycle = PlanError::cycle(5);
  expect_message(cycle, "Cycle", "cycle with 5 unscheduled waves");
  EXPECT_EQ(cycle.unscheduled_waves(), 5u);
  const auto overflow = PlanError::count_overflow("wave count");
  expect_message(overflow, "CountOverflow", "overflowed while computing wave count");
  EXPECT_EQ(overflow.field(), "wave count");
  const auto storage = PlanError::storage_reserve_failed("indegree", 12, "out of memory");
  expect_message(storage, "StorageReserveFailed", "could not reserve 12 indegree entries: out of memory");
  EXPECT_EQ(storage.requested(), 12u);
  EXPECT_EQ(storage.message(), "out of memory");
  expect_message(PlanError::parse_error("g.txt", 3, "bad", "write numbers"), "ParseError", "g.txt:3: bad");
}

TEST(Errors, CheckedArithmeticNeverWraps) {
  EXPECT_EQ(checked_count<std::uint16_t>(65535, "x"), 65535u);
  EXPECT_THROW(checked_count<std::uint16_t>(65536, "x"), PlanError);
  EXPECT_EQ(checked_add<std::uint32_t>(4294967294u, 1u, "x"), 4294967295u);
  try {
    checked_add<std::uint32_t>(4294967295u, 1u, "row offsets");
    ADD_FAILURE();
  } catch (const PlanError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::CountOverflow);
    EXPECT_EQ(e.field(), "row offsets");
  }
}

TEST(Errors, InsufficientRanksNamesTheRanksNeeded) {
  const PlanError e = PlanError::insufficient_ranks(5, 2, 1024);
  EXPECT_EQ(e.kind(), ErrorKind::InsufficientRanks);
  EXPECT_EQ(e.needed_ranks(), 5u);
  EXPECT_EQ(e.available_ranks(), 2u);
  EXPECT_EQ(e.budget_bytes(), 1024u);
  EXPECT_EQ(std::string(e.what()),
            "InsufficientRanks: distributed planning needs at least 5 ranks for a per-rank budget "
            "of 1024 bytes but runs on 2. Fix: run with at least 5 ranks or raise DistributedOptions::rank_budget_bytes.");
  EXPECT_STREQ(error_kind_name(ErrorKind::InsufficientRanks), "InsufficientRanks");
  EXPECT_EQ(static_cast<int>(ErrorKind::InsufficientRanks), 13);  // appended: 1..12 unchanged
}

TEST(Errors, RankTimeoutNamesTheCallAndTheTimeout) {
  const PlanError e = PlanError::rank_timeout("MPI_Allreduce", 2, 1);
  EXPECT_EQ(e.kind(), ErrorKind::RankTimeout);
  EXPECT_EQ(e.field(), "MPI_Allreduce");
  EXPECT_EQ(e.requested(), 2u);
  EXPECT_EQ(std::string(e.what()).rfind("RankTimeout: rank 1 waited 2 s in MPI_Allreduce ", 0), 0u);
  EXPECT_NE(std::string(e.what()).find(". Fix: "), std::string::npos);
  EXPECT_STREQ(error_kind_name(ErrorKind::RankTimeout), "RankTimeout");
  EXPECT_EQ(static_cast<int>(ErrorKind::RankTimeout), 17);  // appended after the executor's 14..16
  const PlanError copy = PlanError::from_fields(e.fields());
  EXPECT_STREQ(copy.what(), e.what());
}

TEST(Errors, ExecutorKindsNameTheWaveOrTheLeague) {
  const PlanError fault = PlanError::wave_faulted(17);
  EXPECT_EQ(fault.kind(), ErrorKind::WaveFaulted);
  EXPECT_EQ(fault.wave(), 17u);
  EXPECT_EQ(std::string(fault.what()).rfind("WaveFaulted: wave 17 returned TaskState::Faulted", 0),
            0u);
  const PlanError limit = PlanError::requeue_limit(4, 64);
  EXPECT_EQ(limit.kind(), ErrorKind::RequeueLimit);
  EXPECT_EQ(limit.wave(), 4u);
  EXPECT_EQ(limit.requested(), 64u);
  const PlanError league = PlanError::not_co_resident(1000, 32, 264, "Cuda");
  EXPECT_EQ(league.kind(), ErrorKind::NotCoResident);
  EXPECT_EQ(league.requested(), 1000u);
  EXPECT_EQ(league.available(), 264u);
  EXPECT_EQ(league.field(), "Cuda");
  const PlanError stalled = PlanError::persistent_walk_stalled(132, 256, "Cuda");
  EXPECT_EQ(stalled.kind(), ErrorKind::NotCoResident);
  EXPECT_EQ(stalled.requested(), 132u);
  EXPECT_EQ(stalled.available(), 132u);
  EXPECT_EQ(stalled.field(), "Cuda");
  EXPECT_NE(std::string(stalled.what()).find("PlanMode::Sparse"), std::string::npos);
  for (const PlanError& e : {fault, limit, league, stalled})
    EXPECT_NE(std::string(e.what()).find(". Fix: "), std::string::npos) << e.what();
  // Appended after InsufficientRanks: 1..13 unchanged.
  EXPECT_EQ(static_cast<int>(ErrorKind::WaveFaulted), 14);
  EXPECT_EQ(static_cast<int>(ErrorKind::RequeueLimit), 15);
  EXPECT_EQ(static_cast<int>(ErrorKind::NotCoResident), 16);
  EXPECT_STREQ(error_kind_name(ErrorKind::NotCoResident), "NotCoResident");
  EXPECT_EQ(PlanError::from_fields(league.fields()).available(), 264u);
}

TEST(Errors, FieldsRebuildTheSameError) {
  for (const PlanError& e :
       {PlanError::invalid_wave(4, 1, 9), PlanError::self_dependency(3), PlanError::cycle(7),
        PlanError::parse_error("f.txt", 12, "bad", "fix it"), PlanError::io_error("f", "gone"),
        PlanError::insufficient_ranks(3, 1, 99), PlanError::memory_constrained(10, 5),
        PlanError::storage_reserve_failed("x", 4, "oom"), PlanError::invalid_task_state(2, 9),
        PlanError::wave_faulted(5), PlanError::requeue_limit(6, 3),
        PlanError::not_co_resident(9, 1, 2, "OpenMP"),
        PlanError::persistent_walk_stalled(4, 1, "OpenMP")}) {
    const PlanError copy = PlanError::from_fields(e.fields());
    EXPECT_EQ(copy.kind(), e.kind());
    EXPECT_STREQ(copy.what(), e.what());
    EXPECT_EQ(copy.before(), e.before());
    EXPECT_EQ(copy.after(), e.after());
    EXPECT_EQ(copy.wave(), e.wave());
    EXPECT_EQ(copy.line(), e.line());
    EXPECT_EQ(copy.field(), e.field());
    EXPECT_EQ(copy.message(), e.message());
    EXPECT_EQ(copy.unscheduled_waves(), e.unscheduled_waves());
    EXPECT_EQ(copy.needed_ranks(), e.needed_ranks());
    EXPECT_EQ(copy.budget_bytes(), e.budget_bytes());
    EXPECT_EQ(copy.state_word(), e.state_word());
    EXPECT_EQ(copy.requested(), e.requested());
    EXPECT_EQ(copy.available(), e.available());
  }
}

}  // namespace
}  // namespace strata
