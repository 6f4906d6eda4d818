#include "evolve/lineage.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/property_map/dynamic_property_map.hpp>
#include <boost/property_map/function_property_map.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <string>

namespace tv {

namespace {

/// Edge data: "parent" or "inspiration".
struct LineageEdge {
  std::string kind;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, LineageNode,
                                    LineageEdge>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

const std::string kParent = "parent";
const std::string kInspiration = "inspiration";

} // namespace

struct Lineage::Impl {
  Graph g;
  std::map<std::uint64_t, Vertex> index;

  std::optional<Vertex> find(std::uint64_t id) const {
    const auto it = index.find(id);
    if (it == index.end()) return std::nullopt;
    return it->second;
  }

  /// True when an edge from -> to of `kind` exists.
  bool has_edge(Vertex from, Vertex to, const std::string& kind) const {
    for (auto [it, end] = boost::in_edges(to, g); it != end; ++it)
      if (boost::source(*it, g) == from && g[*it].kind == kind) return true;
    return false;
  }

  /// The parent of `v` through its "parent" in-edge, if any.
  std::optional<Vertex> parent_of(Vertex v) const {
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
      if (g[*it].kind == kParent) return boost::source(*it, g);
    return std::nullopt;
  }

  /// Dynamic properties shared by both writers. Read-only function maps: the graph is const
  /// here, and Boost's bundle maps over a const graph do not compile into dynamic_properties.
  boost::dynamic_properties properties() const {
    boost::dynamic_properties dp;
    const Graph* gp = &g;
    dp.property("id", boost::make_function_property_map<Vertex, std::string>(
                          [gp](Vertex v) { return std::to_string((*gp)[v].id); }));
    dp.property("op", boost::make_function_property_map<Vertex, std::string>(
                          [gp](Vertex v) { return (*gp)[v].op; }));
    dp.property("stage", boost::make_function_property_map<Vertex, std::string>(
                             [gp](Vertex v) { return (*gp)[v].stage; }));
    dp.property("score", boost::make_function_property_map<Vertex, double>(
                             [gp](Vertex v) { return (*gp)[v].score; }));
    dp.property("kind", boost::make_function_property_map<Edge, std::string>(
                            [gp](Edge e) { return (*gp)[e].kind; }));
    return dp;
  }
};

Lineage::Lineage() : impl_(std::make_unique<Impl>()) {}
Lineage::~Lineage() = default;
Lineage::Lineage(Lineage&&) noexcept = default;
Lineage& Lineage::operator=(Lineage&&) noexcept = default;

void Lineage::add(const LineageNode& node, std::uint64_t parent,
                  const std::vector<std::uint64_t>& inspirations) {
  Impl& d = *impl_;
  Vertex v;
  if (const auto existing = d.find(node.id)) {
    // Re-adding an id updates its data and adds edges it lacks; it never gets a second parent.
    v = *existing;
    d.g[v] = node;
  } else {
    v = boost::add_vertex(node, d.g);
    d.index.emplace(node.id, v);
  }
  if (parent != 0 && parent != node.id && !d.parent_of(v)) {
    if (const auto p = d.find(parent)) boost::add_edge(*p, v, LineageEdge{kParent}, d.g);
  }
  for (const std::uint64_t ins : inspirations) {
    if (ins == node.id) continue;
    const auto s = d.find(ins);
    if (s && !d.has_edge(*s, v, kInspiration))
      boost::add_edge(*s, v, LineageEdge{kInspiration}, d.g);
  }
}

std::size_t Lineage::size() const {
  return boost::num_vertices(impl_->g);
}

std::optional<LineageNode> Lineage::node(std::uint64_t id) const {
  const auto v = impl_->find(id);
  if (!v) return std::nullopt;
  return impl_->g[*v];
}

std::vector<std::uint64_t> Lineage::ancestry(std::uint64_t id) const {
  const Impl& d = *impl_;
  std::vector<std::uint64_t> out;
  auto v = d.find(id);
  // At most one step per node: re-added nodes could in principle close a parent cycle.
  for (std::size_t steps = 0; v && steps <= boost::num_vertices(d.g); ++steps) {
    out.push_back(d.g[*v].id);
    v = d.parent_of(*v);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void Lineage::write_graphml(std::ostream& out) const {
  boost::write_graphml(out, impl_->g, impl_->properties(), true);
}

void Lineage::write_dot(std::ostream& out) const {
  const Graph* gp = &impl_->g;
  boost::dynamic_properties dp = impl_->properties();
  dp.property("node_id", boost::make_function_property_map<Vertex, std::string>(
                             [gp](Vertex v) { return "n" + std::to_string((*gp)[v].id); }));
  dp.property("label", boost::make_function_property_map<Vertex, std::string>([gp](Vertex v) {
                const LineageNode& n = (*gp)[v];
                return fmt::format("#{} {} {:.3f}", n.id, n.op, n.score);
              }));
  dp.property("style", boost::make_function_property_map<Edge, std::string>([gp](Edge e) {
                return (*gp)[e].kind == kInspiration ? std::string("dashed") : std::string("solid");
              }));
  boost::write_graphviz_dp(out, impl_->g, dp, "node_id");
}

} // namespace tv
