// View 12's model (lessons/views/lm.h) on the shipped language model, against the engine's own
// calls (attn::train::LmAdvance, LmGenerate), and its wire format (lessons/lm_wire.h): what the page
// reads is what the model module wrote, and no bytes can crash the reader.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/seeded_random.h"
#include "attn/train/lm_asset.h"
#include "attn/train/lm_inference.h"
#include "lessons/asset.h"
#include "lessons/lm_heads.h"
#include "lessons/lm_wire.h"
#include "attn/text.h"
#include "lessons/views/lm.h"

namespace lessons {
namespace {

using attn::train::LmModel;

const LmModel& Shipped() {
  static const LmModel model = [] {
    LmModel m;
    EXPECT_TRUE(attn::train::ReadLmAsset(testing::ReadAsset("lm-brown.bin"), &m).ok());
    return m;
  }();
  return model;
}

const LmHeadTable& Heads() {
  static const LmHeadTable table = [] {
    LmHeadTable t;
    EXPECT_TRUE(ReadLmHeads(testing::ReadAsset("lm-brown-heads.txt"), &t).ok());
    return t;
  }();
  return table;
}

std::vector<int> Ids(const std::vector<std::string>& tokens) {
  const attn::train::LmWordIndex index(Shipped().vocabulary);
  std::vector<int> ids;
  for (const std::string& t : tokens) ids.push_back(index.Id(attn::NormalizeToken(t)));
  return ids;
}

const std::vector<std::string> kTokens = attn::Tokenize("The jury said it did find that many of the city's problems");

TEST(LmView, EveryNumberIsTheEngines) {
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, kTokens, LmState(), &m).ok());
  const int n = static_cast<int>(kTokens.size());
  ASSERT_EQ(static_cast<int>(m.words.size()), n);
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.heads, 4);
  EXPECT_EQ(m.parameters, 1321728);
  attn::train::LmCache cache;
  attn::train::LmTrace trace;
  ASSERT_TRUE(attn::train::LmAdvance(Shipped(), Ids(kTokens), {}, true, &cache, &trace).ok());
  ASSERT_EQ(m.weights.size(), 16u);
  for (int l = 0; l < 4; ++l)
    for (int h = 0; h < 4; ++h) EXPECT_EQ(m.weights[static_cast<size_t>(l * 4 + h)], trace.weights[l][h]);
  for (int i = 0; i < n; ++i) {
    const attn::Matrix p = attn::train::LmSoftmax(trace.logits.row(i));
    Eigen::Index best = 0;
    p.row(0).maxCoeff(&best);
    ASSERT_EQ(m.top[static_cast<size_t>(i)].size(), 5u);
    EXPECT_EQ(m.top[i][0].word, Shipped().vocabulary[static_cast<size_t>(best)]);
    EXPECT_EQ(m.top[i][0].p, p(0, best));
    for (int k = 1; k < 5; ++k) EXPECT_LE(m.top[i][k].p, m.top[i][k - 1].p);
    // The continuation's distribution at T = 0.8, over every word but <unk>: the top such word's share grows.
    attn::Matrix sampled = trace.logits.row(i);
    sampled(0, Shipped().config.vocab - 1) = -std::numeric_limits<float>::infinity();
    const attn::Matrix q = attn::train::LmSoftmax(sampled, 0.8f);
    for (const LmNextWord& w : m.top[static_cast<size_t>(i)]) {
      if (w.word == attn::train::kLmUnknownWord) {
        EXPECT_EQ(w.p_t, 0.0f);
      } else {
        const int id = Ids({w.word})[0];
        EXPECT_EQ(w.p_t, q(0, id));
      }
    }
    const LmNextWord& first_word = m.top[i][0].word == attn::train::kLmUnknownWord ? m.top[i][1] : m.top[i][0];
    EXPECT_GT(first_word.p_t, first_word.p);
    // The last layer of the lens is the model's own prediction.
    EXPECT_EQ(m.lens[4][static_cast<size_t>(i)].word, m.top[i][0].word);
  }
  for (int i = 0; i + 1 < n; ++i) {
    const int next = Ids(kTokens)[static_cast<size_t>(i + 1)];
    if (next == Shipped().config.vocab - 1) {
      EXPECT_EQ(m.p_next[static_cast<size_t>(i)], -1.0f);
    } else {
      EXPECT_EQ(m.p_next[static_cast<size_t>(i)], attn::train::LmSoftmax(trace.logits.row(i))(0, next));
    }
  }
  EXPECT_GT(m.perplexity, 1.0f);
  EXPECT_EQ(m.residual_norms, trace.residual_norms);
  EXPECT_TRUE(m.ablated.empty());
  EXPECT_TRUE(m.base_top.empty());
  EXPECT_TRUE(m.continuation.empty());
}

TEST(LmView, KnockingHeadsOutIsTheEnginesAblation) {
  LmState s;
  s.ablated = "0,6";  // heads 1.1 and 2.3
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, kTokens, s, &m).ok());
  EXPECT_EQ(m.ablated, (std::vector<int>{0, 6}));
  attn::train::LmAblation ablation;
  ablation.heads = {{0, 0}, {1, 2}};
  attn::train::LmCache cache, base_cache;
  attn::train::LmTrace trace, base;
  ASSERT_TRUE(attn::train::LmAdvance(Shipped(), Ids(kTokens), ablation, false, &cache, &trace).ok());
  ASSERT_TRUE(attn::train::LmAdvance(Shipped(), Ids(kTokens), {}, false, &base_cache, &base).ok());
  double largest_kl = 0;
  for (size_t i = 0; i < kTokens.size(); ++i) {
    const attn::Matrix q = attn::train::LmSoftmax(trace.logits.row(static_cast<Eigen::Index>(i)));
    const attn::Matrix p = attn::train::LmSoftmax(base.logits.row(static_cast<Eigen::Index>(i)));
    Eigen::Index best = 0, base_best = 0;
    q.row(0).maxCoeff(&best);
    p.row(0).maxCoeff(&base_best);
    EXPECT_EQ(m.top[i][0].word, Shipped().vocabulary[static_cast<size_t>(best)]);
    EXPECT_EQ(m.base_top[i][0].word, Shipped().vocabulary[static_cast<size_t>(base_best)]);
    EXPECT_NEAR(m.delta_logp[i], std::log(q(0, base_best)) - std::log(p(0, base_best)), 1e-4);
    EXPECT_GE(m.kl[i], 0.0f);
    largest_kl = std::max<double>(largest_kl, m.kl[i]);
  }
  EXPECT_GT(largest_kl, 1e-3) << "knocking two heads out changed nothing";
  // Mean ablation needs the heads' held-out means: said, and zeroed instead.
  s.ablation = 1;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, kTokens, s, &m).ok());
  EXPECT_EQ(m.ablation, 0);
  EXPECT_NE(m.note.find("zeroed"), std::string::npos);
}

TEST(LmView, WithTheHeldOutTableEachHeadHasItsLineAndMeanAblationUsesItsMeans) {
  LmState s;
  s.ablated = "5";  // head 2.2
  s.ablation = 1;
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), &Heads(), kTokens, s, &m).ok());
  EXPECT_EQ(m.ablation, 1);
  EXPECT_TRUE(m.note.empty());
  ASSERT_EQ(m.head_texts.size(), 16u);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(m.head_texts[i], Heads().stats[i].text);
    EXPECT_NEAR(m.zero_perplexity[i], std::exp(Heads().nll + Heads().stats[i].zero_delta_nll), 1e-3);
  }
  EXPECT_NEAR(m.held_out_perplexity, std::exp(Heads().nll), 1e-4);
  attn::train::LmAblation mean;
  mean.heads = {{1, 1}};
  mean.mode = attn::train::LmAblationMode::kMean;
  mean.means = LmHeadMeans(Heads());
  attn::train::LmCache cache;
  attn::train::LmTrace trace;
  ASSERT_TRUE(attn::train::LmAdvance(Shipped(), Ids(kTokens), mean, false, &cache, &trace).ok());
  const attn::Matrix q = attn::train::LmSoftmax(trace.logits.row(3));
  Eigen::Index best = 0;
  q.row(0).maxCoeff(&best);
  EXPECT_EQ(m.top[3][0].p, q(0, best));
  LmViewModel zeroed;
  s.ablation = 0;
  ASSERT_TRUE(ComputeLm(Shipped(), &Heads(), kTokens, s, &zeroed).ok());
  EXPECT_NE(zeroed.kl, m.kl) << "the mean and zero ablations gave the same distributions";
  // The induction demo is ComputeLmInduction's on the state's seed.
  LmInduction induction;
  ASSERT_TRUE(ComputeLmInduction(Shipped(), kLmInductionWords, static_cast<uint32_t>(s.seed), &induction).ok());
  EXPECT_EQ(m.induction_loss, induction.loss);
  EXPECT_EQ(m.induction_scores, induction.scores);
  EXPECT_EQ(m.induction_text, induction.text);
  ASSERT_EQ(m.induction_words.size(), 2u * kLmInductionWords);
  EXPECT_EQ(m.induction_words[0], m.induction_words[kLmInductionWords]);
}

TEST(LmView, TheContinuationIsLmGeneratesThroughTheCache) {
  LmState s;
  s.generate = true;
  s.words = 12;
  s.seed = 7;
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, kTokens, s, &m).ok());
  ASSERT_EQ(m.continuation.size(), 12u);
  std::vector<attn::train::LmGenerated> expected;
  attn::train::LmGenerateConfig g;
  g.tokens = 12, g.temperature = 0.8f, g.seed = 7;
  ASSERT_TRUE(attn::train::LmGenerate(Shipped(), Ids(kTokens), g, &expected).ok());
  for (size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(m.continuation[k].word, Shipped().vocabulary[static_cast<size_t>(expected[k].id)]);
    EXPECT_EQ(m.continuation[k].p, expected[k].p);
    EXPECT_EQ(m.continuation[k].cache_length, static_cast<int>(kTokens.size() + k));
    EXPECT_EQ(m.continuation[k].cache_bytes, int64_t{4} * 2 * 4 * 128 * m.continuation[k].cache_length);
  }
  // A sentence as long as the context: the continuation starts from its last 64 − 12 words.
  std::vector<std::string> long_sentence;
  for (int i = 0; i < 80; ++i) long_sentence.push_back(i % 2 ? "the" : "man");
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, long_sentence, s, &m).ok());
  EXPECT_EQ(m.words.size(), 64u);
  EXPECT_EQ(m.dropped, 16);
  EXPECT_EQ(m.prompt_words, 52);
  EXPECT_EQ(m.continuation.size(), 12u);
  EXPECT_EQ(ComputeLm(Shipped(), nullptr, {}, s, &m).code(), attn::StatusCode::kEmptyInput);
}

// A checkpoint's tokens (GPT-2's BPE ran outside): the view by ids is the view by words when the ids
// are the same, and a vocabulary without <unk> has no unknown class: every token is known, scored,
// and may be sampled.
TEST(LmView, ByIdsIsByWordsForTheSameIds) {
  LmState s;
  s.generate = true;
  s.words = 6;
  s.ablated = "2";
  LmViewModel by_words, by_ids;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, kTokens, s, &by_words).ok());
  ASSERT_TRUE(ComputeLmOnIds(Shipped(), nullptr, Ids(kTokens), s, &by_ids).ok());
  EXPECT_EQ(by_ids.weights, by_words.weights);
  EXPECT_EQ(by_ids.p_next, by_words.p_next);
  EXPECT_EQ(by_ids.kl, by_words.kl);
  ASSERT_EQ(by_ids.continuation.size(), by_words.continuation.size());
  for (size_t k = 0; k < by_ids.continuation.size(); ++k) EXPECT_EQ(by_ids.continuation[k].word, by_words.continuation[k].word);
  EXPECT_EQ(by_ids.top[3][0].word, by_words.top[3][0].word);
  EXPECT_EQ(by_ids.known, by_words.known);
  // Out of range, or none: an error naming the id.
  EXPECT_EQ(ComputeLmOnIds(Shipped(), nullptr, {1, 4096}, s, &by_ids).code(), attn::StatusCode::kOutOfRange);
  EXPECT_EQ(ComputeLmOnIds(Shipped(), nullptr, {}, s, &by_ids).code(), attn::StatusCode::kEmptyInput);
}

TEST(LmView, AVocabularyWithoutUnkHasNoUnknownClass) {
  LmModel model = Shipped();
  model.vocabulary.back() = "<|endoftext|>";  // a checkpoint's last token is a token
  const int last = model.config.vocab - 1;
  LmState s;
  s.temperature = 0;
  LmViewModel m;
  ASSERT_TRUE(ComputeLmOnIds(model, nullptr, {Ids(kTokens)[0], last, Ids(kTokens)[2]}, s, &m).ok());
  EXPECT_EQ(m.known, std::vector<uint8_t>({1, 1, 1}));
  EXPECT_GE(m.p_next[0], 0.0f);  // scored, not "unknown"
  // Greedy takes the likeliest token, whatever it is; with <unk> it skipped the last id.
  for (const auto& row : m.top) EXPECT_EQ(row[0].p_t, 1.0f);
  // More tokens than the context: the first seq_len are read (the shipped model's 64 are all drawn).
  LmViewModel longer;
  ASSERT_TRUE(ComputeLmOnIds(model, nullptr, std::vector<int>(200, 5), s, &longer).ok());
  EXPECT_EQ(static_cast<int>(longer.words.size()), model.config.seq_len);
  EXPECT_EQ(longer.first, 0);
  EXPECT_EQ(longer.dropped, 200 - model.config.seq_len);
}

// A text longer than the view draws (GPT-2 reads 1024 tokens; the view draws 128): the model reads
// all of it, up to its context, and every drawn number is the full pass's at the last
// kLmViewMaxTokens positions — each word's next-token guess made with every word before it.
TEST(LmView, ALongTextIsReadWholeAndItsLastTokensDrawn) {
  LmModel model;
  model.config.vocab = 50, model.config.seq_len = 300, model.config.d_model = 16;
  model.config.layers = 2, model.config.heads = 2;
  model.params = attn::train::InitializeLm(model.config);
  for (int v = 0; v < model.config.vocab; ++v) model.vocabulary.push_back("t" + std::to_string(v));
  attn::SeededRandom rng(4);
  std::vector<int> ids;
  for (int i = 0; i < 320; ++i) ids.push_back(static_cast<int>(rng.Below(50)));
  LmState s;
  s.generate = true;
  s.words = 5;
  s.ablated = "1";
  LmViewModel m;
  ASSERT_TRUE(ComputeLmOnIds(model, nullptr, ids, s, &m).ok());
  const int read = 300, first = read - kLmViewMaxTokens, n = kLmViewMaxTokens;
  EXPECT_EQ(m.dropped, 20);
  EXPECT_EQ(m.first, first);
  ASSERT_EQ(static_cast<int>(m.words.size()), n);
  EXPECT_EQ(m.words[0], "t" + std::to_string(ids[first]));
  EXPECT_EQ(static_cast<int>(m.ids.size()), read) << "the whole text is read";
  EXPECT_EQ(m.prompt_words, read - s.words) << "the continuation follows the whole text";
  // The full pass, traced everywhere: the drawn numbers are its last rows.
  attn::train::LmCache cache;
  attn::train::LmTrace full;
  const std::vector<int> read_ids(ids.begin(), ids.begin() + read);
  ASSERT_TRUE(attn::train::LmAdvance(model, read_ids, {}, true, &cache, &full).ok());
  ASSERT_EQ(m.weights.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    const attn::Matrix& w = m.weights[static_cast<size_t>(k)];
    ASSERT_EQ(w.rows(), n);
    EXPECT_EQ(w, attn::Matrix(full.weights[static_cast<size_t>(k / 2)][static_cast<size_t>(k % 2)].bottomRightCorner(n, n)));
    EXPECT_LT(w.row(n - 1).sum(), 1.0f - 1e-3f) << "the last word's weight on the earlier words is not drawn";
  }
  ASSERT_EQ(static_cast<int>(m.p_next.size()), n - 1);
  for (int i = 0; i + 1 < n; ++i) {
    const attn::Matrix p = attn::train::LmSoftmax(full.logits.row(first + i));
    EXPECT_NEAR(m.p_next[static_cast<size_t>(i)], p(0, ids[static_cast<size_t>(first + i + 1)]), 1e-6f) << i;
  }
  ASSERT_EQ(static_cast<int>(m.residual_norms.size()), 3);
  for (const auto& norms : m.residual_norms) EXPECT_EQ(static_cast<int>(norms.size()), n);
  EXPECT_EQ(m.residual_norms[2][5], full.residual_norms[2][static_cast<size_t>(first + 5)]);
  ASSERT_EQ(static_cast<int>(m.lens.size()), 3);
  for (const auto& row : m.lens) EXPECT_EQ(static_cast<int>(row.size()), n);
  ASSERT_EQ(static_cast<int>(m.top.size()), n);
  ASSERT_EQ(static_cast<int>(m.kl.size()), n);
  ASSERT_EQ(static_cast<int>(m.base_top.size()), n);
  Eigen::Index best = 0;
  full.logits.row(read - 1).maxCoeff(&best);
  EXPECT_EQ(m.base_top[static_cast<size_t>(n - 1)][0].word, model.vocabulary[static_cast<size_t>(best)]);
  // On the wire too.
  LmViewModel back;
  const attn::Status read_back = ReadLmAnswer(WriteLmAnswer(attn::Status::Ok(), m), &back);
  ASSERT_TRUE(read_back.ok()) << read_back.ToString();
  EXPECT_EQ(back.first, first);
  EXPECT_EQ(back.dropped, 20);
}

TEST(LmWire, AnAnswerReadsBackAsWritten) {
  LmState s;
  s.generate = true;
  s.ablated = "3";
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), &Heads(), kTokens, s, &m).ok());
  m.forward_ms = 1.5, m.cached_word_ms = 0.25, m.recompute_word_ms = 2;
  m.source = "gpt2.safetensors", m.tokenizer = "gpt2", m.layout = "gpt2 (Conv1D)", m.dtype = "F16";
  m.bytes_in_memory = 497759232;
  LmViewModel back;
  ASSERT_TRUE(ReadLmAnswer(WriteLmAnswer(attn::Status::Ok(), m), &back).ok());
  EXPECT_EQ(back.source, m.source);
  EXPECT_EQ(back.tokenizer, m.tokenizer);
  EXPECT_EQ(back.layout, m.layout);
  EXPECT_EQ(back.dtype, m.dtype);
  EXPECT_EQ(back.bytes_in_memory, m.bytes_in_memory);
  EXPECT_EQ(back.words, m.words);
  EXPECT_EQ(back.known, m.known);
  EXPECT_EQ(back.weights, m.weights);
  EXPECT_EQ(back.residual_norms, m.residual_norms);
  EXPECT_EQ(back.p_next, m.p_next);
  EXPECT_EQ(back.kl, m.kl);
  EXPECT_EQ(back.delta_logp, m.delta_logp);
  EXPECT_EQ(back.ablated, m.ablated);
  EXPECT_EQ(back.parameters, m.parameters);
  ASSERT_EQ(back.top.size(), m.top.size());
  EXPECT_EQ(back.top[2][4].word, m.top[2][4].word);
  EXPECT_EQ(back.top[2][4].p_t, m.top[2][4].p_t);
  EXPECT_EQ(back.base_top[1][0].word, m.base_top[1][0].word);
  EXPECT_EQ(back.lens[2][3].word, m.lens[2][3].word);
  ASSERT_EQ(back.continuation.size(), m.continuation.size());
  EXPECT_EQ(back.continuation[5].word, m.continuation[5].word);
  EXPECT_EQ(back.continuation[5].cache_bytes, m.continuation[5].cache_bytes);
  EXPECT_EQ(back.recompute_word_ms, 2);
  EXPECT_EQ(back.head_texts, m.head_texts);
  EXPECT_EQ(back.mean_perplexity, m.mean_perplexity);
  EXPECT_EQ(back.induction_words, m.induction_words);
  EXPECT_EQ(back.induction_loss, m.induction_loss);
  EXPECT_EQ(back.induction_text, m.induction_text);
  // An error travels as one.
  const attn::Status error(attn::StatusCode::kOutOfRange, "lm: tokens: expected 1–63, got 99");
  const attn::Status read = ReadLmAnswer(WriteLmAnswer(error, LmViewModel()), &back);
  EXPECT_EQ(read.code(), attn::StatusCode::kOutOfRange);
  EXPECT_EQ(read.message(), error.message());
}

// The heads knocked out, as the link holds them: ascending, each once, in range; the rest ignored.
TEST(LmState, KnockedOutHeadsReadAndWrite) {
  LmState s;
  s.ablated = "17,3,x,3,,143,144,99999999999999999999,0005";
  EXPECT_EQ(LmKnockedOut(s, 144), (std::vector<int>{3, 5, 17, 143}));
  EXPECT_EQ(LmKnockedOut(s, 16), (std::vector<int>{3, 5}));
  EXPECT_TRUE(LmIsKnockedOut(s, 5));
  EXPECT_FALSE(LmIsKnockedOut(s, 9));
  LmSetKnockedOut(&s, 9, true);
  EXPECT_EQ(s.ablated, "17,3,3,143,144,5,9");  // the numbers kept, the new one last
  EXPECT_TRUE(LmIsKnockedOut(s, 9));
  LmSetKnockedOut(&s, 3, false);
  LmSetKnockedOut(&s, 144, false);
  LmSetKnockedOut(&s, 9, true);  // already out: listed once
  EXPECT_EQ(s.ablated, "17,143,5,9");
  EXPECT_EQ(LmKnockedOut(s, 144), (std::vector<int>{5, 9, 17, 143}));
  ViewState view;
  view.lm.ablated = "0,6,140";
  ViewState back;
  ParseState(SerializeState(view), &back);
  EXPECT_EQ(back.lm.ablated, "0,6,140");
}

TEST(LmWire, ARequestCarriesTheTextAndTheState) {
  LmRequest q;
  q.state.temperature = 1.25f, q.state.words = 9, q.state.generate = true, q.state.seed = 42, q.state.ablated = "0,2";
  q.state.ablation = 1;
  LmRequest back;
  q.text = "The jury said it did find";
  ASSERT_TRUE(ReadLmRequest(WriteLmRequest(q), &back).ok());
  EXPECT_EQ(back.text, q.text);
  EXPECT_EQ(FieldsKey(back.state), FieldsKey(q.state));
}

TEST(LmWire, CutOrCorruptBytesAreAParseErrorNeverACrash) {
  LmState s;
  s.generate = true;
  s.words = 3;
  s.ablated = "0";
  LmViewModel m;
  ASSERT_TRUE(ComputeLm(Shipped(), nullptr, attn::Tokenize("the city said"), s, &m).ok());
  const std::string answer = WriteLmAnswer(attn::Status::Ok(), m);
  LmViewModel back;
  for (size_t cut = 0; cut < answer.size(); cut += cut < 64 ? 1 : 37)
    ASSERT_EQ(ReadLmAnswer(answer.substr(0, cut), &back).code(), attn::StatusCode::kParseError) << cut;
  EXPECT_EQ(ReadLmAnswer(answer + "x", &back).code(), attn::StatusCode::kParseError);
  attn::SeededRandom rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bytes = answer;
    for (int k = 0; k < 4; ++k)
      bytes[static_cast<size_t>(rng.Unit() * static_cast<double>(bytes.size()))] =
          static_cast<char>(static_cast<unsigned char>(rng.Below(256)));  // a double past 127 into char is UB
    const attn::Status status = ReadLmAnswer(bytes, &back);  // ok (a value changed) or a parse error
    if (status.ok()) EXPECT_EQ(back.words.size(), back.top.size());
  }
  const std::string request = WriteLmRequest({"the city said", s});
  LmRequest q;
  for (size_t cut = 0; cut < request.size(); ++cut)
    ASSERT_EQ(ReadLmRequest(request.substr(0, cut), &q).code(), attn::StatusCode::kParseError) << cut;
}

}  // namespace
}  // namespace lessons
