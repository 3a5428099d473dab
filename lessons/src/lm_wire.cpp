#include "lessons/lm_wire.h"

#include <cstdint>
#include <cstring>

#include "wire.h"

namespace lessons {
namespace {

constexpr uint32_t kRequestMagic = 0x514d4c41;  // "ALMQ"
constexpr uint32_t kAnswerMagic = 0x414d4c41;   // "ALMA"

using wire::Reader;
using wire::Writer;

void PutWords(Writer& w, const std::vector<LmNextWord>& words) {
  w.Put<uint32_t>(static_cast<uint32_t>(words.size()));
  for (const LmNextWord& word : words) {
    w.String(word.word);
    w.Put<float>(word.p);
    w.Put<float>(word.p_t);
  }
}

bool GetWords(Reader& r, const char* what, std::vector<LmNextWord>* words) {
  uint32_t count = 0;
  if (!r.Count(what, 12, &count)) return false;
  words->resize(count);
  for (LmNextWord& w : *words)
    if (!r.String(what, &w.word) || !r.Get(what, &w.p) || !r.Get(what, &w.p_t)) return false;
  return true;
}

}  // namespace

std::string WriteLmRequest(const LmRequest& request) {
  Writer w;
  w.Put<uint32_t>(kRequestMagic);
  w.String(request.text);
  w.String(FieldsKey(request.state));
  return w.out;
}

Status ReadLmRequest(std::string_view bytes, LmRequest* request) {
  Reader r(bytes, "lm message");
  uint32_t magic = 0;
  LmRequest q;
  std::string fields;
  if (r.Get("magic", &magic) && magic != kRequestMagic)
    return Status(StatusCode::kParseError, "lm message: magic: expected a request, got " + std::to_string(magic));
  if (r.status().ok() && r.String("text", &q.text) && r.String("state", &fields)) r.AtEnd("request");
  if (!r.status().ok()) return r.status();
  // The state as its fields' text ("lm.t=0.8&…"): read back as a link is, so a bad value is clamped.
  ViewState view;
  ParseState(fields, &view);
  q.state = view.lm;
  *request = std::move(q);
  return Status::Ok();
}

std::string WriteLmAnswer(const Status& status, const LmViewModel& m) {
  Writer w;
  w.Put<uint32_t>(kAnswerMagic);
  w.Put<int32_t>(static_cast<int32_t>(status.code()));
  w.String(status.message());
  if (!status.ok()) return w.out;
  for (int v : {m.layers, m.heads, m.d_model, m.seq_len, m.vocab, m.first, m.dropped, m.ablation, m.prompt_words})
    w.Put<int32_t>(v);
  w.Put<int64_t>(m.parameters);
  for (const std::string* t : {&m.source, &m.tokenizer, &m.layout, &m.dtype}) w.String(*t);
  w.Put<int64_t>(m.bytes_in_memory);
  w.Put<int64_t>(m.packed_bytes);
  w.Put<uint32_t>(static_cast<uint32_t>(m.words.size()));
  for (size_t i = 0; i < m.words.size(); ++i) {
    w.String(m.words[i]);
    w.Put<uint8_t>(m.known[i]);
  }
  for (const auto* rows : {&m.top, &m.lens, &m.base_top}) {
    w.Put<uint32_t>(static_cast<uint32_t>(rows->size()));
    for (const auto& row : *rows) PutWords(w, row);
  }
  w.Floats(m.p_next);
  w.Put<float>(m.perplexity);
  w.Put<uint32_t>(static_cast<uint32_t>(m.weights.size()));
  for (const Matrix& x : m.weights) w.MatrixValues(x);
  w.Put<uint32_t>(static_cast<uint32_t>(m.residual_norms.size()));
  for (const auto& row : m.residual_norms) w.Floats(row);
  w.Put<uint32_t>(static_cast<uint32_t>(m.ablated.size()));
  for (int a : m.ablated) w.Put<int32_t>(a);
  w.Floats(m.kl);
  w.Floats(m.delta_logp);
  w.Put<uint32_t>(static_cast<uint32_t>(m.continuation.size()));
  for (const LmContinuationWord& c : m.continuation) {
    w.String(c.word);
    w.Put<float>(c.p);
    w.Put<int32_t>(c.cache_length);
    w.Put<int64_t>(c.cache_bytes);
  }
  w.Put<uint32_t>(static_cast<uint32_t>(m.head_texts.size()));
  for (const std::string& t : m.head_texts) w.String(t);
  w.Floats(m.zero_perplexity);
  w.Floats(m.mean_perplexity);
  w.Put<float>(m.held_out_perplexity);
  w.Put<int64_t>(m.held_out_tokens);
  w.Put<uint32_t>(static_cast<uint32_t>(m.induction_words.size()));
  for (const std::string& t : m.induction_words) w.String(t);
  w.Floats(m.induction_loss);
  w.Put<float>(m.induction_first);
  w.Put<float>(m.induction_second);
  w.Floats(m.induction_scores);
  w.String(m.induction_text);
  for (double t : {m.forward_ms, m.cached_word_ms, m.recompute_word_ms}) w.Put<double>(t);
  w.Put<int32_t>(m.timed_runs);
  w.String(m.note);
  return w.out;
}

Status ReadLmAnswer(std::string_view bytes, LmViewModel* out) {
  Reader r(bytes, "lm message");
  uint32_t magic = 0;
  int32_t code = 0;
  std::string message;
  if (r.Get("magic", &magic) && magic != kAnswerMagic)
    return Status(StatusCode::kParseError, "lm message: magic: expected an answer, got " + std::to_string(magic));
  if (!r.Get("status", &code) || !r.String("message", &message)) return r.status();
  if (code != 0) {
    if (code < 0 || code > static_cast<int32_t>(StatusCode::kResourceExhausted))
      return Status(StatusCode::kParseError, "lm message: status: expected a status code, got " + std::to_string(code));
    r.AtEnd("error");
    if (!r.status().ok()) return r.status();
    return Status(static_cast<StatusCode>(code), message);
  }
  LmViewModel m;
  int32_t ints[9] = {};
  for (int32_t& v : ints) r.Get("shape", &v);
  m.layers = ints[0], m.heads = ints[1], m.d_model = ints[2], m.seq_len = ints[3], m.vocab = ints[4];
  m.first = ints[5], m.dropped = ints[6], m.ablation = ints[7], m.prompt_words = ints[8];
  r.Get("parameters", &m.parameters);
  for (std::string* t : {&m.source, &m.tokenizer, &m.layout, &m.dtype}) r.String("source", t);
  r.Get("bytes in memory", &m.bytes_in_memory);
  r.Get("packed bytes", &m.packed_bytes);
  uint32_t count = 0;
  if (r.Count("words", 5, &count)) {
    m.words.resize(count);
    m.known.resize(count);
    for (uint32_t i = 0; i < count && r.String("word", &m.words[i]) && r.Get("known", &m.known[i]); ++i) {
    }
  }
  for (auto* rows : {&m.top, &m.lens, &m.base_top}) {
    if (!r.Count("next words", 4, &count)) break;
    rows->resize(count);
    for (auto& row : *rows)
      if (!GetWords(r, "next word", &row)) break;
  }
  r.Floats("p_next", &m.p_next);
  r.Get("perplexity", &m.perplexity);
  if (r.Count("weights", 8, &count)) {
    m.weights.resize(count);
    for (Matrix& x : m.weights)
      if (!r.MatrixValues("weights", &x)) break;
  }
  if (r.Count("residual norms", 4, &count)) {
    m.residual_norms.resize(count);
    for (auto& row : m.residual_norms)
      if (!r.Floats("residual norms", &row)) break;
  }
  if (r.Count("ablated", 4, &count)) {
    m.ablated.resize(count);
    for (int& a : m.ablated) {
      int32_t v = 0;
      r.Get("ablated", &v);
      a = v;
    }
  }
  r.Floats("kl", &m.kl);
  r.Floats("delta_logp", &m.delta_logp);
  if (r.Count("continuation", 20, &count)) {
    m.continuation.resize(count);
    for (LmContinuationWord& c : m.continuation) {
      int32_t length = 0;
      if (!r.String("continuation", &c.word) || !r.Get("continuation", &c.p) || !r.Get("continuation", &length) ||
          !r.Get("continuation", &c.cache_bytes))
        break;
      c.cache_length = length;
    }
  }
  if (r.Count("head texts", 4, &count)) {
    m.head_texts.resize(count);
    for (std::string& t : m.head_texts)
      if (!r.String("head texts", &t)) break;
  }
  r.Floats("zero perplexity", &m.zero_perplexity);
  r.Floats("mean perplexity", &m.mean_perplexity);
  r.Get("held-out perplexity", &m.held_out_perplexity);
  r.Get("held-out tokens", &m.held_out_tokens);
  if (r.Count("induction words", 4, &count)) {
    m.induction_words.resize(count);
    for (std::string& t : m.induction_words)
      if (!r.String("induction words", &t)) break;
  }
  r.Floats("induction loss", &m.induction_loss);
  r.Get("induction", &m.induction_first);
  r.Get("induction", &m.induction_second);
  r.Floats("induction scores", &m.induction_scores);
  r.String("induction text", &m.induction_text);
  for (double* t : {&m.forward_ms, &m.cached_word_ms, &m.recompute_word_ms}) r.Get("timing", t);
  r.Get("timed runs", &m.timed_runs);
  r.String("note", &m.note);
  r.AtEnd("answer");
  if (!r.status().ok()) return r.status();
  // What the page indexes by: the shapes agree with each other.
  const size_t n = m.words.size();
  const uint64_t heads = m.layers > 0 && m.heads > 0 ? uint64_t(m.layers) * uint64_t(m.heads) : 0;
  bool shapes = n > 0 && heads > 0 && m.top.size() == n && m.weights.size() == heads &&
                m.first >= 0 && m.prompt_words >= 0 &&
                static_cast<uint64_t>(m.prompt_words) <= static_cast<uint64_t>(m.first) + n &&
                m.residual_norms.size() == static_cast<size_t>(m.layers) + 1 && m.lens.size() == m.residual_norms.size() &&
                (n == 0 || m.p_next.size() == n - 1);
  for (const Matrix& x : m.weights) shapes = shapes && x.rows() == static_cast<Eigen::Index>(n) && x.cols() == x.rows();
  for (const auto& row : m.residual_norms) shapes = shapes && row.size() == n;
  for (const auto& row : m.lens) shapes = shapes && row.size() == n;
  for (const auto* rows : {&m.top, &m.base_top})
    for (const auto& row : *rows) shapes = shapes && !row.empty();  // the view reads each row's top word
  if (!m.ablated.empty()) shapes = shapes && m.base_top.size() == n && m.kl.size() == n && m.delta_logp.size() == n;
  if (!m.head_texts.empty())
    shapes = shapes && m.head_texts.size() == heads && m.zero_perplexity.size() == heads && m.mean_perplexity.size() == heads;
  shapes = shapes && (m.induction_words.empty() ? m.induction_scores.empty() : m.induction_scores.size() == heads) &&
           (m.induction_words.empty() ? m.induction_loss.empty() : m.induction_loss.size() + 1 == m.induction_words.size());
  if (!shapes)
    return Status(StatusCode::kParseError, "lm message: shapes: expected the words' count in every part, got " +
                                               std::to_string(n) + " words and parts of other sizes");
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lessons
