// The on-disk dataset cpu_pipeline reads: fixed-size item files generated at startup in a given
// directory (kept) or in a temporary one (removed when the Dataset is destroyed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdahl::cpu_pipeline {

inline constexpr std::size_t kItemBytes = 4096;  // one item (one "image") per file

// Creating, writing or reading the dataset failed; what() is the line to print.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Dataset {
 public:
  // Generates `items` files of kItemBytes in `dir` (created if missing; files of the right size
  // already there are reused), or in a new temporary directory when `dir` is empty.
  Dataset(const std::string& dir, std::size_t items);
  ~Dataset();
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;

  std::size_t size() const noexcept { return files_.size(); }
  const std::string& dir() const noexcept { return dir_; }

  // Reads item file `i % size()` into out[0, kItemBytes) with open/read/close, as a loader
  // does. Throws DatasetError on failure.
  void read_item(std::size_t i, std::uint8_t* out) const;

 private:
  void remove_owned() noexcept;  // deletes a temporary directory and its files

  std::string dir_;
  bool owned_ = false;
  std::vector<std::string> files_;
};

}  // namespace amdahl::cpu_pipeline
