// scanlab_bench: what the measurements become: a table on stdout (printed size by size while the
// run goes on), and CSV / JSON files for the book's plots.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "bench_types.hpp"

namespace scanlab::bench {

struct RowLegend {  // one per row asked for: the table's footnotes
  std::string name, what, note;
};

std::string format_size(size_t n);  // "2^20" for powers of two, else the number

void print_header(std::FILE* f, const DeviceMeta& meta, const std::vector<std::string>& method);
void print_table_head(std::FILE* f);
void print_size_rows(std::FILE* f, const std::vector<Measurement>& rows);  // shown rows only
// Returns the number of failed rows.
size_t print_footer(std::FILE* f, const std::vector<Measurement>& rows, const std::vector<RowLegend>& legend,
                    const std::string& fatal);

// Both throw std::runtime_error when the file cannot be written.
void write_csv(const std::string& path, const DeviceMeta& meta, const std::vector<Measurement>& rows);
void write_json(const std::string& path, const Config& cfg, const DeviceMeta& meta,
                const std::vector<std::string>& method, const std::vector<RowLegend>& legend,
                const std::vector<Measurement>& rows, const std::string& fatal);

}  // namespace scanlab::bench
