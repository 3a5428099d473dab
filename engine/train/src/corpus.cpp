#include "attn/train/corpus.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "attn/train/lm_inference.h"

namespace attn::train {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

Status ReadCorpus(const std::vector<uint8_t>& bytes, Corpus* corpus) {
  size_t at = 0;
  const auto fail = [&](const std::string& what) {
    return Status(StatusCode::kParseError, "corpus: " + what + " (at byte " + std::to_string(at) + ")");
  };
  const auto need = [&](uint64_t n) { return at + n <= bytes.size(); };
  const auto u32 = [&](uint32_t* v) {
    if (!need(4)) return false;
    std::memcpy(v, bytes.data() + at, 4);  // little-endian, as written (this tool runs on x86 and wasm)
    at += 4;
    return true;
  };
  const auto text = [&](uint32_t n, std::string* s) {
    if (!need(n + 3ull)) return false;
    s->assign(reinterpret_cast<const char*>(bytes.data() + at), n);
    at += n + (4 - n % 4) % 4;
    return true;
  };
  if (!need(8) || std::memcmp(bytes.data(), "ATTNPOS2", 8) != 0)
    return fail("expected an ATTNPOS2 file (node scripts/prepare-brown.mjs)");
  at = 8;
  uint32_t tag_count, names_bytes, vocab, vocab_bytes, id_bytes, splits;
  std::string names, words;
  if (!u32(&tag_count) || !u32(&names_bytes) || !text(names_bytes, &names)) return fail("truncated tag names");
  if (!u32(&vocab) || !u32(&vocab_bytes) || !text(vocab_bytes, &words)) return fail("truncated vocabulary");
  if (!u32(&id_bytes) || !u32(&splits) || splits != 2 || (id_bytes != 2 && id_bytes != 4)) return fail("bad split header");
  corpus->tags = SplitLines(names);
  corpus->vocabulary = SplitLines(words);
  if (corpus->tags.size() != tag_count || corpus->vocabulary.size() != vocab) return fail("bad tag or word count");
  for (Split* split : {&corpus->train, &corpus->held_out}) {
    uint32_t s, k;
    if (!u32(&s) || !u32(&k) || !need(4ull * (s + 1) + (id_bytes + 1ull) * k)) return fail("truncated split");
    split->offsets.resize(s + 1);
    for (uint32_t& o : split->offsets) u32(&o);
    if (split->offsets.front() != 0 || split->offsets.back() != k) return fail("bad offsets");
    for (uint32_t i = 0; i < k; ++i) {
      uint32_t id = 0;
      std::memcpy(&id, bytes.data() + at + id_bytes * i, id_bytes);
      if (id >= vocab) return fail("word id out of range");
      split->words.push_back(static_cast<int>(id));
      const int tag = bytes[at + id_bytes * k + i];
      if (tag >= static_cast<int>(tag_count)) return fail("tag id out of range");
      split->tags.push_back(tag);
    }
    at += (id_bytes + 1) * k;
    at += (4 - at % 4) % 4;
  }
  if (at != bytes.size()) return fail("trailing bytes");
  return Status::Ok();
}

Status MakeLmStreams(const Corpus& corpus, int vocab, LmStreams* out) {
  std::map<int, int64_t> counts;  // corpus word id -> training count
  for (const int w : corpus.train.words) ++counts[w];
  const int most = static_cast<int>(counts.size()) + 1;
  if (vocab < 2 || vocab > most)
    return Status(StatusCode::kOutOfRange, "lm streams: vocab: expected 2–" + std::to_string(most) +
                                               " (the training split's distinct words and <unk>), got " + std::to_string(vocab));
  std::vector<std::pair<int64_t, int>> order;  // (count, corpus id): most frequent first, ties by spelling
  for (const auto& [w, c] : counts) order.emplace_back(c, w);
  const std::vector<std::string>& spelling = corpus.vocabulary;
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : spelling[static_cast<size_t>(a.second)] < spelling[static_cast<size_t>(b.second)];
  });
  LmStreams s;
  std::vector<int> id(spelling.size(), vocab - 1);  // corpus id -> model id
  for (int i = 0; i + 1 < vocab; ++i) {
    const int w = order[static_cast<size_t>(i)].second;
    s.vocabulary.push_back(spelling[static_cast<size_t>(w)]);
    id[static_cast<size_t>(w)] = i;
  }
  s.vocabulary.push_back(attn::train::kLmUnknownWord);
  for (const int w : corpus.train.words) s.train.push_back(id[static_cast<size_t>(w)]);
  for (const int w : corpus.held_out.words) s.held_out.push_back(id[static_cast<size_t>(w)]);
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace attn::train
