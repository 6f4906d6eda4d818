#include "eval/controller/measurement_store.hpp"

#include "ir/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tv {

namespace {

/// Holds an exclusive flock() on a descriptor for its lifetime.
class FileLock {
public:
  explicit FileLock(int fd) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { ::flock(fd_, LOCK_UN); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

private:
  int fd_;
};

std::size_t file_size(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw InputError(
        fmt::format("{}: cannot stat the measurement cache: {}", path, std::strerror(errno)));
  return std::size_t(st.st_size);
}

std::string read_range(int fd, std::size_t from, std::size_t to, const std::string& path) {
  std::string out(to - from, '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, off_t(from + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError(fmt::format("{}: cannot read the measurement cache: {}", path,
                                   n < 0 ? std::strerror(errno) : "unexpected end of file"));
    got += std::size_t(n);
  }
  return out;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError(fmt::format("{}: cannot append to the measurement cache: {}", path,
                                   std::strerror(errno)));
    done += std::size_t(n);
  }
}

int count_lines(std::string_view s) {
  return int(std::count(s.begin(), s.end(), '\n'));
}

} // namespace

MeasurementStore::Key MeasurementStore::key(const Shape& s, const Config& c, bool vendor,
                                            int sample) {
  return {s.M,
          s.N,
          s.K,
          s.dtype,
          s.layout.empty() ? std::string("NN") : s.layout,
          vendor,
          vendor ? vendor_config() : c,
          sample};
}

MeasurementStore::MeasurementStore(std::string path, Family family)
    : path_(std::move(path)), family_(std::move(family)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(
        fmt::format("{}: cannot open the measurement cache: {}", path_, std::strerror(errno)));
  try {
    FileLock lock(fd_);
    const std::size_t size = file_size(fd_, path_);
    if (size == 0) {
      const std::string top =
          fmt::format("{}\n{}\n", kMeasurementCacheV2Line, kMeasurementCacheV2Header);
      write_all(fd_, top, path_);
      offset_ = top.size();
      lines_ = 2;
      return;
    }
    const std::string text = read_range(fd_, 0, size, path_);
    const std::size_t first_end = text.find('\n');
    if (!is_measurement_cache(text.substr(0, first_end)))
      throw InputError(fmt::format("{}: not a tilevolve measurement file (its first line is not "
                                   "'{}'); refusing to use it as the cache",
                                   path_, kMeasurementCacheV2Line));
    const std::size_t last_nl = text.rfind('\n');
    const std::size_t complete = last_nl == std::string::npos ? 0 : last_nl + 1;
    const MeasurementFile file = parse_measurement_file(text.substr(0, complete), path_);
    if (file.version == 1)
      throw InputError(fmt::format(
          "{}: a version-1 measurement file (no device or worker column), which a measured run "
          "cannot extend; give --cache a new file (--backend replay:{} still reads this one)",
          path_, path_));
    for (const auto& r : file.records)
      add(r, true);
    offset_ = complete;
    lines_ = count_lines(text.substr(0, complete));
    if (complete < size) settle_torn_tail(text.substr(complete), complete);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

MeasurementStore::~MeasurementStore() {
  if (fd_ >= 0) ::close(fd_);
}

void MeasurementStore::add(const MeasurementRecord& r, bool at_open) {
  if (r.gpu != family_.gpu || r.device != family_.device || r.worker != family_.worker) {
    ++foreign_;
    return;
  }
  const Key k = key(r.shape, r.config, r.vendor, r.sample);
  MeasurementSummary& summary = index_[k];
  const bool was_crash = !summary.empty() && summary.result().status == MeasureStatus::crash;
  summary.add(r.result);
  ++(at_open ? loaded_ : from_others_);
  if (!was_crash && summary.result().status == MeasureStatus::crash) {
    Key pair = k;
    std::get<7>(pair) = 0;
    new_poison_.push_back(std::move(pair));
  }
}

void MeasurementStore::settle_torn_tail(const std::string& tail, std::size_t at) {
  // Called with the lock held, so no writer is mid-line: the tail was torn by a kill.
  try {
    const auto records = parse_v2_lines(tail, path_, lines_ + 1);
    // It was cut inside its last field and still reads: finish the line.
    write_all(fd_, "\n", path_);
    for (const auto& r : records)
      add(r, true);
    offset_ = at + tail.size() + 1;
    ++lines_;
  } catch (const InputError&) {
    if (::ftruncate(fd_, off_t(at)) != 0)
      throw InputError(
          fmt::format("{}: cannot cut off a torn last line: {}", path_, std::strerror(errno)));
    warnings_.push_back(fmt::format("{}:{}: cut off a truncated last line (a run was stopped "
                                    "while writing it)",
                                    path_, lines_ + 1));
    offset_ = at;
  }
}

void MeasurementStore::catch_up() {
  const std::size_t size = file_size(fd_, path_);
  if (size < offset_)
    throw InputError(
        fmt::format("{}: the measurement cache shrank while this run had it open", path_));
  if (size == offset_) return;
  const std::string chunk = read_range(fd_, offset_, size, path_);
  const std::size_t last_nl = chunk.rfind('\n');
  const std::size_t complete = last_nl == std::string::npos ? 0 : last_nl + 1;
  for (const auto& r :
       parse_v2_lines(std::string_view(chunk).substr(0, complete), path_, lines_ + 1))
    add(r, false);
  const std::size_t at = offset_ + complete;
  lines_ += count_lines(std::string_view(chunk).substr(0, complete));
  offset_ = at;
  if (complete < chunk.size()) settle_torn_tail(chunk.substr(complete), at);
}

std::optional<Measurement> MeasurementStore::find(const Shape& s, const Config& c, bool vendor,
                                                  int sample) const {
  auto it = index_.find(key(s, c, vendor, sample));
  if (it == index_.end() || it->second.empty()) return std::nullopt;
  return it->second.result();
}

Measurement MeasurementStore::record(const Shape& s, const Config& c, bool vendor, int sample,
                                     const MeasureReply& reply) {
  FileLock lock(fd_);
  catch_up();
  const Key k = key(s, c, vendor, sample);
  if (auto it = index_.find(k); it != index_.end() && !it->second.empty())
    return it->second.result(); // another run measured it first: its answer stands
  MeasurementRecord rec;
  rec.gpu = family_.gpu;
  rec.device = family_.device;
  rec.worker = family_.worker;
  rec.shape.M = s.M;
  rec.shape.N = s.N;
  rec.shape.K = s.K;
  rec.shape.dtype = s.dtype;
  rec.shape.layout = s.layout.empty() ? "NN" : s.layout;
  rec.vendor = vendor;
  rec.config = vendor ? vendor_config() : c;
  rec.sample = sample;
  rec.result.status = reply.status;
  if (reply.status == MeasureStatus::ok) rec.result.seconds = reply.seconds;
  rec.result.detail = reply.detail;
  rec.max_rel_error = reply.max_rel_error;
  const std::string line = format_record_v2(rec) + "\n";
  write_all(fd_, line, path_); // one write of one whole line
  offset_ += line.size();
  ++lines_;
  ++appended_;
  MeasurementSummary& summary = index_[k];
  summary.add(rec.result);
  return summary.result();
}

std::vector<Config> MeasurementStore::configs() const {
  std::set<Config> out;
  for (const auto& [k, summary] : index_)
    if (!std::get<5>(k) && std::get<7>(k) == 0 && !summary.empty()) out.insert(std::get<6>(k));
  // (The vendor library is no tile config: the table gets it as a column of its own.)
  return {out.begin(), out.end()};
}

void MeasurementStore::refresh() {
  FileLock lock(fd_);
  catch_up();
}

std::vector<MeasurementStore::PoisonPair> MeasurementStore::take_new_poison() {
  // A pair's samples are keys of their own: each pair once.
  std::sort(new_poison_.begin(), new_poison_.end());
  new_poison_.erase(std::unique(new_poison_.begin(), new_poison_.end()), new_poison_.end());
  std::vector<PoisonPair> out;
  for (const Key& k : new_poison_) {
    PoisonPair p;
    p.shape.M = std::get<0>(k);
    p.shape.N = std::get<1>(k);
    p.shape.K = std::get<2>(k);
    p.shape.dtype = std::get<3>(k);
    p.shape.layout = std::get<4>(k);
    p.vendor = std::get<5>(k);
    p.config = std::get<6>(k);
    out.push_back(std::move(p));
  }
  new_poison_.clear();
  return out;
}

} // namespace tv
