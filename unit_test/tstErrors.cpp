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

}  // namespace
}  // namespace strata
