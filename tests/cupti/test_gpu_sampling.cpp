// Sampled GPU tracing without a GPU: the schedule parser and its step/time rules
// (gpu_schedule.hpp), the open/close/detach/re-attach state machine (gpu_trace_control.hpp)
// driven through a fake CuptiOps that logs every call, and the activity orchestration
// (cupti_activity.hpp: kinds, API selection, attach, detach, tear-down) driven through a fake
// CuptiActivityApi that logs every call the same way.
#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <thread>
#include <map>
#include <string>
#include <vector>

#include "cupti_activity.hpp"
#include "gpu_schedule.hpp"
#include "gpu_trace_control.hpp"

using namespace amdahl::profiler;

namespace {

struct FakeCupti final : CuptiOps {
  std::string log;
  bool attach_ok = true, arm_ok = true, finalize_ok = true;
  std::chrono::milliseconds attach_takes{0}, disable_takes{0}, finalize_takes{0};
  bool attach() override { log += "attach;"; std::this_thread::sleep_for(attach_takes); return attach_ok; }
  void enable_tracing() override { log += "enable;"; }
  void disable_tracing() override { log += "disable;"; std::this_thread::sleep_for(disable_takes); }
  bool arm_detach() override { log += "arm;"; return arm_ok; }
  void disarm_detach() override { log += "disarm;"; }
  bool finalize() override { log += "finalize;"; std::this_thread::sleep_for(finalize_takes); return finalize_ok; }
};

// The CUPTI calls of the activity orchestration, logged as FakeCupti logs CuptiOps's. Kinds by
// their index in cupti::Kind (0 DEVICE ... 5 RUNTIME, 6 DRIVER, 9 CUDA_EVENT, 10 OVERHEAD).
struct FakeActivityApi final : cupti::CuptiActivityApi {
  std::string log;
  std::uint32_t refuse_mask = 0;  // kinds CUPTI refuses
  bool callbacks_ok = true, subscribe_ok = true, arm_ok = true, finalize_ok = true;
  cupti::LaunchApis launch{40, 30};
  bool has_subscriber = false;
  int kind_code(cupti::Kind k) const noexcept override { return 100 + static_cast<int>(k); }
  bool enable(cupti::Kind k, const char** error) noexcept override {
    const auto i = static_cast<unsigned>(k);
    log += "on" + std::to_string(i) + ";";
    if (refuse_mask & (1U << i)) *error = "refused";
    return !(refuse_mask & (1U << i));
  }
  void disable(cupti::Kind k) noexcept override { log += "off" + std::to_string(static_cast<unsigned>(k)) + ";"; }
  void flush(bool forced) noexcept override { log += forced ? "flush!;" : "flush;"; }
  cupti::LaunchApis enable_launch_apis(bool driver, bool late) noexcept override {
    log += std::string("apis(") + (driver ? "driver" : "") + (late ? ",late" : "") + ");";
    return launch;
  }
  const char* register_callbacks(const char** error) noexcept override {
    log += "callbacks;";
    if (callbacks_ok) return nullptr;
    *error = "not initialized";
    return "cuptiActivityRegisterCallbacks";
  }
  bool subscribe() noexcept override {
    log += "subscribe;";
    has_subscriber = subscribe_ok;
    return subscribe_ok;
  }
  void unsubscribe() noexcept override {
    log += "unsubscribe;";
    has_subscriber = false;
  }
  bool subscribed() const noexcept override { return has_subscriber; }
  bool arm_detach() noexcept override { log += "arm;"; return arm_ok; }
  void disarm_detach() noexcept override { log += "disarm;"; }
  bool finalize() noexcept override {
    log += "finalize;";
    if (finalize_ok) has_subscriber = false;
    return finalize_ok;
  }
  void sync_context() noexcept override { log += "sync;"; }
};

std::map<std::string, std::uint64_t> g_diags;  // what the orchestration counted
void count(std::string_view key, std::uint64_t n) noexcept { g_diags[std::string(key)] += n; }

// Every kind but DEVICE, RUNTIME and DRIVER (Launch mode: the API records go per call id).
constexpr const char* kLaunchKinds = "on1;on2;on3;on4;on7;on8;on9;on10;";

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

TEST_CASE("share cap: ',P%' parses on sampled schedules only and round-trips") {
  auto c = parse_gpu_schedule("10/200@20,2%");
  REQUIRE(c);
  CHECK(c->kind == ScheduleKind::Sample);
  CHECK(c->k == 10);
  CHECK(c->m == 200);
  CHECK(c->skip == 20);
  CHECK(c->max_share_pct == 2);
  CHECK(schedule_text(*c) == "10/200@20,2%");
  auto n = parse_gpu_schedule("5/50,100%");
  REQUIRE(n);
  CHECK(n->max_share_pct == 100);
  CHECK(schedule_text(*n) == "5/50@20");  // 100%: no cap
  CHECK(parse_gpu_schedule("10/200@20")->max_share_pct == 100);
  for (const char* bad : {"10/200@20,", "10/200@20,2", "10/200@20,0%", "10/200@20,101%", "10/200@20,2.5%",
                          "10/200@20,%", "4:10,2%", "all,2%", "10/200@20,2%,3%", "10/200@20, 2%", ",2%"}) {
    INFO(bad);
    CHECK_FALSE(parse_gpu_schedule(bad));
  }
}

// Actions under the cap, each step lasting step_ns[n] (the rest: base_ns).
std::string capped(const GpuSchedule& s, std::uint64_t steps, std::int64_t base_ns, std::int64_t traced_ns) {
  ShareGate g;
  std::string out;
  std::int64_t t = 1'000'000'000;  // the process ran a second before step 0
  bool tracing = true;
  for (std::uint64_t n = 0; n < steps; ++n) {
    const TraceAction a = capped_step_action(s, g, n, t);
    if (a == TraceAction::Open) tracing = true;
    if (a == TraceAction::Close) tracing = false;
    if (a != TraceAction::None) {
      out += a == TraceAction::Open ? '+' : '-';
      out += std::to_string(n);
    }
    t += tracing ? traced_ns : base_ns;
  }
  return out;
}

TEST_CASE("share cap: a window lets the next open only after (100-P)/P times its length") {
  // 2%: the start-up window counts as its last 2 steps of 2 ms (4 ms): the next window is held
  // off 196 ms; at 1 ms an untraced step, the windows due at steps 15 to 195 are skipped.
  const GpuSchedule s = *parse_gpu_schedule("2/10@5,2%");
  CHECK(capped(s, 40, 1'000'000, 2'000'000) == "-5");
  // Step n >= 5 starts at 10 + (n-5) ms: 205 is the first due step past 206 ms; its window (4 ms)
  // holds the next off 196 ms again: 405.
  CHECK(capped(s, 600, 1'000'000, 2'000'000) == "-5+205-207+405-407");
  // A slow start (step 0 lasting 3 s, as CUDA's start-up does) does not count against the cap.
  {
    ShareGate g;
    std::string out;
    std::int64_t t = 0;
    for (std::uint64_t n = 0; n < 300; ++n) {
      const TraceAction a = capped_step_action(s, g, n, t);
      if (a != TraceAction::None) {
        out += a == TraceAction::Open ? '+' : '-';
        out += std::to_string(n);
      }
      t += n == 0 ? 3'000'000'000 : (n < 5 ? 2'000'000 : 1'000'000);
    }
    CHECK(out == "-5+205-207");
  }
  // Without a cap the schedule is step_action's.
  CHECK(capped(*parse_gpu_schedule("2/10@5"), 40, 1'000'000, 2'000'000) == "-5+15-17+25-27+35-37");
  // 50%: a window of 2 steps (4 ms) holds the next off 4 ms: every due window opens.
  CHECK(capped(*parse_gpu_schedule("2/10@5,50%"), 40, 1'000'000, 2'000'000) == "-5+15-17+25-27+35-37");
  // The default: 10/200@20,2% on a step of 9 ms untraced, 15 ms traced: the start-up window's
  // last 10 steps (150 ms) hold off 7.35 s, to step 837: 1020 is the first due step; its window
  // holds off 7.35 s again (1820 is 0.24 s too early).
  CHECK(capped(*parse_gpu_schedule(kDefaultGpuSample), 3000, 9'000'000, 15'000'000) == "-20+1020-1030+2020-2030");
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

TEST_CASE("time fallback under a share cap: the period grows until on_ms is at most P% of it") {
  GpuSchedule s = *parse_gpu_schedule(kDefaultGpuSample);  // 2%: 1 s of every 50 s, not of 20 s
  CHECK(s.on_ms == 1000);
  CHECK(s.period_ms == 20000);
  CHECK(time_window_period_ms(s) == 50000);
  CHECK(time_window_open(s, s.fallback_ms - 1));
  CHECK_FALSE(time_window_open(s, s.fallback_ms + 19500));  // where the uncapped window would be
  CHECK_FALSE(time_window_open(s, s.fallback_ms + 48999));
  CHECK(time_window_open(s, s.fallback_ms + 49000));
  CHECK(time_window_open(s, s.fallback_ms + 49999));
  CHECK_FALSE(time_window_open(s, s.fallback_ms + 50000));
  // The traced share over a long run is at most 2%.
  std::uint64_t on = 0;
  const std::uint64_t span = 1'000'000;
  for (std::uint64_t ms = 0; ms < span; ++ms) on += time_window_open(s, s.fallback_ms + ms) ? 1 : 0;
  CHECK(on * 100 <= span * 2);
  CHECK(on * 100 >= span * 2 - 100);  // and not much less (the last period is whole)
  // A cap that the period already meets leaves it alone; rounding goes up; 100% is no cap.
  s.max_share_pct = 10;
  CHECK(time_window_period_ms(s) == 20000);
  s.max_share_pct = 3;
  CHECK(time_window_period_ms(s) == 33334);
  s.max_share_pct = 100;
  CHECK(time_window_period_ms(s) == 20000);
  // No overflow near the largest parsable on_ms.
  s.max_share_pct = 1;
  s.on_ms = 999'999'999'999'999'999ULL;
  CHECK(time_window_period_ms(s) == std::numeric_limits<std::uint64_t>::max());
  CHECK_FALSE(time_window_open(s, s.fallback_ms + 1'000'000));
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

TEST_CASE("state machine: the time spent attaching, closing and detaching is summed") {
  FakeCupti f;
  f.attach_takes = std::chrono::milliseconds(30);
  f.disable_takes = std::chrono::milliseconds(20);
  f.finalize_takes = std::chrono::milliseconds(10);
  TraceControl c(f, true);
  CHECK(c.control_us() == 0);
  c.on_api_exit();  // nothing pending: not timed as control
  c.close();        // 20 ms (the flush)
  c.on_api_exit();  // 10 ms (finalize)
  const auto after_first = c.control_us();
  CHECK(after_first >= 30'000);
  CHECK(after_first < 1'000'000);
  c.open();  // 30 ms (attach)
  CHECK(c.control_us() >= after_first + 30'000);
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

TEST_CASE("activity orchestration: a FROM:TO window starts with DEVICE only, opens, detaches, attaches again") {
  g_diags.clear();
  FakeActivityApi api;
  api.has_subscriber = true;  // subscribed at start-up
  cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, true, &count);
  TraceControl c(a, false);
  a.enable_kinds(true, false);  // start-up of a FROM:TO schedule
  CHECK(api.log == "on0;");
  CHECK(a.enabled(cupti::Kind::Device));
  CHECK_FALSE(a.enabled(cupti::Kind::ConcurrentKernel));
  api.log.clear();
  c.open();  // step FROM: every kind, API records per call id (CUDA already runs: late)
  CHECK(api.log == std::string(kLaunchKinds) + "apis(driver,late);");
  CHECK(a.enabled(cupti::Kind::ConcurrentKernel));
  CHECK(a.launch_apis().runtime == 40);
  api.log.clear();
  c.close();  // step TO: sync, forced flush, every kind but DEVICE off, the detach armed
  CHECK(api.log == "sync;flush!;off1;off2;off3;off4;off7;off8;off9;off10;off5;off6;arm;");
  CHECK(a.enabled(cupti::Kind::Device));
  CHECK_FALSE(a.enabled(cupti::Kind::Memcpy));
  api.log.clear();
  c.on_api_exit();
  CHECK(api.log == "flush!;finalize;");
  CHECK(c.state() == TraceState::Detached);
  CHECK(a.enabled(cupti::Kind::Device));  // CUPTI forgot every kind; DEVICE's records came already, not asked again
  CHECK_FALSE(a.enabled(cupti::Kind::ConcurrentKernel));
  api.log.clear();
  c.open();  // attach again: callbacks, subscriber, the kinds (DEVICE records came at the first attach)
  CHECK(api.log == std::string("callbacks;subscribe;") + kLaunchKinds + "apis(driver,late);");
  CHECK(c.attaches() == 1);
  CHECK(g_diags.empty());
}

TEST_CASE("activity orchestration: a sampled start-up traces everything from CUDA's start; tear-down") {
  g_diags.clear();
  FakeActivityApi api;
  api.has_subscriber = true;
  cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, true, &count);
  a.enable_kinds(false, false);
  CHECK(api.log == std::string("on0;") + kLaunchKinds + "apis(driver);");
  api.log.clear();
  a.enable_kinds(false, false);  // already on: only the API selection again
  CHECK(api.log == "apis(driver);");
  api.log.clear();
  a.tear_down();
  CHECK(api.log == "flush!;off0;off1;off2;off3;off4;off7;off8;off9;off10;off5;off6;unsubscribe;");
  CHECK_FALSE(api.subscribed());
}

TEST_CASE("activity orchestration: API record modes and the driver switch") {
  g_diags.clear();
  SUBCASE("all: the RUNTIME and DRIVER kinds, no per-call selection") {
    FakeActivityApi api;
    cupti::ActivityControl a(api, cupti::ApiTrace::All, true, true, &count);
    a.enable_kinds(false, false);
    CHECK(api.log == "on0;on1;on2;on3;on4;on5;on6;on7;on8;on9;on10;");
    api.log.clear();
    a.disable_kinds();
    CHECK(api.log == "flush!;off1;off2;off3;off4;off5;off6;off7;off8;off9;off10;");
  }
  SUBCASE("all without driver records") {
    FakeActivityApi api;
    cupti::ActivityControl a(api, cupti::ApiTrace::All, false, true, &count);
    a.enable_kinds(false, false);
    CHECK(api.log == "on0;on1;on2;on3;on4;on5;on7;on8;on9;on10;");
  }
  SUBCASE("none: no API records at all") {
    FakeActivityApi api;
    cupti::ActivityControl a(api, cupti::ApiTrace::None, true, true, &count);
    a.enable_kinds(false, false);
    CHECK(api.log == std::string("on0;") + kLaunchKinds);
  }
  SUBCASE("launch without driver records") {
    FakeActivityApi api;
    cupti::ActivityControl a(api, cupti::ApiTrace::Launch, false, true, &count);
    a.enable_kinds(false, false);
    CHECK(api.log == std::string("on0;") + kLaunchKinds + "apis();");
  }
  CHECK(g_diags.empty());
}

TEST_CASE("activity orchestration: refusals are counted once and not retried") {
  g_diags.clear();
  SUBCASE("a kind CUPTI refuses (CUDA_EVENT)") {
    FakeActivityApi api;
    api.refuse_mask = 1U << static_cast<unsigned>(cupti::Kind::CudaEvent);
    cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, true, &count);
    TraceControl c(a, true);
    a.enable_kinds(false, false);
    CHECK_FALSE(a.enabled(cupti::Kind::CudaEvent));
    CHECK(g_diags["cupti.kind_not_enabled.109"] == 1);
    c.close();  // CUDA_EVENT was never on: not disabled
    CHECK(api.log.find("off9;") == std::string::npos);
    api.log.clear();
    c.open();  // no detach happened (no API exit): the kinds again, CUDA_EVENT not asked again
    CHECK(api.log == "disarm;on1;on2;on3;on4;on7;on8;on10;apis(driver,late);");
    CHECK(g_diags["cupti.kind_not_enabled.109"] == 1);
  }
  SUBCASE("no runtime call traceable one by one") {
    FakeActivityApi api;
    api.launch = {0, 12};
    cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, true, &count);
    a.enable_kinds(false, false);
    CHECK(g_diags["cupti.launch_apis_unavailable"] == 1);
  }
  SUBCASE("the attach after a detach fails: counted, CUPTI off for good") {
    FakeActivityApi api;
    api.has_subscriber = true;
    cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, true, &count);
    TraceControl c(a, true);
    a.enable_kinds(false, false);
    c.close();
    c.on_api_exit();
    CHECK(c.state() == TraceState::Detached);
    api.callbacks_ok = false;
    api.log.clear();
    c.open();
    CHECK(api.log == "callbacks;");
    CHECK(c.state() == TraceState::Off);
    CHECK(g_diags["cupti.reattach_failed"] == 1);
    c.open();  // off: no more calls
    CHECK(api.log == "callbacks;");
  }
  SUBCASE("no resubscribe (AMDAHL_CUPTI_SUBSCRIBE=0): attach registers the callbacks only") {
    FakeActivityApi api;
    cupti::ActivityControl a(api, cupti::ApiTrace::Launch, true, false, &count);
    CHECK(a.attach());
    CHECK(api.log == "callbacks;");
  }
}
