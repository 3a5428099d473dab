#include "attn/train/gpt2_bpe.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <tuple>

namespace attn::train {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'B', 'P', 'E', '1'};
constexpr uint32_t kReplacement = 0xFFFD;

Status AssetError(const std::string& what) { return Status(StatusCode::kParseError, "gpt2 bpe: " + what); }

// Little-endian reads that refuse to run past the end.
struct Reader {
  const uint8_t* p;
  size_t left;
  bool U32(uint32_t* v) {
    if (left < 4) return false;
    *v = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    p += 4, left -= 4;
    return true;
  }
  bool U16(uint16_t* v) {
    if (left < 2) return false;
    *v = static_cast<uint16_t>(p[0] | p[1] << 8);
    p += 2, left -= 2;
    return true;
  }
  bool Bytes(size_t n, std::string* out) {
    if (left < n) return false;
    out->assign(reinterpret_cast<const char*>(p), n);
    p += n, left -= n;
    return true;
  }
};

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | cp >> 6));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | cp >> 12));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | cp >> 18));
    out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Bytes → code points, U+FFFD for each maximal subpart of an ill-formed sequence (Unicode's
// "substitution of maximal subparts", WHATWG's decoder): a lead byte's allowed second byte is
// narrowed for E0 (no overlongs), ED (no surrogates), F0 (no overlongs), F4 (≤ U+10FFFF); the
// subpart ends before the first byte that does not fit, which starts the next character.
// `utf8` gets the text re-encoded (valid), `offsets` each code point's start in it (+ the end).
void DecodeUtf8(std::string_view text, std::string* utf8, std::vector<uint32_t>* cps, std::vector<size_t>* offsets) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = s[i];
    uint32_t cp = kReplacement;
    size_t used = 1;
    int need = 0;
    uint8_t lower = 0x80, upper = 0xBF;
    if (b < 0x80) {
      cp = b;
    } else if (b >= 0xC2 && b <= 0xDF) {
      need = 1, cp = b & 0x1Fu;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2, cp = b & 0x0Fu;
      if (b == 0xE0) lower = 0xA0;
      if (b == 0xED) upper = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3, cp = b & 0x07u;
      if (b == 0xF0) lower = 0x90;
      if (b == 0xF4) upper = 0x8F;
    }  // else 80–C1, F5–FF: an invalid lead byte, one U+FFFD
    for (int k = 1; k <= need; ++k) {
      if (i + k >= n || s[i + k] < lower || s[i + k] > upper) {
        cp = kReplacement;  // the bytes so far are one maximal subpart
        break;
      }
      cp = cp << 6 | (s[i + k] & 0x3Fu);
      used = static_cast<size_t>(k) + 1;
      lower = 0x80, upper = 0xBF;
    }
    offsets->push_back(utf8->size());
    cps->push_back(cp);
    AppendUtf8(cp, utf8);
    i += used;
  }
  offsets->push_back(utf8->size());
}

bool IsContractionTail(uint32_t a) { return a == 's' || a == 't' || a == 'm' || a == 'd'; }

}  // namespace

Status Gpt2Bpe::Load(const uint8_t* bytes, size_t size, Gpt2Bpe* out) {
  if (bytes == nullptr || size < sizeof kMagic || std::memcmp(bytes, kMagic, sizeof kMagic) != 0)
    return AssetError("expected the magic ATTNBPE1");
  Reader r{bytes + sizeof kMagic, size - sizeof kMagic};
  uint32_t ranks = 0, special_id = 0, special_length = 0;
  if (!r.U32(&ranks) || !r.U32(&special_id) || !r.U32(&special_length)) return AssetError("header: truncated");
  if (ranks != kGpt2EndOfText || special_id != kGpt2EndOfText)
    return AssetError("header: expected " + std::to_string(kGpt2EndOfText) + " ranks and <|endoftext|> = " +
                      std::to_string(kGpt2EndOfText) + ", got " + std::to_string(ranks) + " and " +
                      std::to_string(special_id));
  Gpt2Bpe bpe;
  bpe.tokens_.resize(kGpt2Vocab);
  if (special_length > 64 || !r.Bytes(special_length, &bpe.tokens_[kGpt2EndOfText]))
    return AssetError("special token: truncated or longer than 64 bytes");
  for (int i = 0; i < 256; ++i)
    if (!r.Bytes(1, &bpe.tokens_[static_cast<size_t>(i)])) return AssetError("byte ranks: truncated");
  for (uint32_t rank = 256; rank < ranks; ++rank) {
    uint16_t left = 0, right = 0;
    if (!r.U16(&left) || !r.U16(&right)) return AssetError("merges: truncated at rank " + std::to_string(rank));
    if (left >= rank || right >= rank)
      return AssetError("merges: rank " + std::to_string(rank) + ": expected two earlier ranks, got " +
                        std::to_string(left) + " and " + std::to_string(right));
    bpe.tokens_[rank] = bpe.tokens_[left] + bpe.tokens_[right];
  }
  bpe.rank_.reserve(ranks);
  for (uint32_t rank = 0; rank < ranks; ++rank)
    if (!bpe.rank_.emplace(bpe.tokens_[rank], static_cast<int>(rank)).second)
      return AssetError("rank " + std::to_string(rank) + ": the same bytes as an earlier rank");
  static const char* const kNames[] = {"", "letters", "numbers", "spaces"};
  for (int c = kLetter; c <= kSpace; ++c) {
    uint32_t count = 0;
    if (!r.U32(&count) || count > r.left / 8) return AssetError(std::string(kNames[c]) + ": truncated");
    auto& list = bpe.ranges_[c];
    for (uint32_t k = 0; k < count; ++k) {
      uint32_t first = 0, last = 0;
      r.U32(&first), r.U32(&last);
      if (first > last || last > 0x10FFFF || (!list.empty() && first <= list.back().second))
        return AssetError(std::string(kNames[c]) + ": range " + std::to_string(k) + " not sorted or past U+10FFFF");
      list.emplace_back(first, last);
    }
  }
  if (r.left != 0) return AssetError(std::to_string(r.left) + " bytes after the classes");
  for (uint32_t cp = 0; cp < 128; ++cp) {
    bpe.ascii_[cp] = kOther;
    for (int c = kLetter; c <= kSpace; ++c)
      for (const auto& [first, last] : bpe.ranges_[c])
        if (cp >= first && cp <= last) bpe.ascii_[cp] = static_cast<Class>(c);
  }
  *out = std::move(bpe);
  return Status::Ok();
}

Gpt2Bpe::Class Gpt2Bpe::ClassOf(uint32_t cp) const {
  if (cp < 128) return ascii_[cp];
  for (int c = kLetter; c <= kSpace; ++c) {
    const auto& list = ranges_[c];
    // The first range whose last ≥ cp.
    const auto it = std::lower_bound(list.begin(), list.end(), cp,
                                     [](const std::pair<uint32_t, uint32_t>& range, uint32_t v) { return range.second < v; });
    if (it != list.end() && it->first <= cp) return static_cast<Class>(c);
  }
  return kOther;
}

// The pattern's alternatives at each position, in its order (the header's step 2). Pieces are byte
// ranges of `utf8`.
void Gpt2Bpe::Pieces(const std::vector<uint32_t>& cps, const std::vector<size_t>& offsets,
                     std::vector<std::pair<size_t, size_t>>* pieces) const {
  const size_t n = cps.size();
  std::vector<Class> cls(n);
  for (size_t k = 0; k < n; ++k) cls[k] = ClassOf(cps[k]);
  size_t i = 0;
  while (i < n) {
    size_t end = i + 1;
    // 's|'t|'re|'ve|'m|'ll|'d (lower-case only, as the pattern has no i flag)
    if (cps[i] == '\'' && i + 1 < n && IsContractionTail(cps[i + 1])) {
      end = i + 2;
    } else if (cps[i] == '\'' && i + 2 < n &&
               ((cps[i + 1] == 'r' && cps[i + 2] == 'e') || (cps[i + 1] == 'v' && cps[i + 2] == 'e') ||
                (cps[i + 1] == 'l' && cps[i + 2] == 'l'))) {
      end = i + 3;
    } else {
      // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: one class can start at i (after an optional
      // U+0020), and the run takes every following character of that class.
      size_t start = i;
      if (cps[i] == ' ' && i + 1 < n && cls[i + 1] != kSpace) start = i + 1;
      if (cls[start] != kSpace) {
        end = start + 1;
        while (end < n && cls[end] == cls[start]) ++end;
      } else {
        // `\s+(?!\S)` then `\s+`: a run of spaces not at the end leaves its last one to what follows
        // (unless the run is that one).
        size_t run = i + 1;
        while (run < n && cls[run] == kSpace) ++run;
        end = (run == n || run - i == 1) ? run : run - 1;
      }
    }
    pieces->emplace_back(offsets[i], offsets[end]);
    i = end;
  }
}

// tiktoken's byte-pair merge of one piece: lowest rank first, leftmost on a tie, with a heap of the
// adjacent pairs (an entry is stale once either part it joined has merged).
void Gpt2Bpe::MergePiece(std::string_view piece, std::vector<int>* ids) const {
  if (const auto whole = rank_.find(piece); whole != rank_.end()) {
    ids->push_back(whole->second);
    return;
  }
  const size_t n = piece.size();
  // Parts are named by their first byte: next_[p] is where the part after p starts (n: none).
  std::vector<size_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  for (size_t p = 0; p < n; ++p) next[p] = p + 1, prev[p] = p == 0 ? n : p - 1;
  using Entry = std::tuple<int, size_t, size_t, size_t>;  // (rank, left part, right part, right's end)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  const auto push = [&](size_t left) {
    if (left >= n || next[left] >= n) return;
    const size_t right = next[left], right_end = next[right];
    const auto it = rank_.find(piece.substr(left, right_end - left));
    if (it != rank_.end()) heap.emplace(it->second, left, right, right_end);
  };
  for (size_t p = 0; p + 1 < n; ++p) push(p);
  while (!heap.empty()) {
    const auto [rank, left, right, right_end] = heap.top();
    heap.pop();
    if (!alive[left] || next[left] != right || !alive[right] || next[right] != right_end) continue;
    alive[right] = false;
    next[left] = right_end;
    if (right_end < n) prev[right_end] = left;
    if (prev[left] < n) push(prev[left]);
    push(left);
  }
  // Every part is a token: single bytes all are, and a merge makes one.
  for (size_t p = 0; p < n; p = next[p]) ids->push_back(rank_.find(piece.substr(p, next[p] - p))->second);
}

Status Gpt2Bpe::Split(std::string_view text, std::string* utf8, std::vector<std::pair<size_t, size_t>>* pieces) const {
  if (!loaded()) return Status(StatusCode::kInvalidArgument, "gpt2 bpe: not loaded");
  if (text.size() > kGpt2MaxTextBytes)
    return Status(StatusCode::kOutOfRange, "text: expected at most " + std::to_string(kGpt2MaxTextBytes) +
                                               " bytes, got " + std::to_string(text.size()));
  std::vector<uint32_t> cps;
  std::vector<size_t> offsets;
  DecodeUtf8(text, utf8, &cps, &offsets);
  Pieces(cps, offsets, pieces);
  return Status::Ok();
}

Status Gpt2Bpe::PreTokenize(std::string_view text, std::vector<std::string>* pieces) const {
  std::string utf8;
  std::vector<std::pair<size_t, size_t>> ranges;
  ATTN_RETURN_IF_ERROR(Split(text, &utf8, &ranges));
  pieces->clear();
  for (const auto& [begin, end] : ranges) pieces->push_back(utf8.substr(begin, end - begin));
  return Status::Ok();
}

Status Gpt2Bpe::Encode(std::string_view text, std::vector<int>* ids) const {
  std::string utf8;
  std::vector<std::pair<size_t, size_t>> ranges;
  ATTN_RETURN_IF_ERROR(Split(text, &utf8, &ranges));
  ids->clear();
  const std::string_view view(utf8);
  for (const auto& [begin, end] : ranges) MergePiece(view.substr(begin, end - begin), ids);
  return Status::Ok();
}

Status Gpt2Bpe::Decode(const std::vector<int>& ids, std::string* bytes) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      return Status(StatusCode::kOutOfRange, "ids[" + std::to_string(i) + "]: expected 0–" +
                                                 std::to_string(vocab_size() - 1) + ", got " + std::to_string(ids[i]));
    out += tokens_[static_cast<size_t>(ids[i])];
  }
  *bytes = std::move(out);
  return Status::Ok();
}

std::string_view Gpt2Bpe::TokenBytes(int id) const {
  if (id < 0 || id >= vocab_size()) return {};
  return tokens_[static_cast<size_t>(id)];
}

std::string Gpt2Bpe::Display(int id) const {
  static const char kHex[] = "0123456789ABCDEF";
  const std::string_view t = TokenBytes(id);
  const auto* s = reinterpret_cast<const uint8_t*>(t.data());
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    const uint8_t b = s[i];
    // A whole, valid UTF-8 character at i? (DecodeUtf8's rule, on this one character.)
    std::string one;
    std::vector<uint32_t> cps;
    std::vector<size_t> offsets;
    const size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    if (b >= 0x80 && i + len <= t.size()) DecodeUtf8(t.substr(i, len), &one, &cps, &offsets);
    if (b == ' ') {
      out += "\xE2\x90\xA3";  // ␣
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b == '\\') {
      out += "\\\\";
    } else if (b < 0x20 || b == 0x7F) {
      out += std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
    } else if (b < 0x80) {
      out += static_cast<char>(b);
    } else if (cps.size() == 1 && one.compare(0, std::string::npos, t.substr(i, len)) == 0) {
      out += one;
      i += len;
      continue;
    } else {
      out += std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
    }
    ++i;
  }
  return out;
}

}  // namespace attn::train
