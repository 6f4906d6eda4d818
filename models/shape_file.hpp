#pragma once
/// Shape sets from CSV files: header `name,M,N,K[,dtype][,weight][,layout]` (columns in any
/// order; layout is NN, NT, TN, TT or empty = unspecified, also when the column is absent).
#include "ir/shape.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Parses CSV text; `source` names the file in errors ("shapes.csv:7: M must be positive, got 0").
/// Throws InputError on a missing column, bad number, zero or negative size, unknown dtype or
/// layout, wrong field count, duplicate name, or an empty set. Blank lines and `#` comments are
/// skipped.
std::vector<Shape> parse_shape_csv(std::string_view text, std::string_view source);
/// Reads and parses a shape file; throws InputError if it cannot be read.
std::vector<Shape> load_shape_file(const std::string& path);
/// Writes shapes back as CSV with all columns (the layout column only when some shape has a
/// layout; an empty layout stays an empty field). Throws InputError for a name or layout the
/// file cannot hold.
std::string format_shape_csv(const std::vector<Shape>& shapes);

} // namespace tv
