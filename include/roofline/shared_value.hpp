// An immutable value shared by reference count, one pointer wide: copies share one heap copy. For a
// record field that many records hold the same value of (ingest.hpp kernel_record::dims: a training
// step repeats each layer's op shapes), where a copy in every record would dominate the reader's
// memory (docs/ingest.md, "Read speed"). The default holds no allocation and reads as T{}.
//
// Read through * and ->; assigning a T makes a new shared copy (never changes one that others share).
// Thread-safe as std::shared_ptr is.
#pragma once
#include <atomic>
#include <utility>

namespace roofline {

template <class T>
class shared_value {
 public:
  shared_value() noexcept = default;
  shared_value(T v) : b_(new block{{1}, std::move(v)}) {}
  shared_value(const shared_value& o) noexcept : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  shared_value(shared_value&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  shared_value& operator=(shared_value o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  ~shared_value() {
    if (b_ && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b_;
  }
  const T& operator*() const noexcept { return b_ ? b_->v : empty(); }
  const T* operator->() const noexcept { return &**this; }
  /// false for the default (no allocation); true once a value was given, even T{}.
  bool has_value() const noexcept { return b_ != nullptr; }
  /// Whether both share one copy (or both are the default).
  bool same(const shared_value& o) const noexcept { return b_ == o.b_; }

 private:
  struct block {
    std::atomic<long> refs;
    T v;
  };
  static const T& empty() noexcept {
    static const T e{};
    return e;
  }
  block* b_ = nullptr;
};

}  // namespace roofline
