#include "lessons/views/sentence.h"

#include "attn/text.h"

namespace lessons {

Status ComputeSentence(const SentenceState& state, const WordVectors* vectors, Sentence* out) {
  std::vector<std::string> tokens = attn::Tokenize(state.text);
  if (tokens.empty()) return Status(StatusCode::kEmptyInput, "Type a sentence: there are no words to attend to yet.");
  if (tokens.size() > static_cast<size_t>(SentenceState::kMaxTokens))
    return Status(StatusCode::kOutOfRange, "That is " + std::to_string(tokens.size()) + " words; the views show up to " +
                                               std::to_string(SentenceState::kMaxTokens) +
                                               " (the language model, view 12, reads up to its context).");
  Sentence s;
  if (state.vectors == VectorSource::kGlove && vectors && vectors->size() > 0) {
    EmbeddedTokens e = EmbedTokens(*vectors, tokens);
    s.x = std::move(e.x);
    s.known = std::move(e.known);
    s.glove = true;
    s.unknown_note = UnknownWordsNote(tokens, s.known, vectors->size());
  } else {
    s.x = attn::HashEmbeddings(tokens, SentenceState::kHashDim.Clamp(state.hash_dim));
    s.known.assign(tokens.size(), true);  // hashed vectors exist for every word
  }
  s.tokens = std::move(tokens);
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace lessons
