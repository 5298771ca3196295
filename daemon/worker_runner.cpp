#include "daemon/worker_runner.hpp"

#include "compiler/worker/job_file.hpp"
#include "daemon/worker_sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <system_error>
#include <utility>

extern char** environ;

namespace d4r::daemon {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t k_log_keep = size_t{64} << 10;
constexpr size_t k_summary_max = 1500;
// Without a pidfd the wait loop wakes this often to look for the worker's exit.
constexpr std::chrono::milliseconds k_poll_fallback{20};
// Once the group is dead, the output pipe reaches EOF at once; this only bounds a process that left
// the group (setsid) and kept the pipe.
constexpr std::chrono::milliseconds k_drain_limit{1000};

std::string errno_text(int error)
{
  return std::error_code(error, std::generic_category()).message();
}

// A file descriptor closed with its owner.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(Fd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  Fd& operator=(Fd&& other) noexcept
  {
    reset();
    m_fd = std::exchange(other.m_fd, -1);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  [[nodiscard]] int get() const { return m_fd; }
  [[nodiscard]] bool valid() const { return m_fd >= 0; }
  void reset()
  {
    if (m_fd >= 0) {
      ::close(m_fd);
      m_fd = -1;
    }
  }

private:
  int m_fd = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

Expected<Pipe> make_pipe()
{
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) {
    return make_error(ErrorCode::internal, "worker: pipe: " + errno_text(errno));
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

// The private folder of one run, removed with its owner whatever happened.
class ScratchFolder {
public:
  static Expected<ScratchFolder> create(const std::filesystem::path& root)
  {
    std::error_code error;
    std::filesystem::create_directories(root, error);
    if (error) {
      return make_error(ErrorCode::io, "worker scratch " + root.string() + ": " + error.message());
    }
    std::string pattern = (root / "worker-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return make_error(ErrorCode::io,
                        "worker scratch " + root.string() + ": " + errno_text(errno));
    }
    return ScratchFolder(pattern);
  }
  ScratchFolder(ScratchFolder&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
  ScratchFolder& operator=(ScratchFolder&&) = delete;
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder()
  {
    if (!m_path.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(m_path, ignored);
    }
  }
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  explicit ScratchFolder(std::filesystem::path path) : m_path(std::move(path)) {}
  std::filesystem::path m_path;
};

// Everything the child needs, prepared before fork: between fork and exec only async-signal-safe
// calls are allowed, since other threads of the daemon may hold malloc's locks.
struct ChildPlan {
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::vector<char*> envp; // the daemon's environment with TMPDIR in the scratch folder
  const WorkerSandbox* sandbox = nullptr;
  rlimit cpu{};
  rlimit memory{};
  rlimit file_size{};
  rlimit files{};
  pid_t parent = 0;
  int stdin_fd = -1;
  int output_fd = -1;
  int exec_error_fd = -1;
};

[[noreturn]] void child_fail(const ChildPlan& plan)
{
  int error = errno;
  ssize_t ignored = ::write(plan.exec_error_fd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

[[noreturn]] void child_exec(const ChildPlan& plan)
{
  const rlimit no_core{0, 0};
  sigset_t none;
  ::sigemptyset(&none);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal : {SIGXCPU, SIGPIPE, SIGINT, SIGTERM, SIGHUP}) {
    ::sigaction(signal, &default_action, nullptr);
  }
  if (::setpgid(0, 0) != 0 || ::sigprocmask(SIG_SETMASK, &none, nullptr) != 0 ||
      ::setrlimit(RLIMIT_CPU, &plan.cpu) != 0 || ::setrlimit(RLIMIT_AS, &plan.memory) != 0 ||
      ::setrlimit(RLIMIT_CORE, &no_core) != 0 || ::setrlimit(RLIMIT_FSIZE, &plan.file_size) != 0 ||
      ::setrlimit(RLIMIT_NOFILE, &plan.files) != 0) {
    child_fail(plan);
  }
  // What an unprivileged process can give up. A worker outlives no daemon (a daemon killed with
  // SIGKILL cannot kill its workers itself), gains no privileges through exec (set-uid binaries),
  // and reaches no network (a fresh network namespace, inside a user namespace where the kernel
  // allows one: a parser exploit cannot talk to anything; where it does not, this step is skipped).
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != plan.parent ||
      ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    child_fail(plan);
  }
  if (::unshare(CLONE_NEWNET) != 0) {
    (void)::unshare(CLONE_NEWUSER | CLONE_NEWNET);
  }
  if (::dup2(plan.stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan.output_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.output_fd, STDERR_FILENO) < 0) {
    child_fail(plan);
  }
  // Descriptors another thread opened without O_CLOEXEC must not reach the worker.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  // Last, so that the steps above need nothing it refuses (daemon/worker_sandbox.hpp).
  if (int error = enter_worker_sandbox(*plan.sandbox); error != 0) {
    errno = error;
    child_fail(plan);
  }
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  child_fail(plan);
}

rlimit limit_of(int resource, rlim_t soft, rlim_t hard)
{
  rlimit current{};
  ::getrlimit(resource, &current);
  // An unprivileged process cannot raise its hard limit: stay under the one it has.
  rlimit wanted{std::min(soft, current.rlim_max), std::min(hard, current.rlim_max)};
  return wanted;
}

struct Spawned {
  pid_t pid = -1;
  Fd output;
  Fd pidfd; // invalid where pidfd_open is not available: the wait loop then polls
};

ChildPlan make_plan(const std::filesystem::path& binary, const std::filesystem::path& job_file,
                    const WorkerLimits& limits)
{
  ChildPlan plan;
  plan.args = {binary.string(), job_file.string()};
  for (std::string& arg : plan.args) {
    plan.argv.push_back(arg.data());
  }
  plan.argv.push_back(nullptr);
  auto cpu = static_cast<rlim_t>(std::max<int64_t>(1, limits.cpu.count()));
  // SIGXCPU at the soft limit; SIGKILL a second later should the worker survive it.
  plan.cpu = limit_of(RLIMIT_CPU, cpu, cpu + 1);
  auto memory = static_cast<rlim_t>(limits.memory_bytes);
  plan.memory = limit_of(RLIMIT_AS, memory, memory);
  // No file a compile writes comes near this (the output is checked at max_output_bytes); a
  // runaway write fills the scratch folder no further.
  auto file_size = static_cast<rlim_t>(std::max<int64_t>(limits.max_output_bytes, 1) * 4);
  plan.file_size = limit_of(RLIMIT_FSIZE, file_size, file_size);
  plan.files = limit_of(RLIMIT_NOFILE, 1024, 1024);
  plan.parent = ::getpid();
  return plan;
}

// Reads the errno the child reports when it could not exec; nothing (EOF) means exec succeeded.
std::optional<int> exec_failure(Fd& exec_error_read)
{
  int error = 0;
  ssize_t got = -1;
  do {
    got = ::read(exec_error_read.get(), &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof error)) {
    return error;
  }
  return std::nullopt;
}

Expected<Spawned> spawn_worker(const std::filesystem::path& binary,
                               const std::filesystem::path& job_file, const WorkerLimits& limits)
{
  if (::access(binary.c_str(), X_OK) != 0) {
    return make_error(ErrorCode::internal,
                      "worker binary " + binary.string() + ": " + errno_text(errno));
  }
  Fd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null.valid()) {
    return make_error(ErrorCode::internal, "worker: /dev/null: " + errno_text(errno));
  }
  TRY_ASSIGN(Pipe output, make_pipe());
  TRY_ASSIGN(Pipe exec_error, make_pipe());
  // The job file lies in the run's scratch folder: the one place the worker may write.
  TRY_ASSIGN(WorkerSandbox sandbox, prepare_worker_sandbox(job_file.parent_path()));
  ChildPlan plan = make_plan(binary, job_file, limits);
  plan.sandbox = &sandbox;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::string_view(*variable).starts_with("TMPDIR=")) {
      continue;
    }
    plan.envp.push_back(*variable);
  }
  plan.envp.push_back(sandbox.tmpdir.data());
  plan.envp.push_back(nullptr);
  plan.stdin_fd = dev_null.get();
  plan.output_fd = output.write.get();
  plan.exec_error_fd = exec_error.write.get();

  pid_t pid = ::fork();
  if (pid < 0) {
    return make_error(ErrorCode::internal, "worker: fork: " + errno_text(errno));
  }
  if (pid == 0) {
    child_exec(plan);
  }
  // Also here, so that a kill of the group cannot come before the child's own setpgid.
  ::setpgid(pid, pid);
  output.write.reset();
  exec_error.write.reset();
  if (std::optional<int> error = exec_failure(exec_error.read)) {
    ::waitpid(pid, nullptr, 0);
    return make_error(ErrorCode::internal,
                      "worker binary " + binary.string() + ": cannot start: " + errno_text(*error));
  }
  // The syscall itself: glibc 2.36's <sys/pidfd.h> lacks extern "C" (fixed in 2.37).
  auto pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  return Spawned{pid, std::move(output.read), Fd(pidfd)};
}

// What became of a worker once it is reaped.
struct Completion {
  int status = 0;
  rusage usage{};
  bool wall_killed = false;
  std::string log;
  std::chrono::milliseconds elapsed{0};
};

void append_log(std::string& log, const char* data, size_t size)
{
  log.append(data, size);
  if (log.size() > 2 * k_log_keep) {
    log.erase(0, log.size() - k_log_keep);
  }
}

// Reads what is available; false at EOF or on an error.
bool read_output(Fd& output, std::string& log)
{
  std::array<char, 16384> buffer{};
  ssize_t got = ::read(output.get(), buffer.data(), buffer.size());
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
    return true;
  }
  if (got <= 0) {
    return false;
  }
  append_log(log, buffer.data(), static_cast<size_t>(got));
  return true;
}

bool has_exited(pid_t pid)
{
  siginfo_t info{};
  int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  return rc == 0 && info.si_pid == pid;
}

int poll_timeout_ms(Clock::time_point deadline, bool have_pidfd)
{
  auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  remaining = std::max(remaining, std::chrono::milliseconds(0));
  if (!have_pidfd) {
    remaining = std::min(remaining, k_poll_fallback);
  }
  return static_cast<int>(std::min<int64_t>(remaining.count() + 1, 60000));
}

// Polls the output pipe and the pidfd until the worker exits or the wall deadline passes. The
// worker is left unreaped (WNOWAIT), so its pid still names its process group.
bool wait_until_exit(Spawned& worker, Clock::time_point deadline, std::string& log)
{
  while (!has_exited(worker.pid)) {
    if (Clock::now() >= deadline) {
      return false;
    }
    std::array<pollfd, 2> fds{};
    nfds_t count = 0;
    if (worker.output.valid()) {
      fds[count++] = pollfd{worker.output.get(), POLLIN, 0};
    }
    if (worker.pidfd.valid()) {
      fds[count++] = pollfd{worker.pidfd.get(), POLLIN, 0};
    }
    int ready = ::poll(fds.data(), count, poll_timeout_ms(deadline, worker.pidfd.valid()));
    if (ready > 0 && worker.output.valid() && fds[0].revents != 0 &&
        !read_output(worker.output, log)) {
      worker.output.reset();
    }
  }
  return true;
}

void drain_output(Fd& output, std::string& log)
{
  Clock::time_point deadline = Clock::now() + k_drain_limit;
  while (output.valid() && Clock::now() < deadline) {
    pollfd fd{output.get(), POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(k_drain_limit.count())) <= 0 || !read_output(output, log)) {
      output.reset();
    }
  }
}

Completion wait_for_worker(Spawned& worker, std::chrono::milliseconds wall, Clock::time_point start)
{
  Completion completion;
  completion.wall_killed = !wait_until_exit(worker, start + wall, completion.log);
  // Whatever the worker left running in its group (a clang driver) goes with it.
  ::killpg(worker.pid, SIGKILL);
  pid_t reaped = -1;
  do {
    reaped = ::wait4(worker.pid, &completion.status, 0, &completion.usage);
  } while (reaped < 0 && errno == EINTR);
  drain_output(worker.output, completion.log);
  if (completion.log.size() > k_log_keep) {
    completion.log.erase(0, completion.log.size() - k_log_keep);
  }
  completion.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return completion;
}

} // namespace

namespace {

bool mentions_out_of_memory(std::string_view log)
{
  return log.find(compiler::k_worker_oom_marker) != std::string_view::npos ||
         log.find("LLVM ERROR: out of memory") != std::string_view::npos ||
         log.find("std::bad_alloc") != std::string_view::npos;
}

std::vector<std::string_view> split_lines(std::string_view text)
{
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      lines.push_back(line);
    }
  }
  return lines;
}

// The few lines of a worker's output that say what went wrong: the error lines ("LLVM ERROR:
// Cannot select ...", "error: ...") when there are any, otherwise the last lines. A crash dump's
// stack trace follows its error line, so the last lines alone would miss the reason.
std::string summarize_log(std::string_view log)
{
  std::vector<std::string_view> lines = split_lines(log);
  std::vector<std::string_view> picked;
  for (std::string_view line : lines) {
    if (line.find("ERROR") != std::string_view::npos ||
        line.find("error:") != std::string_view::npos) {
      picked.push_back(line);
    }
  }
  if (picked.empty()) {
    // The worker's first line names what failed; the last lines are where the compiler stopped.
    constexpr size_t k_last_lines = 4;
    size_t first = lines.size() > k_last_lines + 1 ? lines.size() - k_last_lines : 1;
    if (!lines.empty()) {
      picked.push_back(lines.front());
    }
    picked.insert(picked.end(), lines.begin() + static_cast<std::ptrdiff_t>(std::min(first, lines.size())),
                  lines.end());
  }
  std::string summary;
  for (std::string_view line : picked) {
    if (summary.size() + line.size() > k_summary_max) {
      summary += " ...";
      break;
    }
    summary += summary.empty() ? "" : " | ";
    summary += line;
  }
  return summary.empty() ? std::string("no output") : summary;
}

std::string describe_job(const compiler::CompileJob& job)
{
  return job.source.string() + " for " + job.target;
}

std::string signal_text(int signal)
{
  const char* description = ::sigdescr_np(signal);
  return "signal " + std::to_string(signal) + ", " +
         (description != nullptr ? description : "unknown signal");
}

int64_t cpu_seconds_used(const rusage& usage)
{
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000000;
}

WorkerAttempt failed(FailureKind kind, ErrorCode code, std::string message)
{
  return WorkerAttempt{make_error(code, std::move(message)), kind};
}

// The signals a process gets from what it does itself; any other came from outside.
bool is_self_inflicted(int signal)
{
  switch (signal) {
  case SIGSEGV:
  case SIGABRT:
  case SIGBUS:
  case SIGILL:
  case SIGFPE:
  case SIGTRAP:
  case SIGSYS:
    return true;
  default:
    return false;
  }
}

WorkerAttempt classify_signal(const Completion& completion, const WorkerLimits& limits,
                              const compiler::CompileJob& job)
{
  int signal = WTERMSIG(completion.status);
  // The kernel sends SIGXCPU at the soft CPU limit and SIGKILL at the hard one.
  if (signal == SIGXCPU ||
      (signal == SIGKILL && cpu_seconds_used(completion.usage) >= limits.cpu.count())) {
    return failed(FailureKind::suspect, ErrorCode::timeout,
                  "worker exceeded its CPU limit of " + std::to_string(limits.cpu.count()) +
                      "s building " + describe_job(job));
  }
  if (mentions_out_of_memory(completion.log)) {
    return failed(FailureKind::suspect, ErrorCode::resource_exhausted,
                  "worker ran out of memory (limit " + std::to_string(limits.memory_bytes >> 20) +
                      " MiB) building " + describe_job(job) + " (" + signal_text(signal) + ")");
  }
  if (!is_self_inflicted(signal)) {
    return failed(FailureKind::transient, ErrorCode::unavailable,
                  "worker was killed from outside (" + signal_text(signal) + ") building " +
                      describe_job(job));
  }
  return failed(FailureKind::suspect, ErrorCode::rejected,
                "worker crashed (" + signal_text(signal) + ") building " + describe_job(job) +
                    ": " + summarize_log(completion.log));
}

Expected<std::vector<std::byte>> read_code_object(const std::filesystem::path& path,
                                                  const WorkerLimits& limits)
{
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(path, error);
  if (error) {
    return make_error(ErrorCode::internal,
                      "worker succeeded but its output " + path.string() + ": " + error.message());
  }
  if (size > static_cast<uintmax_t>(limits.max_output_bytes)) {
    return make_error(ErrorCode::resource_exhausted,
                      "worker output " + path.string() + ": " + std::to_string(size) +
                          " bytes, over the limit of " + std::to_string(limits.max_output_bytes));
  }
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in || in.gcount() != static_cast<std::streamsize>(bytes.size())) {
    return make_error(ErrorCode::io, "worker output " + path.string() + ": read failed");
  }
  return bytes;
}

bool mentions_full_disk(const std::string& log)
{
  return log.find("No space left on device") != std::string::npos ||
         log.find("Disk quota exceeded") != std::string::npos;
}

WorkerAttempt classify_exit(const Completion& completion, const WorkerLimits& limits,
                            const compiler::WorkerJob& job)
{
  int code = WEXITSTATUS(completion.status);
  std::string what = describe_job(job.compile);
  std::string memory_limit = std::to_string(limits.memory_bytes >> 20) + " MiB";
  if (code < 0 || code > static_cast<int>(compiler::WorkerExit::io_error)) {
    if (mentions_out_of_memory(completion.log)) {
      return failed(FailureKind::suspect, ErrorCode::resource_exhausted,
                    "worker ran out of memory (limit " + memory_limit + ") building " + what);
    }
    return failed(FailureKind::suspect, ErrorCode::rejected,
                  "worker exited with code " + std::to_string(code) + " building " + what + ": " +
                      summarize_log(completion.log));
  }
  std::string summary = summarize_log(completion.log);
  switch (static_cast<compiler::WorkerExit>(code)) {
  case compiler::WorkerExit::ok:
    break;
  case compiler::WorkerExit::compile_error:
    if (mentions_full_disk(completion.log)) {
      // clang's own "No space left on device": the machine's state, not the source's.
      return failed(FailureKind::deterministic, ErrorCode::io,
                    "compile of " + what + " failed for want of disk space: " + summary);
    }
    return failed(FailureKind::deterministic, ErrorCode::rejected,
                  "compile of " + what + " failed: " + summary);
  case compiler::WorkerExit::bad_job:
    return failed(FailureKind::deterministic, ErrorCode::internal,
                  "worker refused its job building " + what + ": " + summary);
  case compiler::WorkerExit::out_of_memory:
    return failed(FailureKind::suspect, ErrorCode::resource_exhausted,
                  "worker ran out of memory (limit " + memory_limit + ") building " + what);
  case compiler::WorkerExit::backend_unavailable:
    return failed(FailureKind::deterministic, ErrorCode::unavailable,
                  "backend " + job.backend + " unavailable building " + what + ": " + summary);
  case compiler::WorkerExit::io_error:
    return failed(FailureKind::deterministic, ErrorCode::io,
                  "worker could not write its output building " + what + ": " + summary);
  }
  Expected<std::vector<std::byte>> code_object = read_code_object(job.output, limits);
  if (!code_object) {
    return WorkerAttempt{std::unexpected(std::move(code_object).error()), FailureKind::deterministic};
  }
  return WorkerAttempt{WorkerResult{std::move(*code_object), completion.log, completion.elapsed},
                       FailureKind::none};
}

WorkerAttempt classify(const Completion& completion, const WorkerLimits& limits,
                       const compiler::WorkerJob& job)
{
  if (completion.wall_killed) {
    return failed(FailureKind::transient, ErrorCode::unavailable,
                  "worker did not finish within " + std::to_string(limits.wall.count()) +
                      " ms building " + describe_job(job.compile) + ", killed (a busy machine?)");
  }
  if (WIFSIGNALED(completion.status)) {
    return classify_signal(completion, limits, job.compile);
  }
  return classify_exit(completion, limits, job);
}

Expected<void> write_job_file(const std::filesystem::path& path, const compiler::WorkerJob& job)
{
  TRY_ASSIGN(std::string text, compiler::format_worker_job(job));
  // POSIX calls, not a stream, so that the reason ("No space left on device") reaches the answer.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return make_error(ErrorCode::io, "worker job file " + path.string() + ": " + errno_text(errno));
  }
  std::string_view rest = text;
  int error = 0;
  while (!rest.empty() && error == 0) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n > 0) {
      rest.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno != EINTR) {
      error = errno;
    }
  }
  if (::close(fd) != 0 && error == 0) {
    error = errno;
  }
  if (error != 0) {
    return make_error(ErrorCode::io, "worker job file " + path.string() + ": " + errno_text(error));
  }
  return {};
}

} // namespace

Expected<std::filesystem::path> find_worker_binary(const std::filesystem::path& daemon_executable)
{
  constexpr std::string_view k_name = "d4r-kernel-worker";
  std::filesystem::path folder = daemon_executable.parent_path();
  const std::array<std::filesystem::path, 3> candidates = {
      folder / k_name,
      folder.parent_path() / "libexec" / k_name,
      folder.parent_path() / "compiler" / k_name,
  };
  std::string tried;
  for (const std::filesystem::path& candidate : candidates) {
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  return make_error(ErrorCode::not_found, "worker binary d4r-kernel-worker: not found (tried " +
                                              tried + "); pass its path with --worker");
}

WorkerRunner::WorkerRunner(std::filesystem::path worker_binary, std::filesystem::path scratch_root,
                           WorkerLimits limits, std::filesystem::path clang)
    : m_worker_binary(std::move(worker_binary)), m_scratch_root(std::move(scratch_root)),
      m_limits(limits), m_clang(std::move(clang))
{
}

Expected<WorkerResult> WorkerRunner::run(const compiler::CompileJob& job,
                                         std::string_view backend) const
{
  return run_with_fault(job, backend, "");
}

Expected<WorkerResult> WorkerRunner::run_with_fault(const compiler::CompileJob& job,
                                                    std::string_view backend,
                                                    std::string_view fault) const
{
  WorkerAttempt first = attempt(job, backend, fault);
  if (first.failure == FailureKind::none || first.failure == FailureKind::deterministic) {
    return std::move(first.result);
  }
  WorkerAttempt second = attempt(job, backend, fault);
  if (second.failure == FailureKind::none || second.failure == FailureKind::deterministic) {
    return std::move(second.result);
  }
  const Error& earlier = first.result.error();
  const Error& later = second.result.error();
  if (first.failure == FailureKind::suspect && second.failure == FailureKind::suspect &&
      earlier.code == later.code) {
    return make_error(later.code, later.message + " (twice)");
  }
  return make_error(ErrorCode::unavailable,
                    later.message + "; the attempt before: " + earlier.message +
                        " (not the input's fault, or not twice alike)");
}

void WorkerRunner::stop()
{
  std::lock_guard lock(m_mutex);
  m_stopping = true;
  for (pid_t group : m_running) {
    ::killpg(group, SIGKILL);
  }
}

WorkerAttempt WorkerRunner::attempt(const compiler::CompileJob& job, std::string_view backend,
                                    std::string_view fault) const
{
  // What fails before the worker runs (a full disk, a missing binary) would fail alike at once.
  auto as_attempt = [](Error error) {
    return WorkerAttempt{std::unexpected(std::move(error)), FailureKind::deterministic};
  };
  Expected<ScratchFolder> scratch_folder = ScratchFolder::create(m_scratch_root);
  if (!scratch_folder) {
    return as_attempt(std::move(scratch_folder).error());
  }
  ScratchFolder scratch = std::move(*scratch_folder);
  compiler::WorkerJob worker_job{std::string(backend), job, scratch.path() / "output.hsaco",
                                 std::string(fault), m_clang};
  // The worker inherits the daemon's working folder, but a job should not depend on it.
  std::error_code error;
  worker_job.compile.source = std::filesystem::absolute(job.source, error);
  if (error) {
    return as_attempt(
        Error{ErrorCode::io, "worker source " + job.source.string() + ": " + error.message()});
  }
  worker_job.compile.work_dir = scratch.path() / "work";
  std::filesystem::create_directory(worker_job.compile.work_dir, error);
  if (error) {
    return as_attempt(Error{ErrorCode::io, "worker scratch " + worker_job.compile.work_dir.string() +
                                               ": " + error.message()});
  }
  std::filesystem::path job_file = scratch.path() / "job.txt";
  if (Expected<void> written = write_job_file(job_file, worker_job); !written) {
    return as_attempt(std::move(written).error());
  }
  auto stopping = [&] {
    return failed(FailureKind::transient, ErrorCode::unavailable,
                  "build of " + describe_job(worker_job.compile) + " stopped: the daemon is stopping");
  };

  Clock::time_point start = Clock::now();
  Expected<Spawned> spawned;
  {
    // Spawned under the lock, so that stop() either sees this worker or came before it.
    std::lock_guard lock(m_mutex);
    if (m_stopping) {
      return stopping();
    }
    spawned = spawn_worker(m_worker_binary, job_file, m_limits);
    if (spawned) {
      m_running.insert(spawned->pid);
    }
  }
  if (!spawned) {
    return as_attempt(std::move(spawned).error());
  }
  Completion completion = wait_for_worker(*spawned, m_limits.wall, start);
  bool stopped = false;
  {
    std::lock_guard lock(m_mutex);
    m_running.erase(spawned->pid);
    stopped = m_stopping;
  }
  WorkerAttempt attempt = classify(completion, m_limits, worker_job);
  if (stopped && attempt.failure != FailureKind::none) {
    return stopping();
  }
  return attempt;
}

} // namespace d4r::daemon
