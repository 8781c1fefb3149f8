// Sampled GPU tracing without a GPU: the schedule parser and its step/time rules
// (gpu_schedule.hpp), and the open/close/detach/re-attach state machine (gpu_trace_control.hpp)
// driven through a fake CuptiOps that logs every call.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gpu_schedule.hpp"
#include "gpu_trace_control.hpp"

using namespace amdahl::profiler;

namespace {

struct FakeCupti final : CuptiOps {
  std::string log;
  bool attach_ok = true, arm_ok = true, finalize_ok = true;
  bool attach() override { log += "attach;"; return attach_ok; }
  void enable_tracing() override { log += "enable;"; }
  void disable_tracing() override { log += "disable;"; }
  bool arm_detach() override { log += "arm;"; return arm_ok; }
  void disarm_detach() override { log += "disarm;"; }
  bool finalize() override { log += "finalize;"; return finalize_ok; }
};

std::string actions(const GpuSchedule& s, std::uint64_t steps) {
  std::string out;
  for (std::uint64_t n = 0; n < steps; ++n) {
    const TraceAction a = step_action(s, n);
    if (a == TraceAction::None) continue;
    out += a == TraceAction::Open ? '+' : '-';  // (char, then number: gcc 12 warns on "+" + to_string)
    out += std::to_string(n);
  }
  return out;
}

}  // namespace

TEST_CASE("schedule parsing: all, FROM:TO, K/M, K/M@SKIP; everything else refused") {
  auto all = parse_gpu_schedule("all");
  REQUIRE(all);
  CHECK(all->kind == ScheduleKind::All);
  auto w = parse_gpu_schedule("20:70");
  REQUIRE(w);
  CHECK(w->kind == ScheduleKind::Window);
  CHECK(w->from == 20);
  CHECK(w->to == 70);
  auto s = parse_gpu_schedule("5/50");
  REQUIRE(s);
  CHECK(s->kind == ScheduleKind::Sample);
  CHECK(s->k == 5);
  CHECK(s->m == 50);
  CHECK(s->skip == 20);  // the default warm-up skip (kDefaultGpuSample)
  auto s2 = parse_gpu_schedule("3/10@0");
  REQUIRE(s2);
  CHECK(s2->skip == 0);
  auto d = parse_gpu_schedule(kDefaultGpuSample);
  REQUIRE(d);
  CHECK(schedule_text(*d) == std::string(kDefaultGpuSample));
  CHECK(schedule_text(*w) == "20:70");
  CHECK(schedule_text(*all) == "all");
  for (const char* bad : {"", "All", "5:5", "7:3", "0/10", "10/10", "11/10", "5/", "/5", "5/50@", "5/50@x", "a/b",
                          "5/50@1@2", "-1/5", "1:2:3", "1234567890123456789/1234567890123456790", " 5/50"}) {
    INFO(bad);
    CHECK_FALSE(parse_gpu_schedule(bad));
  }
}

TEST_CASE("step actions: a window opens at FROM and closes at TO; samples open every M steps for K") {
  CHECK(actions(*parse_gpu_schedule("all"), 100).empty());
  CHECK(actions(*parse_gpu_schedule("4:10"), 20) == "+4-10");
  // Sampled: the start-up window (traced from CUDA's start) closes at SKIP; then K of every M.
  CHECK(actions(*parse_gpu_schedule("2/10@5"), 40) == "-5+15-17+25-27+35-37");
  CHECK(actions(*parse_gpu_schedule("1/2@0"), 6) == "-0+2-3+4-5");
  CHECK(actions(*parse_gpu_schedule("10/200@20"), 500) == "-20+220-230+420-430");
  const GpuSchedule win = *parse_gpu_schedule("4:10");
  CHECK_FALSE(schedule_done_after(win, 9));
  CHECK(schedule_done_after(win, 10));
  CHECK_FALSE(schedule_done_after(*parse_gpu_schedule("2/10@5"), 1000000));
}

TEST_CASE("time fallback: only for a sampled schedule, the start-up window, then on_ms at the end of every period_ms") {
  GpuSchedule s = *parse_gpu_schedule("5/50");
  s.fallback_ms = 1000;
  s.on_ms = 100;
  s.period_ms = 500;
  CHECK(time_window_open(s, 0));
  CHECK(time_window_open(s, 999));
  CHECK_FALSE(time_window_open(s, 1000));
  CHECK_FALSE(time_window_open(s, 1399));
  CHECK(time_window_open(s, 1400));
  CHECK(time_window_open(s, 1499));
  CHECK_FALSE(time_window_open(s, 1500));
  CHECK(time_window_open(s, 1950));
  s.on_ms = 600;  // more than the period: always on
  CHECK(time_window_open(s, 1200));
  CHECK_FALSE(time_window_open(*parse_gpu_schedule("4:10"), 100000));
  CHECK_FALSE(time_window_open(*parse_gpu_schedule("all"), 100000));
}

TEST_CASE("state machine: close arms the detach, the next API exit finalizes, open attaches again") {
  FakeCupti f;
  TraceControl c(f, false);
  CHECK(c.state() == TraceState::Idle);
  c.on_api_exit();  // nothing pending: no call
  CHECK(f.log.empty());
  c.open();
  CHECK(c.state() == TraceState::Tracing);
  CHECK(f.log == "enable;");
  c.open();  // already tracing: nothing
  CHECK(f.log == "enable;");
  c.close();
  CHECK(c.state() == TraceState::DetachPending);
  CHECK(f.log == "enable;disable;arm;");
  CHECK(c.attached());
  c.on_api_exit();
  CHECK(c.state() == TraceState::Detached);
  CHECK_FALSE(c.attached());
  CHECK(c.detaches() == 1);
  c.on_api_exit();  // a second exit after the detach: nothing
  c.close();        // closing a detached CUPTI: nothing
  CHECK(f.log == "enable;disable;arm;finalize;");
  c.open();
  CHECK(c.state() == TraceState::Tracing);
  CHECK(c.attaches() == 1);
  CHECK(f.log == "enable;disable;arm;finalize;attach;enable;");
  c.close();
  c.on_api_exit();
  CHECK(c.detaches() == 2);
  CHECK(f.log == "enable;disable;arm;finalize;attach;enable;disable;arm;finalize;");
}

TEST_CASE("state machine: a window that opens before any API call exits stays attached") {
  FakeCupti f;
  TraceControl c(f, true);
  c.close();
  c.open();
  CHECK(c.state() == TraceState::Tracing);
  CHECK(f.log == "disable;arm;disarm;enable;");
  c.on_api_exit();  // the pending detach was cancelled
  CHECK(c.state() == TraceState::Tracing);
  CHECK(c.detaches() == 0);
}

TEST_CASE("state machine: CUPTI refusals leave it attached and idle, or off for good") {
  SUBCASE("no API callbacks: stays attached, collecting nothing, and opens again without attach") {
    FakeCupti f;
    f.arm_ok = false;
    TraceControl c(f, true);
    c.close();
    CHECK(c.state() == TraceState::Idle);
    c.open();
    CHECK(f.log == "disable;arm;enable;");
  }
  SUBCASE("finalize refused: disarmed, idle") {
    FakeCupti f;
    f.finalize_ok = false;
    TraceControl c(f, true);
    c.close();
    c.on_api_exit();
    CHECK(c.state() == TraceState::Idle);
    CHECK(f.log == "disable;arm;finalize;disarm;");
  }
  SUBCASE("attach refused: off, no more calls") {
    FakeCupti f;
    f.attach_ok = false;
    TraceControl c(f, true);
    c.close();
    c.on_api_exit();
    c.open();
    CHECK(c.state() == TraceState::Off);
    CHECK_FALSE(c.attached());
    c.open();
    c.close();
    CHECK(f.log == "disable;arm;finalize;attach;");
  }
}
