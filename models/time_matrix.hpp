#pragma once
/// A dense rows x columns array of times, the storage of a stored time table (plain
/// std::vector storage, so the headers above models/ need no array library).
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <vector>

namespace tv {

/// Times in seconds, rows x columns, row-major; a new matrix holds zeros.
class TimeMatrix {
public:
  /// An empty 0 x 0 matrix.
  TimeMatrix() = default;
  /// A rows x columns matrix of zeros.
  TimeMatrix(std::size_t rows, std::size_t columns)
      : rows_(rows), columns_(columns), cells_(rows * columns) {}
  /// A matrix from its rows, e.g. {{2.0, 1.0}, {1.0, 2.0}}; std::invalid_argument when the rows
  /// differ in length.
  TimeMatrix(std::initializer_list<std::initializer_list<double>> rows)
      : rows_(rows.size()), columns_(rows.size() ? rows.begin()->size() : 0) {
    cells_.reserve(rows_ * columns_);
    for (const auto& row : rows) {
      if (row.size() != columns_)
        throw std::invalid_argument("TimeMatrix: rows of different lengths");
      cells_.insert(cells_.end(), row.begin(), row.end());
    }
  }

  /// The number of rows.
  std::size_t rows() const { return rows_; }
  /// The number of columns.
  std::size_t columns() const { return columns_; }
  /// The cell of row `r`, column `c` (unchecked).
  double& operator()(std::size_t r, std::size_t c) { return cells_[r * columns_ + c]; }
  /// The cell of row `r`, column `c` (unchecked).
  double operator()(std::size_t r, std::size_t c) const { return cells_[r * columns_ + c]; }
  /// Same size and every cell equal (==, so a NaN differs from itself).
  friend bool operator==(const TimeMatrix&, const TimeMatrix&) = default;

private:
  std::size_t rows_ = 0;
  std::size_t columns_ = 0;
  std::vector<double> cells_;
};

} // namespace tv
