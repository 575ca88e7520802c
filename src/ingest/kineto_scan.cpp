// The streaming Kineto trace scanner (kineto_scan.hpp): bytes from a plain or gzip file (inflated on a
// second thread, so that decompression and scanning overlap), a buffer that holds at least one whole
// event, and a hand-written JSON walk that reads the fields the reader uses and skips the rest.
#include "ingest/kineto_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#ifdef ROOFLINE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "roofline/error.hpp"
#include "roofline/json.hpp"

namespace roofline::ingest::detail {

namespace {

constexpr std::size_t block_bytes = std::size_t(4) << 20;

// ---- the bytes: a plain file read directly, a gzip file inflated by a producer thread ----
class byte_source {
 public:
  explicit byte_source(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw input_error(path, "", std::string("cannot open: ") + std::strerror(errno));
    unsigned char magic[2] = {0, 0};
    const auto n = std::fread(magic, 1, 2, f_);
    std::rewind(f_);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
#ifdef ROOFLINE_HAVE_ZLIB
      std::fclose(f_), f_ = nullptr;
      gz_ = gzopen(path.c_str(), "rb");
      if (!gz_) throw input_error(path, "gzip", "cannot open");
      gzbuffer(gz_, 1 << 18);
      producer_ = std::thread([this] { inflate_all(); });
#else
      std::fclose(f_), f_ = nullptr;
      throw input_error(path, "gzip", "built without zlib: gunzip it first");
#endif
    }
  }
  ~byte_source() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (producer_.joinable()) producer_.join();
    if (f_) std::fclose(f_);
#ifdef ROOFLINE_HAVE_ZLIB
    if (gz_) gzclose(gz_);
#endif
  }
  byte_source(const byte_source&) = delete;
  byte_source& operator=(const byte_source&) = delete;

  /// Up to n bytes into dst; 0 at the end (or on an error, then error() says it).
  std::size_t read(char* dst, std::size_t n) {
    if (f_) {
      const std::size_t got = std::fread(dst, 1, n, f_);
      if (got == 0 && std::ferror(f_)) error_ = std::string("read error: ") + std::strerror(errno);
      total_ += got;
      return got;
    }
    std::size_t done = 0;
    while (done < n) {
      if (cur_pos_ == cur_.size()) {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return !q_.empty() || finished_; });
        if (q_.empty()) break;
        cur_ = std::move(q_.front());
        q_.pop_front();
        cur_pos_ = 0;
        l.unlock();
        cv_.notify_all();
      }
      const std::size_t k = std::min(n - done, cur_.size() - cur_pos_);
      std::memcpy(dst + done, cur_.data() + cur_pos_, k);
      cur_pos_ += k, done += k;
    }
    total_ += done;
    if (done == 0) {
      std::lock_guard<std::mutex> l(m_);
      if (!gz_error_.empty()) error_ = gz_error_;
    }
    return done;
  }
  const std::string& error() const { return error_; }
  std::uint64_t total() const { return total_; }

 private:
#ifdef ROOFLINE_HAVE_ZLIB
  void inflate_all() {
    std::uint64_t inflated = 0;
    for (;;) {
      std::vector<char> b(block_bytes);
      const int n = gzread(gz_, b.data(), unsigned(b.size()));
      int err = Z_OK;
      const char* msg = gzerror(gz_, &err);
      std::unique_lock<std::mutex> l(m_);
      if (n < 0 || (n == 0 && err != Z_OK && err != Z_STREAM_END)) {
        gz_error_ = fmt::format("gzip stream truncated or corrupt after {} uncompressed bytes (zlib: {})", inflated, msg ? msg : "?");
        finished_ = true;
        break;
      }
      if (n == 0) {
        finished_ = true;
        break;
      }
      inflated += std::uint64_t(n);
      b.resize(std::size_t(n));
      cv_.wait(l, [&] { return q_.size() < 3 || stop_; });
      if (stop_) break;
      q_.push_back(std::move(b));
      l.unlock();
      cv_.notify_all();
    }
    cv_.notify_all();
  }
  gzFile gz_ = nullptr;
#endif
  std::string path_;
  std::FILE* f_ = nullptr;
  std::thread producer_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> q_;
  bool finished_ = false, stop_ = false;
  std::vector<char> cur_;
  std::size_t cur_pos_ = 0;
  std::string error_, gz_error_;
  std::uint64_t total_ = 0;
};

// ---- character classes ----
constexpr std::array<std::uint8_t, 256> make_structural() {
  std::array<std::uint8_t, 256> t{};
  t['"'] = 1, t['{'] = 2, t['['] = 2, t['}'] = 3, t[']'] = 3;
  return t;
}
constexpr auto structural = make_structural();
inline bool ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// Past the closing quote of a string whose opening quote is at p; nullptr when it does not end before e.
const char* skip_string(const char* p, const char* e) {
  ++p;
  for (;;) {
    const char* q = static_cast<const char*>(std::memchr(p, '"', std::size_t(e - p)));
    if (!q) return nullptr;
    // an odd number of backslashes before the quote escapes it
    std::size_t bs = 0;
    for (const char* b = q - 1; b >= p && *b == '\\'; --b) ++bs;
    if (bs % 2 == 0) return q + 1;
    p = q + 1;
  }
}

/// Past the end of the JSON value starting at p (after whitespace); nullptr when it does not end before
/// e. Values are not checked here beyond their brackets and strings: parse errors surface where read.
const char* skip_value(const char* p, const char* e) {
  while (p < e && ws(*p)) ++p;
  if (p >= e) return nullptr;
  if (*p == '"') return skip_string(p, e);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    while (p < e) {
      const std::uint8_t c = structural[static_cast<unsigned char>(*p)];
      if (c == 0) {
        ++p;
      } else if (c == 1) {
        p = skip_string(p, e);
        if (!p) return nullptr;
      } else if (c == 2) {
        ++depth, ++p;
      } else {
        ++p;
        if (--depth == 0) return p;
      }
    }
    return nullptr;
  }
  // a number or a literal: up to a delimiter (a value that reaches e may continue past it)
  while (p < e && *p != ',' && *p != '}' && *p != ']' && !ws(*p)) ++p;
  return p < e ? p : nullptr;
}

struct parse_failure {
  std::size_t offset;
  std::string what;
};

/// A cursor over one whole value (an event) in memory.
struct cursor {
  const char* p;
  const char* e;
  const char* base;  // the buffer's start, for offsets
  std::uint64_t base_offset;

  [[noreturn]] void fail(const std::string& what) const { throw parse_failure{std::size_t(base_offset + std::uint64_t(p - base)), what}; }
  void skip_ws() {
    while (p < e && ws(*p)) ++p;
  }
  void expect(char c) {
    skip_ws();
    if (p >= e || *p != c) fail(fmt::format("expected '{}'", c));
    ++p;
  }
  bool peek(char c) {
    skip_ws();
    return p < e && *p == c;
  }
  /// A string's contents (view), p past the closing quote.
  std::string_view string(bool& escaped) {
    skip_ws();
    if (p >= e || *p != '"') fail("expected a string");
    const char* q = skip_string(p, e);
    if (!q) fail("unterminated string");
    const std::string_view s(p + 1, std::size_t(q - p - 2));
    escaped = s.find('\\') != std::string_view::npos;
    p = q;
    return s;
  }
  std::string_view value_span() {
    skip_ws();
    const char* q = skip_value(p, e);
    if (!q) fail("unterminated value");
    const std::string_view s(p, std::size_t(q - p));
    p = q;
    return s;
  }
  std::optional<double> number() {
    skip_ws();
    const char* q = p;
    while (q < e && (std::isdigit(static_cast<unsigned char>(*q)) || *q == '-' || *q == '+' || *q == '.' || *q == 'e' || *q == 'E')) ++q;
    if (q == p) {  // not a number: null, a string ("ts": "12"), … skipped
      value_span();
      return std::nullopt;
    }
    double v = 0;
    const auto r = std::from_chars(p, q, v);
    if (r.ec != std::errc()) fail("bad number");
    p = q;
    return v;
  }
  std::optional<std::int64_t> integer() {
    skip_ws();
    std::int64_t v = 0;
    const auto r = std::from_chars(p, e, v);
    if (r.ec == std::errc() && r.ptr < e && *r.ptr != '.' && *r.ptr != 'e' && *r.ptr != 'E') {
      p = r.ptr;
      return v;
    }
    const auto d = number();
    if (d && std::abs(*d) < 9.2e18) return static_cast<std::int64_t>(*d);
    return std::nullopt;
  }
  /// [a, b, c] of numbers: their product (a launch's grid or block); nullopt for anything else.
  std::optional<std::int64_t> product() {
    const std::string_view s = value_span();
    if (s.empty() || s.front() != '[') return std::nullopt;
    std::int64_t prod = 1;
    bool any = false;
    for (const char* x = s.data() + 1; x < s.data() + s.size();) {
      if (std::isdigit(static_cast<unsigned char>(*x))) {
        std::int64_t v = 0;
        const auto r = std::from_chars(x, s.data() + s.size(), v);
        prod *= v, any = true, x = r.ptr;
      } else {
        ++x;
      }
    }
    return any ? std::optional<std::int64_t>(prod) : std::nullopt;
  }
};

bool key_is(std::string_view k, std::string_view want) { return k == want; }

/// Walks one JSON object at the cursor: for each member, `member(key)` reads its value; then the
/// comma or the closing brace.
template <class F>
void for_each_member(cursor& c, F&& member) {
  c.expect('{');
  if (c.peek('}')) {
    ++c.p;
    return;
  }
  for (;;) {
    bool esc = false;
    const std::string_view k = c.string(esc);
    c.expect(':');
    member(k);
    c.skip_ws();
    if (c.p < c.e && *c.p == ',') {
      ++c.p;
      continue;
    }
    c.expect('}');
    return;
  }
}

void read_args(cursor& c, kineto_event& ev) {
  for_each_member(c, [&](std::string_view k) {
    using K = kineto_keys;
    if (key_is(k, K::external_id)) ev.ext = c.integer();
    else if (key_is(k, K::correlation)) ev.corr = c.integer();
    else if (key_is(k, K::device)) ev.device = c.integer();
    else if (key_is(k, K::stream)) ev.stream = c.integer();
    else if (key_is(k, K::bytes)) ev.bytes = c.number();
    else if (key_is(k, K::grid)) ev.grid = c.product();
    else if (key_is(k, K::block)) ev.block = c.product();
    else if (key_is(k, K::input_dims)) ev.dims = c.value_span();
    else if (key_is(k, K::input_type)) ev.types = c.value_span();
    else if (key_is(k, K::input_strides)) ev.strides = c.value_span();
    else if (key_is(k, K::concrete_inputs)) ev.concrete = c.value_span();
    else c.value_span();
  });
}

void read_event(cursor& c, kineto_event& ev) {
  ev = kineto_event{};
  for_each_member(c, [&](std::string_view k) {
    bool esc = false;
    using K = kineto_keys;
    if (key_is(k, K::ph)) {
      ev.ph = c.string(esc);
    } else if (key_is(k, K::cat)) {
      ev.cat = c.string(esc);
    } else if (key_is(k, K::name)) {
      ev.name = c.string(ev.name_escaped);
    } else if (key_is(k, K::ts)) {
      ev.ts = c.number();
    } else if (key_is(k, K::dur)) {
      ev.dur = c.number();
    } else if (key_is(k, K::tid)) {
      if (c.peek('"')) ev.tid_name = c.string(esc);
      else if (const auto v = c.integer()) ev.tid = *v;
    } else if (key_is(k, K::id)) {
      if (c.peek('"')) ev.id_name = c.string(esc);
      else ev.id = c.integer();
    } else if (key_is(k, K::args)) {
      if (c.peek('{')) read_args(c, ev);
      else c.value_span();
    } else {
      c.value_span();
    }
  });
}

/// One scan_kineto: the file read a block at a time into `buf` (the unread part is [beg, end)), its
/// top-level keys read as they come, and the events of traceEvents handed over one at a time.
struct kineto_reader {
  kineto_reader(const std::string& file, const std::function<void(const kineto_event&)>& each, std::string& cut_note)
      : path(file), on_event(each), cut(cut_note), src(file) {}

  const std::string& path;
  const std::function<void(const kineto_event&)>& on_event;
  std::string& cut;
  byte_source src;
  kineto_meta meta;
  std::vector<char> buf = std::vector<char>(block_bytes);
  std::size_t beg = 0, end = 0;
  std::uint64_t consumed = 0;  // file bytes before buf[0]
  bool eof = false;
  std::size_t events = 0;

  // Makes at least `need` bytes past beg available (or reaches the end); false when none were added.
  bool refill() {
    if (eof) return false;
    if (beg > 0) {
      std::memmove(buf.data(), buf.data() + beg, end - beg);
      consumed += beg, end -= beg, beg = 0;
    }
    if (end == buf.size()) buf.resize(buf.size() * 2);
    const std::size_t got = src.read(buf.data() + end, buf.size() - end);
    if (got == 0) {
      eof = true;
      return false;
    }
    end += got;
    return true;
  }
  std::uint64_t offset(std::size_t at) const { return consumed + at; }
  void skip_ws() {
    for (;;) {
      while (beg < end && ws(buf[beg])) ++beg;
      if (beg < end || !refill()) return;
    }
  }
  // The next whole value at beg: [beg, q); refills until it is whole; nullopt at the end of the input.
  std::optional<std::size_t> whole() {
    for (;;) {
      skip_ws();
      if (beg >= end) return std::nullopt;
      const char* q = skip_value(buf.data() + beg, buf.data() + end);
      if (q) return std::size_t(q - buf.data());
      if (!refill()) {
        // a scalar at the very end of the file ends there
        const char c = buf[beg];
        if (c != '"' && c != '{' && c != '[') return end;
        return std::nullopt;
      }
    }
  }
  void fail(std::uint64_t at, const std::string& what) {
    if (!src.error().empty()) throw input_error(path, "gzip", src.error());
    throw input_error(path, "", fmt::format("not JSON at byte {}: {}", at, what));
  }
  void truncated() {
    if (!src.error().empty()) throw input_error(path, "gzip", src.error());
    throw input_error(path, "", fmt::format("truncated at byte {}: the JSON ends inside a value", offset(end)));
  }
  void ended_early(const char* where) {
    const std::string why = src.error().empty() ? fmt::format("the file ends at byte {} {}", offset(end), where) : src.error();
    if (events == 0) truncated();
    cut = fmt::format("{}: the {} events before the cut are read", why, events);
  }
  bool expect(char c) {
    skip_ws();
    if (beg >= end) return false;
    if (buf[beg] != c) fail(offset(beg), fmt::format("expected '{}'", c));
    ++beg;
    return true;
  }
  bool read_events() {
    meta.saw_events = true;
    skip_ws();
    if (beg < end && buf[beg] == ']') {
      ++beg;
      return true;
    }
    kineto_event ev;
    for (;;) {
      const auto q = whole();
      if (!q) {
        ended_early("inside traceEvents");
        return false;
      }
      cursor c{buf.data() + beg, buf.data() + *q, buf.data(), consumed};
      try {
        if (buf[beg] != '{') c.fail("expected an event object");
        read_event(c, ev);
      } catch (const parse_failure& f) {
        fail(f.offset, f.what);
      }
      on_event(ev);
      ++events;
      beg = *q;
      skip_ws();
      if (beg >= end) {
        ended_early("inside traceEvents");
        return false;
      }
      if (buf[beg] == ',') {
        ++beg;
        continue;
      }
      if (buf[beg] == ']') {
        ++beg;
        return true;
      }
      fail(offset(beg), "expected ',' or ']' after an event");
    }
  }

  /// The whole scan: the top-level object (or a bare array of events), key by key.
  kineto_meta run() {
    skip_ws();
    if (beg >= end) {
      if (!src.error().empty()) throw input_error(path, "gzip", src.error());
      throw input_error(path, "", "not JSON: the file is empty");
    }
    if (buf[beg] == '[') {  // the JSON Array Format: a bare array of events
      ++beg;
      read_events();
      return meta;
    }
    if (buf[beg] != '{') {
      const auto q = whole();
      if (q && (std::isdigit(static_cast<unsigned char>(buf[beg])) || buf[beg] == '-' || buf[beg] == '"' ||
                std::string_view(buf.data() + beg, *q - beg) == "true" || std::string_view(buf.data() + beg, *q - beg) == "false" ||
                std::string_view(buf.data() + beg, *q - beg) == "null"))
        throw input_error(path, "traceEvents", "not a Chrome/Kineto trace: the JSON is not an object");
      fail(offset(beg), "not a JSON value");
    }
    meta.top_object = true;
    ++beg;
    skip_ws();
    if (beg < end && buf[beg] == '}') return meta;
    for (;;) {
      skip_ws();
      if (beg >= end) {
        if (events == 0) truncated();
        cut = fmt::format("the file ends at byte {} after traceEvents", offset(end));
        return meta;
      }
      // the key
      const auto kq = whole();
      if (!kq || buf[beg] != '"') {
        if (!kq && events > 0) {
          cut = fmt::format("the file ends at byte {} after traceEvents", offset(end));
          return meta;
        }
        if (!kq) truncated();
        fail(offset(beg), "expected a key");
      }
      const std::string key = json_unescape(std::string_view(buf.data() + beg + 1, *kq - beg - 2));
      beg = *kq;
      if (!expect(':')) {
        if (events > 0) return meta;
        truncated();
      }
      skip_ws();
      if (key == kineto_keys::trace_events && beg < end && buf[beg] == '[') {
        ++beg;
        if (!read_events()) return meta;
      } else {
        const auto q = whole();
        if (!q) {
          if (events > 0) {
            cut = fmt::format("the file ends at byte {} after traceEvents", offset(end));
            return meta;
          }
          truncated();
        }
        const std::string_view v(buf.data() + beg, *q - beg);
        if (key == kineto_keys::device_properties) {
          const json d = json::parse(v, nullptr, false);
          if (d.is_array())
            for (const auto& x : d)
              if (x.is_object() && x.contains("name") && x["name"].is_string()) meta.devices.push_back(x["name"].get<std::string>());
        } else if (key == kineto_keys::schema_version || key == kineto_keys::cuda_runtime_version || key == kineto_keys::cupti_version) {
          std::int64_t n = 0;
          if (std::from_chars(v.data(), v.data() + v.size(), n).ec == std::errc())
            (key == kineto_keys::schema_version ? meta.schema : key == kineto_keys::cuda_runtime_version ? meta.cuda_runtime : meta.cupti) = n;
        }
        beg = *q;
      }
      skip_ws();
      if (beg >= end) {
        if (events > 0) cut = fmt::format("the file ends at byte {} before its closing brace", offset(end));
        else if (!meta.saw_events) truncated();
        return meta;
      }
      if (buf[beg] == ',') {
        ++beg;
        continue;
      }
      if (buf[beg] == '}') return meta;
      fail(offset(beg), "expected ',' or '}'");
    }
  }
};

}  // namespace

std::string json_unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  auto put_utf8 = [&](std::uint32_t cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
    else if (cp < 0x10000) out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    else
      out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F)), out += char(0x80 | ((cp >> 6) & 0x3F)),
          out += char(0x80 | (cp & 0x3F));
  };
  auto hex4 = [&](std::size_t i) -> std::optional<std::uint32_t> {
    if (i + 4 > raw.size()) return std::nullopt;
    std::uint32_t v = 0;
    const auto r = std::from_chars(raw.data() + i, raw.data() + i + 4, v, 16);
    if (r.ec != std::errc() || r.ptr != raw.data() + i + 4) return std::nullopt;
    return v;
  };
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out += raw[i];
      continue;
    }
    const char c = raw[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        auto cp = hex4(i + 1);
        if (!cp) {
          out += "\\u";
          break;
        }
        i += 4;
        if (*cp >= 0xD800 && *cp < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u')
          if (const auto lo = hex4(i + 3); lo && *lo >= 0xDC00 && *lo < 0xE000) {
            cp = 0x10000 + ((*cp - 0xD800) << 10) + (*lo - 0xDC00);
            i += 6;
          }
        put_utf8(*cp);
        break;
      }
      default: out += c;  // \" \\ \/
    }
  }
  return out;
}

json_tree parse_json_tree(std::string_view text) {
  cursor c{text.data(), text.data() + text.size(), text.data(), 0};
  std::function<json_tree()> value = [&]() -> json_tree {
    json_tree t;
    c.skip_ws();
    if (c.p >= c.e) return t;
    if (*c.p == '[') {
      t.is_array = true;
      ++c.p;
      if (c.peek(']')) {
        ++c.p;
        return t;
      }
      for (;;) {
        t.items.push_back(value());
        c.skip_ws();
        if (c.p < c.e && *c.p == ',') {
          ++c.p;
          continue;
        }
        if (c.p < c.e && *c.p == ']') ++c.p;
        return t;
      }
    }
    if (*c.p == '"') {
      bool esc = false;
      const auto s = c.string(esc);
      t.leaf = esc ? json_unescape(s) : std::string(s);
      t.is_string = true;
      return t;
    }
    const auto s = c.value_span();
    t.leaf = std::string(s);
    t.is_number = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-');
    if (s == "null") t.leaf.clear();
    return t;
  };
  try {
    return value();
  } catch (const parse_failure&) {
    return json_tree{};
  }
}

kineto_meta scan_kineto(const std::string& path, const std::function<void(const kineto_event&)>& on_event, std::string& cut) {
  kineto_reader r(path, on_event, cut);
  return r.run();
}

}  // namespace roofline::ingest::detail
