#pragma once
/// Shared test fixtures: the lecture problem on each GPU, loaded once per process. Safe to call
/// from several threads at once (a fake server's handlers run on its worker threads).
#include "eval/problem.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "models/gpu.hpp"
#include "models/shape_file.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tv::test {

/// The lecture shape set (88 shapes).
inline const std::vector<Shape>& lecture_shapes() {
  static const std::vector<Shape> s = load_shape_file(data_path("shapes/lecture.csv"));
  return s;
}

/// A GPU profile by name, loaded once.
inline const Gpu& gpu(const std::string& name) {
  static std::mutex lock;
  static std::map<std::string, Gpu> cache;
  // Two handlers of a fake server filling the map at once corrupted it (LeakSanitizer saw its
  // lost nodes); map references stay valid after the lock is released.
  const std::lock_guard<std::mutex> held(lock);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, find_gpu(name)).first;
  return it->second;
}

/// The lecture problem with the random split (seed 0) on `gpu_name`, loaded once.
inline const Problem& lecture_problem(const std::string& gpu_name = "h100") {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  const std::lock_guard<std::mutex> held(lock);
  auto& p = cache[gpu_name];
  if (!p) {
    ProblemSpec spec;
    spec.gpu = gpu_name;
    p = load_problem(spec);
  }
  return *p;
}

/// A shape from its sizes (bf16 unless `d` says otherwise, no name).
inline Shape shape(std::int64_t m, std::int64_t n, std::int64_t k, DType d = DType::bf16) {
  Shape s;
  s.M = m;
  s.N = n;
  s.K = k;
  s.dtype = d;
  return s;
}

/// Config from its fields (AMD knobs unset).
inline Config cfg(int bm, int bn, int bk, int warps, int stages, int group) {
  Config c;
  c.BM = bm;
  c.BN = bn;
  c.BK = bk;
  c.warps = warps;
  c.stages = stages;
  c.group = group;
  return c;
}

/// A fresh problem replaying data/replay/`file` (its keys the shapes, the GPU profile the file
/// names, the random split with seed 0).
inline std::unique_ptr<Problem> replay_problem(const std::string& file) {
  ProblemSpec spec;
  spec.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/" + file;
  spec.gpu_is_default = true;
  return load_problem(spec);
}

/// A config of block BM x BN x 64, the other fields at their defaults.
inline Config tile_config(int bm, int bn) {
  Config c;
  c.BM = bm;
  c.BN = bn;
  c.BK = 64;
  return c;
}

/// The program that returns `c` for every shape.
inline Program constant_program(const Config& c) {
  Program p;
  p.default_config = c;
  return p;
}

} // namespace tv::test
