#pragma once
/// The lineage graph of a run (Boost.Graph): every child points to its parent and its
/// inspirations.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One program's node data.
struct LineageNode {
  std::uint64_t id = 0;
  std::string op;    ///< operator that produced it ("seed" for the expert)
  std::string stage; ///< furthest cascade stage reached ("full", "probe", "static", ...)
  double score = 0;  ///< train score when fully evaluated, else 0
};

/// Directed graph parent -> child (kind "parent") and inspiration -> child ("inspiration").
class Lineage {
public:
  Lineage();
  ~Lineage();
  Lineage(Lineage&&) noexcept;
  Lineage& operator=(Lineage&&) noexcept;
  /// Adds a node; parent 0 means none. Parent and inspirations must already exist (else
  /// those edges are skipped).
  void add(const LineageNode& node, std::uint64_t parent,
           const std::vector<std::uint64_t>& inspirations);
  /// Node count.
  std::size_t size() const;
  /// The node of `id`, or nullopt when the lineage has none.
  std::optional<LineageNode> node(std::uint64_t id) const;
  /// Ids from the root (seed) to `id`, following parent edges.
  std::vector<std::uint64_t> ancestry(std::uint64_t id) const;
  /// GraphML with node attributes id, op, stage, score and edge attribute kind.
  void write_graphml(std::ostream& out) const;
  /// Graphviz DOT of the same graph.
  void write_dot(std::ostream& out) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tv
