// The compact fields of kernel_record (include/roofline/packed_optional.hpp, shared_value.hpp): an
// optional number as wide as the number, a shared immutable value one pointer wide. The reader's
// memory on a 5 GB trace (docs/ingest.md, "Read speed") rests on these sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "roofline/ingest.hpp"
#include "roofline/packed_optional.hpp"
#include "roofline/shared_value.hpp"

using roofline::packed_optional;
using roofline::shared_value;
using roofline::ingest::kernel_record;
using roofline::ingest::op_dims;

TEST(PackedOptional, ReadsLikeStdOptional) {
  static_assert(sizeof(packed_optional<double>) == 8 && sizeof(packed_optional<std::int64_t>) == 8);
  packed_optional<double> d;
  EXPECT_FALSE(d.has_value());
  EXPECT_FALSE(d);
  EXPECT_EQ(d.value_or(2.5), 2.5);
  EXPECT_THROW((void)d.value(), std::bad_optional_access);
  EXPECT_TRUE(d == std::nullopt);
  d = 0.0;  // zero is a value, not "absent"
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, 0.0);
  EXPECT_TRUE(d == 0.0);
  const std::optional<double> o = d;
  EXPECT_EQ(o, std::optional<double>(0.0));
  d = std::nullopt;
  EXPECT_FALSE(d);
  d = std::optional<double>(1.5);
  EXPECT_EQ(d.value(), 1.5);
  d = std::numeric_limits<double>::quiet_NaN();  // the absent marker itself: absent
  EXPECT_FALSE(d);

  packed_optional<std::int64_t> i = std::int64_t{-1};  // -1 is a value (op_call uses it as one)
  EXPECT_TRUE(i);
  EXPECT_EQ(*i, -1);
  i.reset();
  EXPECT_FALSE(i);
  EXPECT_TRUE(packed_optional<std::int64_t>() == packed_optional<std::int64_t>(std::nullopt));
  EXPECT_FALSE(packed_optional<std::int64_t>(std::int64_t{3}) == packed_optional<std::int64_t>());

  packed_optional<std::size_t> u = std::size_t{0};
  EXPECT_TRUE(u);
  u = std::numeric_limits<std::size_t>::max();
  EXPECT_FALSE(u);
}

TEST(SharedValue, CopiesShareOneValueAndTheDefaultReadsAsEmpty) {
  static_assert(sizeof(shared_value<op_dims>) == sizeof(void*));
  const shared_value<op_dims> none;
  EXPECT_EQ(none->m, 0);
  EXPECT_FALSE(none->backward);
  op_dims d;
  d.m = 2048, d.n = 256, d.k = 2048;
  const shared_value<op_dims> a = d;
  const shared_value<op_dims> b = a;
  EXPECT_EQ(&*a, &*b);  // one copy
  EXPECT_EQ(b->n, 256);
  shared_value<op_dims> c = b;
  c = op_dims{};  // a new value: the others keep theirs
  EXPECT_EQ(a->m, 2048);
  EXPECT_EQ(c->m, 0);
}

// A record's size: 408 bytes before the optionals were packed and the shape shared (a 5 GB trace of
// 1.83 million kernels held 1,282 MiB; now 919 MiB). A field added to it costs every kernel of a trace.
TEST(KernelRecord, StaysSmall) { EXPECT_LE(sizeof(kernel_record), 272u); }
