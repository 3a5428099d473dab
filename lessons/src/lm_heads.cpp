// The language model's heads measured (lessons/lm_heads.h): attention statistics and ablation on
// held-out text, the table's text format, and the induction demo.
#include "lessons/lm_heads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "attn/seeded_random.h"
#include "attn/train/lm_trainer.h"
#include "lessons/format.h"
#include "lessons/trained_heads.h"

namespace lessons {
namespace {

namespace train = attn::train;

constexpr int kSpreadBelowPercent = 30;  // as head_roles.h: a head whose largest share is below 0.3 spreads its weight
constexpr float kMinTagShare = 0.1f;   // a tag pair counts when its queries put at least this on its keys
constexpr int kMinTagQueries = 50;     // … and its query tag has at least this many queries

// −log softmax(row)[target], in double.
double Nll(const Matrix& logits, int row, int target) {
  const Eigen::RowVectorXd z = logits.row(row).cast<double>();
  const double top = z.maxCoeff();
  return std::log((z.array() - top).exp().sum()) + top - z(target);
}

// Sum of −log p(targets[t]) over the rows of one pass.
Status WindowNll(const train::LmModel& model, const std::vector<int>& inputs, const std::vector<int>& targets,
                 const train::LmAblation& ablation, double* sum) {
  train::LmCache cache;
  train::LmTrace trace;
  ATTN_RETURN_IF_ERROR(train::LmAdvance(model, inputs, ablation, false, &cache, &trace));
  double s = 0;
  for (size_t t = 0; t < targets.size(); ++t) s += Nll(trace.logits, static_cast<int>(t), targets[t]);
  *sum = s;
  return Status::Ok();
}

}  // namespace

Status MeasureLmHeads(const train::LmModel& model, const attn::train::Corpus& corpus, const LmHeadsConfig& config, LmHeadTable* table) {
  const train::LmConfig& c = model.config;
  const int n = c.seq_len, L = c.layers, H = c.heads, d_k = c.d_model / c.heads, unknown = c.vocab - 1;
  const int tag_count = static_cast<int>(corpus.tags.size());
  const attn::train::Split& split = corpus.held_out;
  // The held-out split as the model's ids, with its tags.
  const train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids(split.words.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const int w = split.words[i];
    if (w < 0 || w >= static_cast<int>(corpus.vocabulary.size()) || split.tags[i] < 0 || split.tags[i] >= tag_count)
      return Status(StatusCode::kOutOfRange, "lm heads: held-out word " + std::to_string(i) + ": word or tag out of range");
    ids[i] = index.Id(corpus.vocabulary[static_cast<size_t>(w)]);
  }
  std::vector<int64_t> starts = train::LmWindowStarts(static_cast<int64_t>(ids.size()), n);
  while (!starts.empty() && starts.back() + n >= static_cast<int64_t>(ids.size())) starts.pop_back();  // full windows only
  if (config.windows < 1 || config.windows > static_cast<int>(starts.size()))
    return Status(StatusCode::kOutOfRange, "lm heads: windows: expected 1–" + std::to_string(starts.size()) +
                                               " (the held-out split's full windows), got " + std::to_string(config.windows));
  starts.resize(static_cast<size_t>(config.windows));

  const int heads = L * H;
  std::vector<double> previous(heads), first(heads), itself(heads), induction(heads);
  std::vector<int64_t> induction_queries(heads);
  std::vector<std::vector<double>> outputs(heads, std::vector<double>(static_cast<size_t>(d_k)));
  // tag_weight[head][q·T + k]: weight queries of tag q put on the other words (keys j < t) of tag k;
  // chance[q·T + k]: what a uniform causal head would put there; queries[q]: queries of tag q (t ≥ 1).
  std::vector<std::vector<double>> tag_weight(heads, std::vector<double>(static_cast<size_t>(tag_count * tag_count)));
  std::vector<double> chance(static_cast<size_t>(tag_count * tag_count));
  std::vector<int64_t> queries(static_cast<size_t>(tag_count));
  double nll = 0;
  std::vector<std::vector<int>> inputs, targets;
  for (const int64_t s : starts) {
    inputs.emplace_back(ids.begin() + s, ids.begin() + s + n);
    targets.emplace_back(ids.begin() + s + 1, ids.begin() + s + n + 1);
    const std::vector<int>& x = inputs.back();
    const int* tag = split.tags.data() + s;
    train::LmCache cache;
    train::LmTrace trace;
    ATTN_RETURN_IF_ERROR(train::LmAdvance(model, x, train::LmAblation(), false, &cache, &trace));
    for (int t = 0; t < n; ++t) nll += Nll(trace.logits, t, targets.back()[static_cast<size_t>(t)]);
    std::vector<int> seen(static_cast<size_t>(tag_count));  // tags of the keys j < t
    for (int t = 1; t < n; ++t) {
      ++seen[static_cast<size_t>(tag[t - 1])];
      ++queries[static_cast<size_t>(tag[t])];
      for (int k = 0; k < tag_count; ++k)
        chance[static_cast<size_t>(tag[t] * tag_count + k)] += static_cast<double>(seen[static_cast<size_t>(k)]) / (t + 1);
    }
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) {
        const int k = l * H + h;
        const Matrix& w = trace.weights[l][h];  // (n, n)
        const Matrix out = w * cache.value[l][h];  // (n, d_k): the head's slice of the concatenation
        for (int t = 0; t < n; ++t)
          for (int e = 0; e < d_k; ++e) outputs[k][static_cast<size_t>(e)] += out(t, e);
        for (int t = 1; t < n; ++t) {
          previous[k] += w(t, t - 1);
          first[k] += w(t, 0);
          itself[k] += w(t, t);
          double after = 0;
          bool any = false;
          if (x[t] != unknown)
            for (int j = 1; j <= t; ++j)
              if (x[j - 1] == x[t]) after += w(t, j), any = true;
          if (any) induction[k] += after, ++induction_queries[k];
          for (int j = 0; j < t; ++j) tag_weight[k][static_cast<size_t>(tag[t] * tag_count + tag[j])] += w(t, j);
        }
      }
  }
  const double scored = static_cast<double>(config.windows) * (n - 1);  // queries t ≥ 1
  LmHeadTable out;
  out.layers = L, out.heads = H, out.d_k = d_k, out.windows = config.windows;
  out.tokens = static_cast<int64_t>(config.windows) * n;
  out.nll = nll / static_cast<double>(out.tokens);
  out.ablated = config.ablate;
  const int64_t min_queries = std::max<int64_t>(kMinTagQueries, static_cast<int64_t>(scored / 100));
  for (int k = 0; k < heads; ++k) {
    LmHeadStats st;
    st.layer = k / H + 1, st.head = k % H + 1;
    st.previous = static_cast<float>(previous[k] / scored);
    st.first = static_cast<float>(first[k] / scored);
    st.itself = static_cast<float>(itself[k] / scored);
    st.induction = induction_queries[k] ? static_cast<float>(induction[k] / static_cast<double>(induction_queries[k])) : -1.0f;
    // The pair with the largest lift among those with share ≥ kMinTagShare; else the largest share.
    int best = -1, best_share = -1;
    double best_lift = 0, top_share = -1;
    for (int q = 0; q < tag_count; ++q) {
      if (queries[static_cast<size_t>(q)] < min_queries) continue;
      for (int key = 0; key < tag_count; ++key) {
        const size_t i = static_cast<size_t>(q * tag_count + key);
        const double share = tag_weight[k][i] / static_cast<double>(queries[static_cast<size_t>(q)]);
        const double lift = chance[i] > 0 ? tag_weight[k][i] / chance[i] : 0;
        if (share >= kMinTagShare && lift > best_lift) best = static_cast<int>(i), best_lift = lift;
        if (share > top_share) best_share = static_cast<int>(i), top_share = share;
      }
    }
    if (best < 0) best = best_share;
    if (best >= 0) {
      const int q = best / tag_count, key = best % tag_count;
      st.query_tag = corpus.tags[static_cast<size_t>(q)], st.key_tag = corpus.tags[static_cast<size_t>(key)];
      st.tag_share = static_cast<float>(tag_weight[k][static_cast<size_t>(best)] / static_cast<double>(queries[static_cast<size_t>(q)]));
      st.tag_lift = static_cast<float>(chance[static_cast<size_t>(best)] > 0
                                           ? tag_weight[k][static_cast<size_t>(best)] / chance[static_cast<size_t>(best)]
                                           : 0);
    }
    for (int e = 0; e < d_k; ++e)
      st.mean_output.push_back(static_cast<float>(outputs[k][static_cast<size_t>(e)] / static_cast<double>(out.tokens)));
    out.stats.push_back(std::move(st));
  }
  if (config.ablate) {
    train::LmAblation zero, mean;
    mean.mode = train::LmAblationMode::kMean;
    mean.means = LmHeadMeans(out);
    for (int k = 0; k < heads; ++k) {
      zero.heads = mean.heads = {{k / H, k % H}};
      double zero_sum = 0, mean_sum = 0;
      for (size_t w = 0; w < inputs.size(); ++w) {
        double s = 0;
        ATTN_RETURN_IF_ERROR(WindowNll(model, inputs[w], targets[w], zero, &s));
        zero_sum += s;
        ATTN_RETURN_IF_ERROR(WindowNll(model, inputs[w], targets[w], mean, &s));
        mean_sum += s;
      }
      out.stats[static_cast<size_t>(k)].zero_delta_nll = zero_sum / static_cast<double>(out.tokens) - out.nll;
      out.stats[static_cast<size_t>(k)].mean_delta_nll = mean_sum / static_cast<double>(out.tokens) - out.nll;
    }
  }
  for (LmHeadStats& st : out.stats) st.text = LmHeadText(out, st);
  *table = std::move(out);
  return Status::Ok();
}

std::string LmHeadText(const LmHeadTable& table, const LmHeadStats& s) {
  const struct {
    float share;
    const char* what;
  } kinds[] = {{s.previous, "the previous word"},
               {s.first, "the window's first word"},
               {s.itself, "itself"},
               {s.induction, "the word after an earlier copy of its word"}};
  size_t top = 0;
  for (size_t i = 1; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    if (kinds[i].share > kinds[top].share) top = i;
  // Compared as printed, so "0.30" never "spreads its weight".
  std::string text = std::lround(kinds[top].share * 100) >= kSpreadBelowPercent
                         ? Format("head %d.%d puts %.2f of its weight on %s", s.layer, s.head, kinds[top].share, kinds[top].what)
                         : Format("head %d.%d spreads its weight (at most %.2f, on %s)", s.layer, s.head, kinds[top].share,
                                  kinds[top].what);
  if (!s.query_tag.empty())
    text += Format("; from %s it looks most at %s (%.2f of their weight, %.1f× chance)", TagPlural(s.query_tag).c_str(),
                   TagPlural(s.key_tag).c_str(), s.tag_share, s.tag_lift);
  if (table.ablated) {
    const double base = std::exp(table.nll), zero = std::exp(table.nll + s.zero_delta_nll),
                 mean = std::exp(table.nll + s.mean_delta_nll);
    text += Format("; knocking it out %s held-out perplexity %.1f → %.1f (%.1f with its mean output in its place)",
                   zero >= base ? "raises" : "lowers", base, zero, mean);
  }
  return text;
}

std::vector<std::vector<std::vector<float>>> LmHeadMeans(const LmHeadTable& table) {
  std::vector<std::vector<std::vector<float>>> means(static_cast<size_t>(table.layers));
  for (const LmHeadStats& s : table.stats)
    if (s.layer >= 1 && s.layer <= table.layers) means[static_cast<size_t>(s.layer - 1)].push_back(s.mean_output);
  return means;
}

// ---- The asset's text.

Status WriteLmHeads(const LmHeadTable& t, std::string* text) {
  if (!t.ablated) return Status(StatusCode::kInvalidArgument, "lm heads: table: expected ablation measured, got shares only");
  if (static_cast<int>(t.stats.size()) != t.layers * t.heads)
    return Status(StatusCode::kShapeMismatch, "lm heads: stats: expected " + std::to_string(t.layers * t.heads) +
                                                  " heads (L·h), got " + std::to_string(t.stats.size()));
  std::string s = "attnlab-lm-heads 1\n";
  s += Format("shape %d %d %d\n", t.layers, t.heads, t.d_k);
  s += Format("held-out %d %lld %.5f\n", t.windows, static_cast<long long>(t.tokens), t.nll);
  for (const LmHeadStats& h : t.stats) {
    if (static_cast<int>(h.mean_output.size()) != t.d_k)
      return Status(StatusCode::kShapeMismatch, Format("lm heads: head %d.%d: mean_output: expected %d floats, got %zu",
                                                       h.layer, h.head, t.d_k, h.mean_output.size()));
    s += Format("head %d %d %.4f %.4f %.4f %.4f %s %s %.4f %.3f %.5f %.5f\n", h.layer, h.head, h.previous, h.first,
                h.itself, h.induction, h.query_tag.empty() ? "-" : h.query_tag.c_str(),
                h.key_tag.empty() ? "-" : h.key_tag.c_str(), h.tag_share, h.tag_lift, h.zero_delta_nll, h.mean_delta_nll);
    s += Format("mean %d %d", h.layer, h.head);
    for (const float v : h.mean_output) s += Format(" %.5f", v);
    s += "\n";
  }
  *text = std::move(s);
  return Status::Ok();
}

namespace {

// One line's fields, read left to right; every failure names the line and the field.
class Fields {
 public:
  Fields(std::string_view line, int number) : number_(number) {
    size_t i = 0;
    while (i <= line.size()) {
      const size_t j = std::min(line.find(' ', i), line.size());
      fields_.emplace_back(line.substr(i, j - i));
      i = j + 1;
    }
  }
  Status Fail(const std::string& what, const std::string& expected, std::string_view got) const {
    std::string shown(got.substr(0, 24));
    for (char& ch : shown)
      if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
    return Status(StatusCode::kParseError, "lm heads: line " + std::to_string(number_) + ": " + what + ": expected " +
                                               expected + ", got \"" + shown + "\"");
  }
  Status Count(size_t count, const char* record) const {
    if (fields_.size() != count)
      return Fail(record, std::to_string(count) + " fields", std::to_string(fields_.size()) + " fields");
    return Status::Ok();
  }
  std::string_view operator[](size_t i) const { return i < fields_.size() ? fields_[i] : std::string_view(); }
  Status Word(size_t i, std::string_view expected) const {
    if ((*this)[i] != expected) return Fail("record", "\"" + std::string(expected) + "\"", (*this)[i]);
    return Status::Ok();
  }
  Status Number(size_t i, const char* what, double lo, double hi, double* out) const {
    const std::string s((*this)[i]);
    char* end = nullptr;
    const double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi)
      return Fail(what, Format("a number in [%g, %g]", lo, hi), (*this)[i]);
    *out = v;
    return Status::Ok();
  }
  Status Integer(size_t i, const char* what, int64_t lo, int64_t hi, int64_t* out) const {
    const std::string s((*this)[i]);
    bool digits = !s.empty() && s.size() <= 12;
    for (const char ch : s) digits = digits && ch >= '0' && ch <= '9';
    const int64_t v = digits ? std::strtoll(s.c_str(), nullptr, 10) : -1;
    if (!digits || v < lo || v > hi)
      return Fail(what, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", (*this)[i]);
    *out = v;
    return Status::Ok();
  }
  Status Tag(size_t i, const char* what, std::string* out) const {
    const std::string_view s = (*this)[i];
    bool ok = !s.empty() && s.size() <= 8;
    for (const char ch : s) ok = ok && ((ch >= 'A' && ch <= 'Z') || ch == '.' || ch == '-');
    if (!ok) return Fail(what, "a tag (1–8 of A–Z, '.', '-')", s);
    *out = s == "-" ? std::string() : std::string(s);
    return Status::Ok();
  }

 private:
  std::vector<std::string_view> fields_;
  int number_;
};

}  // namespace

Status ReadLmHeads(std::string_view text, LmHeadTable* table) {
  std::vector<std::string_view> lines;
  for (size_t i = 0; i < text.size();) {
    const size_t j = text.find('\n', i);
    if (j == std::string_view::npos)
      return Status(StatusCode::kParseError, "lm heads: line " + std::to_string(lines.size() + 1) + ": expected a '\\n' at its end");
    lines.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  if (lines.size() < 3)
    return Status(StatusCode::kParseError, "lm heads: expected at least 3 lines (header, shape, held-out), got " +
                                               std::to_string(lines.size()));
  if (lines[0] != "attnlab-lm-heads 1")
    return Fields(lines[0], 1).Fail("header", "\"attnlab-lm-heads 1\"", lines[0]);
  LmHeadTable t;
  int64_t v[3];
  const Fields shape(lines[1], 2);
  ATTN_RETURN_IF_ERROR(shape.Count(4, "shape"));
  ATTN_RETURN_IF_ERROR(shape.Word(0, "shape"));
  ATTN_RETURN_IF_ERROR(shape.Integer(1, "layers", 1, 12, &v[0]));
  ATTN_RETURN_IF_ERROR(shape.Integer(2, "heads", 1, 16, &v[1]));
  ATTN_RETURN_IF_ERROR(shape.Integer(3, "d_k", 1, 1024, &v[2]));
  t.layers = static_cast<int>(v[0]), t.heads = static_cast<int>(v[1]), t.d_k = static_cast<int>(v[2]);
  const Fields held(lines[2], 3);
  ATTN_RETURN_IF_ERROR(held.Count(4, "held-out"));
  ATTN_RETURN_IF_ERROR(held.Word(0, "held-out"));
  ATTN_RETURN_IF_ERROR(held.Integer(1, "windows", 1, 1000000, &v[0]));
  ATTN_RETURN_IF_ERROR(held.Integer(2, "tokens", 1, 1000000000, &v[1]));
  ATTN_RETURN_IF_ERROR(held.Number(3, "nll", 0, 100, &t.nll));
  t.windows = static_cast<int>(v[0]), t.tokens = v[1];
  t.ablated = true;
  const size_t expected = 3 + 2 * static_cast<size_t>(t.layers * t.heads);
  if (lines.size() != expected)
    return Status(StatusCode::kParseError, "lm heads: expected " + std::to_string(expected) + " lines (3 + 2·L·h), got " +
                                               std::to_string(lines.size()));
  for (int k = 0; k < t.layers * t.heads; ++k) {
    LmHeadStats s;
    s.layer = k / t.heads + 1, s.head = k % t.heads + 1;
    const int line = 4 + 2 * k;
    const Fields f(lines[static_cast<size_t>(line - 1)], line);
    ATTN_RETURN_IF_ERROR(f.Count(13, "head"));
    ATTN_RETURN_IF_ERROR(f.Word(0, "head"));
    ATTN_RETURN_IF_ERROR(f.Word(1, std::to_string(s.layer)));
    ATTN_RETURN_IF_ERROR(f.Word(2, std::to_string(s.head)));
    double d[8];
    ATTN_RETURN_IF_ERROR(f.Number(3, "previous", 0, 1, &d[0]));
    ATTN_RETURN_IF_ERROR(f.Number(4, "first", 0, 1, &d[1]));
    ATTN_RETURN_IF_ERROR(f.Number(5, "itself", 0, 1, &d[2]));
    ATTN_RETURN_IF_ERROR(f.Number(6, "induction", -1, 1, &d[3]));
    ATTN_RETURN_IF_ERROR(f.Tag(7, "query_tag", &s.query_tag));
    ATTN_RETURN_IF_ERROR(f.Tag(8, "key_tag", &s.key_tag));
    ATTN_RETURN_IF_ERROR(f.Number(9, "tag_share", 0, 1, &d[4]));
    ATTN_RETURN_IF_ERROR(f.Number(10, "tag_lift", 0, 1e6, &d[5]));
    ATTN_RETURN_IF_ERROR(f.Number(11, "zero_delta_nll", -100, 100, &d[6]));
    ATTN_RETURN_IF_ERROR(f.Number(12, "mean_delta_nll", -100, 100, &d[7]));
    if (s.query_tag.empty() != s.key_tag.empty()) return f.Fail("key_tag", "a tag with the query tag, or \"-\" with \"-\"", f[8]);
    s.previous = static_cast<float>(d[0]), s.first = static_cast<float>(d[1]), s.itself = static_cast<float>(d[2]);
    s.induction = static_cast<float>(d[3]), s.tag_share = static_cast<float>(d[4]), s.tag_lift = static_cast<float>(d[5]);
    s.zero_delta_nll = d[6], s.mean_delta_nll = d[7];
    const Fields m(lines[static_cast<size_t>(line)], line + 1);
    ATTN_RETURN_IF_ERROR(m.Count(3 + static_cast<size_t>(t.d_k), "mean"));
    ATTN_RETURN_IF_ERROR(m.Word(0, "mean"));
    ATTN_RETURN_IF_ERROR(m.Word(1, std::to_string(s.layer)));
    ATTN_RETURN_IF_ERROR(m.Word(2, std::to_string(s.head)));
    for (int e = 0; e < t.d_k; ++e) {
      double x = 0;
      ATTN_RETURN_IF_ERROR(m.Number(3 + static_cast<size_t>(e), "mean_output", -1e6, 1e6, &x));
      s.mean_output.push_back(static_cast<float>(x));
    }
    t.stats.push_back(std::move(s));
  }
  for (LmHeadStats& s : t.stats) s.text = LmHeadText(t, s);
  *table = std::move(t);
  return Status::Ok();
}

// ---- The induction demo.

Status ComputeLmInduction(const train::LmModel& model, int words_per_half, uint32_t seed, LmInduction* out) {
  const train::LmConfig& c = model.config;
  const int R = words_per_half, L = c.layers, H = c.heads;
  if (R < 2 || 2 * R > c.seq_len || R > c.vocab - 1)
    return Status(StatusCode::kOutOfRange, "lm induction: words_per_half: expected 2–" +
                                               std::to_string(std::min(c.seq_len / 2, c.vocab - 1)) +
                                               " (half the context, distinct words), got " + std::to_string(R));
  attn::SeededRandom rng(seed);
  LmInduction r;
  std::vector<bool> used(static_cast<size_t>(c.vocab));
  while (static_cast<int>(r.ids.size()) < R) {
    const int w = static_cast<int>(rng.Below(static_cast<uint32_t>(c.vocab - 1)));  // never <unk>, the last id
    if (!used[static_cast<size_t>(w)]) used[static_cast<size_t>(w)] = true, r.ids.push_back(w);
  }
  r.ids.insert(r.ids.end(), r.ids.begin(), r.ids.end());
  train::LmCache cache;
  train::LmTrace trace;
  ATTN_RETURN_IF_ERROR(train::LmAdvance(model, r.ids, train::LmAblation(), false, &cache, &trace));
  for (int t = 0; t + 1 < 2 * R; ++t) r.loss.push_back(static_cast<float>(Nll(trace.logits, t, r.ids[static_cast<size_t>(t + 1)])));
  double first = 0, second = 0;
  for (int t = 0; t <= R - 2; ++t) first += r.loss[static_cast<size_t>(t)];
  for (int t = R; t <= 2 * R - 2; ++t) second += r.loss[static_cast<size_t>(t)];
  r.first_half = static_cast<float>(first / (R - 1));
  r.second_half = static_cast<float>(second / (R - 1));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      double s = 0;
      for (int t = R; t < 2 * R; ++t) s += trace.weights[l][h](t, t - R + 1);
      r.scores.push_back(static_cast<float>(s / R));
    }
  r.ranked.resize(r.scores.size());
  std::iota(r.ranked.begin(), r.ranked.end(), 0);
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [&](int a, int b) { return r.scores[a] > r.scores[b]; });
  const int best = r.ranked[0];
  const std::string head = Format("head %d.%d", best / H + 1, best % H + 1);
  // attnlab's word models (an <unk> class) are the Brown model: why it did not learn to copy is known.
  const bool words = !model.vocabulary.empty() && model.vocabulary.back() == train::kLmUnknownWord;
  const char* unit = words ? "word" : "token";
  if (r.second_half < 0.5f * r.first_half)
    r.text = Format("%d random %ss, then the same %d again: the model's loss falls from %.2f nats a %s the first time to "
                    "%.2f the second; %s puts %.3f of its weight on the %s after the earlier copy (prefix matching)",
                    R, unit, R, r.first_half, unit, r.second_half, head.c_str(), r.scores[best], unit);
  else
    r.text = Format("%d random %ss, then the same %d again: the model's loss is %.2f nats a %s the first time and "
                    "%.2f the second, %s: it has not learned to copy (no induction head); the most prefix-matching head, "
                    "%s, puts %.3f of its weight on the %s after the earlier copy%s",
                    R, unit, R, r.first_half, unit, r.second_half, r.second_half < r.first_half ? "a little lower" : "no lower",
                    head.c_str(), r.scores[best], unit,
                    words ? ". Its 64-word windows of Brown text rarely repeat a phrase, so copying never paid off in "
                            "training; text with repeats or a longer context does (view 11's recall task trains two "
                            "layers into exactly this)"
                          : "");
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace lessons
