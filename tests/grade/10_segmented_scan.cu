// Grading tests for chapter 10: the segmented operator, segmented scans from head flags (across
// warps, tiles and blocks), the summed-area table and the box filter.
//
// Segmented scans are compared with a sequential loop that restarts at every head, in a poisoned
// output: integers and affine maps exactly, floats segment by segment within the length-dependent
// tolerance. Head patterns: random (segments of every length), a head every 31, 32 or 33 elements,
// heads only at tile starts (4096) or just after them, one segment over everything, a head at
// every element. Affine composition is not commutative, so an operand swap anywhere fails. The
// table is compared exactly with a sequential table, the filter with direct sums over every box.
// The untouched exercise fails every case. This is the checker: the student's code runs in the
// runner (10_segmented_scan_runner.cu), another process.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;
using scanlab::test_seed;
using Heads = std::vector<std::uint8_t>;

// The sequential meaning: restart at every head (and at element 0).
template <class T, class Op>
std::vector<T> segmented_oracle(const std::vector<T>& in, const Heads& heads, bool exclusive, Op op) {
  std::vector<T> out(in.size());
  T running = Op::identity();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i == 0 || heads[i]) running = Op::identity();
    if (exclusive) {
      out[i] = running;
      running = op(running, in[i]);
    } else {
      running = op(running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

// How the chapter's code scans: which kernel an inclusive scan of 4-byte values runs.
enum class Kernel { by_size, staged };

template <class T, class Op>
std::vector<T> segmented_on_device(const std::vector<T>& in, const Heads& heads, bool exclusive, Op op, Kernel kernel) {
  const ScanKind kind = exclusive ? ScanKind::exclusive : ScanKind::inclusive;
  return output<T>(Request("segmented_scan")
                       .monoid(op)
                       .kind(kind)
                       .params({{"staged", kernel == Kernel::staged}})
                       .input(in)
                       .input(heads)
                       .send());
}

// When element i, the first wrong one, is its right value with inputs from before its segment's
// head combined in on the left: a hint that says so. "" otherwise. A scan combines ranges, so the
// range that slipped across the head (in[j..k), k <= h for the head at h) need not end right at the
// head; a range that does not must also explain the next wrong element of the segment, so that a
// coincidence of values does not make the hint.
template <class T, class Op>
std::string crossed_head_hint(const std::vector<T>& in, const Heads& heads, const std::vector<T>& want,
                              const std::vector<T>& got, std::size_t i, Op op) {
  std::size_t h = i;
  while (h > 0 && !heads[h]) --h;
  if (h > 4096) return "";   // the search is quadratic in h
  std::size_t next = i + 1;  // the next wrong element of the same segment, if any
  while (next < in.size() && !heads[next] && got[next] == want[next]) ++next;
  const bool has_next = next < in.size() && !heads[next];
  for (std::size_t k = h; k > 0; --k) {
    T before = Op::identity();
    for (std::size_t j = k; j-- > 0;) {
      before = op(in[j], before);
      const bool explains =
          got[i] == op(before, want[i]) && (k == h || (has_next && got[next] == op(before, want[next])));
      if (explains) {
        return "\n  hint: element " + std::to_string(i) + " also combines in[" + std::to_string(j) + ".." +
               std::to_string(k - 1) + "], from before the head of its segment at " + std::to_string(h) +
               ": the scan carried values across the head (does combining two ranges keep a head of either one?)";
      }
    }
  }
  return "";
}

template <class T, class Op>
bool check_segmented(const std::vector<T>& in, const Heads& heads, bool exclusive, Op op, const std::string& what,
                     Kernel kernel) {
  INFO(std::string(exclusive ? "exclusive" : "inclusive")
       << " segmented scan" << (kernel == Kernel::staged ? " (tiles staged in shared memory)" : "")
       << ", n = " << in.size() << ", heads: " << what);
  const std::vector<T> got = segmented_on_device(in, heads, exclusive, op, kernel);
  REQUIRE(got.size() == in.size());
  if constexpr (std::is_floating_point_v<T>) {
    // Segment by segment, each with the tolerance of its own length.
    for (std::size_t b = 0; b < in.size();) {
      std::size_t e = b + 1;
      while (e < in.size() && !heads[e]) ++e;
      const auto r =
          scanlab::verify_float_scan(in.data() + b, got.data() + b, e - b,
                                     exclusive ? scanlab::ScanKind::exclusive : scanlab::ScanKind::inclusive);
      if (!r.ok) {
        FAIL_CHECK("segment [" << b << ", " << e << "): " << r.message());
        return false;
      }
      b = e;
    }
    return true;
  } else {
    const std::vector<T> want = segmented_oracle(in, heads, exclusive, op);
    const auto r = scanlab::verify_exact(want.data(), got.data(), in.size());
    CHECK_MESSAGE(r.ok,
                  r.message() << (r.ok ? std::string() : crossed_head_hint(in, heads, want, got, r.first_index, op)));
    return r.ok;
  }
}

// Head patterns that put segment boundaries on and next to every boundary a scan has.
std::vector<std::pair<std::string, Heads>> head_patterns(std::size_t n, std::uint64_t stream) {
  std::vector<std::pair<std::string, Heads>> p;
  Heads h(n, 0);
  scanlab::Rng rng(test_seed(stream));
  // Any non-zero byte is a head, not only 1: the kernels test bytes, some of them four at a time.
  for (auto& x : h) x = rng.uniform(0, 99) == 0 ? static_cast<std::uint8_t>(rng.uniform(1, 255)) : 0;
  p.emplace_back("random, 1 in 100, head bytes 1 to 255", h);
  for (const std::size_t every : {std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{4096}}) {
    Heads e(n, 0);
    for (std::size_t i = 0; i < n; i += every) e[i] = 1;
    p.emplace_back("every " + std::to_string(every), e);
  }
  Heads after(n, 0);
  for (std::size_t i = 4097; i < n; i += 4096) after[i] = 1;
  p.emplace_back("one after each tile start", after);
  p.emplace_back("none: one segment", Heads(n, 0));
  p.emplace_back("all: every element alone", Heads(n, 1));
  return p;
}

const std::size_t kSizes[] = {1, 31, 33, 1000, 4097, 3 * 4096 + 500, 70000};

template <class T, class Op, class Make>
void check_all(bool exclusive, Op op, Make make, Kernel kernel = Kernel::by_size) {
  std::uint64_t stream = 300;
  for (const std::size_t n : kSizes) {
    const std::vector<T> in = make(n, ++stream);
    for (const auto& [what, heads] : head_patterns(n, ++stream)) {
      if (!check_segmented(in, heads, exclusive, op, what, kernel)) return;
    }
  }
}

// The summed-area table of a width x height image of values in [0, 255], sequentially.
std::vector<std::uint32_t> sat_oracle(const std::vector<std::uint32_t>& img, int w, int h) {
  std::vector<std::uint32_t> s(img.size());
  for (int y = 0; y < h; ++y) {
    std::uint32_t row = 0;
    for (int x = 0; x < w; ++x) {
      row += img[static_cast<std::size_t>(y) * w + x];
      s[static_cast<std::size_t>(y) * w + x] = row + (y > 0 ? s[static_cast<std::size_t>(y - 1) * w + x] : 0u);
    }
  }
  return s;
}

// A value and its head flag, as the lifted operator sees them.
template <class T>
struct Flagged {
  T value;
  std::uint32_t head;
  bool operator==(const Flagged& o) const { return value == o.value && head == o.head; }
};

template <class T>
std::ostream& operator<<(std::ostream& os, const Flagged<T>& f) {
  return os << "(" << scanlab::detail::display_with_poison(f.value) << ", head " << f.head << ")";
}

// The student's lifted operator (the runner's entry segmented_op) on pairs (left[i], right[i]).
template <class T, class Op>
std::vector<Flagged<T>> combine(Op op, const std::vector<Flagged<T>>& left, const std::vector<Flagged<T>>& right) {
  std::vector<T> lv, rv;
  std::vector<std::uint32_t> lh, rh;
  for (const auto& f : left) {
    lv.push_back(f.value);
    lh.push_back(f.head);
  }
  for (const auto& f : right) {
    rv.push_back(f.value);
    rh.push_back(f.head);
  }
  const Reply r = Request("segmented_op").monoid(op).input(lv).input(lh).input(rv).input(rh).send();
  const std::vector<T> values = output<T>(r, 0);
  const std::vector<std::uint32_t> heads = output<std::uint32_t>(r, 1);
  REQUIRE(values.size() == left.size());
  REQUIRE(heads.size() == left.size());
  std::vector<Flagged<T>> out;
  for (std::size_t i = 0; i < values.size(); ++i) out.push_back({values[i], heads[i]});
  return out;
}

// The chapter's tilt-shift radius: 0 at the focus row, max_radius at the farther edge.
int tilt_shift_radius(int y, int focus_row, int max_radius, int height) {
  const int d = y > focus_row ? y - focus_row : focus_row - y;
  const int span = focus_row > height - 1 - focus_row ? focus_row : height - 1 - focus_row;
  return span == 0 ? 0 : (max_radius * d + span / 2) / span;
}

}  // namespace

TEST_CASE("the segmented operator is a monoid: identity, associativity, heads cut off the left" *
          doctest::description("points: 10")) {
  using F = Flagged<std::int32_t>;
  const Plus<std::int32_t> plus;
  const F id{0, 0u};
  const std::int32_t vals[] = {5, -3, 11};
  // Every flag pattern of (a, b, c): the pairs with the identity, a o b, b o c; then (a o b) o c
  // and a o (b o c) from those results.
  std::vector<F> as, bs, cs;
  for (unsigned bits = 0; bits < 8; ++bits) {
    as.push_back({vals[0], bits & 1u});
    bs.push_back({vals[1], (bits >> 1) & 1u});
    cs.push_back({vals[2], (bits >> 2) & 1u});
  }
  const std::vector<F> ids(8, id);
  const std::vector<F> id_a = combine(plus, ids, as), a_id = combine(plus, as, ids);
  const std::vector<F> ab = combine(plus, as, bs), bc = combine(plus, bs, cs);
  const std::vector<F> ab_c = combine(plus, ab, cs), a_bc = combine(plus, as, bc);
  for (unsigned bits = 0; bits < 8; ++bits) {
    const F& a = as[bits];
    const F& b = bs[bits];
    INFO("head flags " << a.head << b.head << cs[bits].head);
    CHECK(id_a[bits] == a);
    CHECK(a_id[bits] == a);
    CHECK(ab_c[bits] == a_bc[bits]);
    CHECK(ab[bits].value == (b.head ? vals[1] : vals[0] + vals[1]));
    CHECK(ab[bits].head == (a.head | b.head));
  }
  // Non-commutative inner operator: the left value stays the left operand.
  using A = Affine<std::uint32_t>;
  const std::vector<Flagged<A>> f = {{A{3u, 1u}, 0u}}, g = {{A{5u, 7u}, 0u}};
  CHECK(combine(AffineCompose<std::uint32_t>{}, f, g)[0].value ==
        AffineCompose<std::uint32_t>{}(f[0].value, g[0].value));
}

TEST_CASE("segmented inclusive scan equals the sequential loop, across warps, tiles and blocks" *
          doctest::description("points: 20")) {
  for_each_block_order([] {
    check_all<std::int32_t>(false, Plus<std::int32_t>{}, random_ints);
  });
}

TEST_CASE("segmented exclusive scan: the identity at every head" * doctest::description("points: 15")) {
  for_each_block_order([] {
    check_all<std::int32_t>(true, Plus<std::int32_t>{}, random_ints);
  });
}

TEST_CASE("segmented scans keep operand order: affine maps over uint32" * doctest::description("points: 10")) {
  check_all<Affine<std::uint32_t>>(false, AffineCompose<std::uint32_t>{}, random_affines);
  check_all<Affine<std::uint32_t>>(true, AffineCompose<std::uint32_t>{}, random_affines);
}

TEST_CASE("segmented scans of float32 within the length-dependent tolerance" * doctest::description("points: 5")) {
  check_all<float>(false, Plus<float>{}, random_floats);
}

// Large inclusive scans of 4-byte values run a second kernel, whose tiles bulk copies stage in
// shared memory; it scans with the same segmented operator, so it is tested at the same sizes.
TEST_CASE("segmented inclusive scan with staged tiles (the large-input kernel) equals the sequential loop" *
          doctest::description("points: 5")) {
  check_all<std::int32_t>(false, Plus<std::int32_t>{}, random_ints, Kernel::staged);
  check_all<float>(false, Plus<float>{}, random_floats, Kernel::staged);
}

TEST_CASE("summed-area table equals the sequential table, for square, flat, tall and ragged images" *
          doctest::description("points: 20")) {
  const int shapes[][2] = {{1, 1}, {100, 1}, {1, 100}, {33, 31}, {257, 129}, {640, 48}};
  std::uint64_t stream = 900;
  for (const auto& wh : shapes) {
    const int w = wh[0], h = wh[1];
    const std::size_t px = static_cast<std::size_t>(w) * h;
    const auto img = scanlab::random_vector<std::uint32_t>(px, test_seed(++stream), 0u, 255u);
    const auto got =
        output<std::uint32_t>(Request("summed_area_table").params({{"width", w}, {"height", h}}).input(img).send());
    INFO(w << " x " << h << " image");
    REQUIRE(got.size() == px);
    const auto want = sat_oracle(img, w, h);
    const auto r = scanlab::verify_exact(want.data(), got.data(), px);
    CHECK_MESSAGE(r.ok, r.message());
  }
}

TEST_CASE("box filter: radius 0 is the image, and every box mean matches a direct sum" *
          doctest::description("points: 15")) {
  const int w = 77, h = 53;
  const std::size_t px = static_cast<std::size_t>(w) * h;
  const auto img = scanlab::random_vector<std::uint32_t>(px, test_seed(42), 0u, 255u);
  const auto sat = sat_oracle(img, w, h);  // the filter reads a right table, whatever the student's
  for (const int max_radius : {0, 3, 40}) {
    const int focus_row = h / 3;
    const auto got = output<std::uint8_t>(
        Request("box_filter")
            .params({{"width", w}, {"height", h}, {"focus_row", focus_row}, {"max_radius", max_radius}})
            .input(sat)
            .send());
    REQUIRE(got.size() == px);
    std::size_t wrong = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const int r = tilt_shift_radius(y, focus_row, max_radius, h);
        std::uint64_t sum = 0, count = 0;
        for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy) {
          for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) {
            sum += img[static_cast<std::size_t>(yy) * w + xx];
            ++count;
          }
        }
        wrong += got[static_cast<std::size_t>(y) * w + x] != static_cast<std::uint8_t>((sum + count / 2) / count);
      }
    }
    INFO("radius 0 at row " << h / 3 << ", up to " << max_radius);
    CHECK_MESSAGE(wrong == 0, wrong << " of " << px << " pixels differ from the direct box mean");
  }
}
