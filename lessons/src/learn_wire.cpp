#include "lessons/learn_wire.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "lessons/format.h"
#include "wire.h"

namespace lessons {
namespace {

constexpr uint32_t kDeltaMagic = 0x444c4c41;  // "ALLD"
constexpr uint64_t kMatrixBytes = 8;          // a matrix's least: its two sides

using wire::Reader;
using wire::Writer;

void PutRole(Writer& w, const attn::train::HeadRole& role) {
  w.Put<int32_t>(role.layer);
  w.Put<int32_t>(role.head);
  w.Put<int32_t>(static_cast<int32_t>(role.kind));
  w.Put<float>(role.share);
  w.Floats(role.shares);
  w.String(role.text);
}

bool GetRole(Reader& r, attn::train::HeadRole* role) {
  int32_t kind = 0;
  if (!r.Get("role", &role->layer) || !r.Get("role", &role->head) || !r.Get("role", &kind) ||
      !r.Get("role", &role->share) || !r.Floats("role shares", &role->shares) || !r.String("role text", &role->text))
    return false;
  if (kind < 0 || kind >= static_cast<int32_t>(attn::train::KeyKind::kCount))
    return r.Invalid("role kind", Format("0–%d", static_cast<int>(attn::train::KeyKind::kCount) - 1), Format("%d", kind));
  role->kind = static_cast<attn::train::KeyKind>(kind);
  return true;
}

void PutCircuits(Writer& w, const attn::train::Circuits& c) {
  w.Put<uint32_t>(static_cast<uint32_t>(c.heads.size()));
  for (const attn::train::HeadCircuits& h : c.heads) {
    w.Put<int32_t>(h.layer);
    w.Put<int32_t>(h.head);
    w.MatrixValues(h.qk);
    w.MatrixValues(h.qk_positions);
    w.MatrixValues(h.ov);
    w.Put<double>(h.copying);
  }
  w.Put<uint32_t>(static_cast<uint32_t>(c.compositions.size()));
  for (const attn::train::HeadComposition& p : c.compositions) {
    for (int32_t v : {p.from_layer, p.from_head, p.to_layer, p.to_head}) w.Put<int32_t>(v);
    for (double v : {p.q, p.k, p.v}) w.Put<double>(v);
  }
}

bool GetCircuits(Reader& r, attn::train::Circuits* c) {
  uint32_t count = 0;
  if (!r.Count("circuits", 8 + 3 * kMatrixBytes + 8, &count)) return false;
  c->heads.resize(count);
  for (attn::train::HeadCircuits& h : c->heads)
    if (!r.Get("circuit head", &h.layer) || !r.Get("circuit head", &h.head) || !r.MatrixValues("qk circuit", &h.qk) ||
        !r.MatrixValues("positional qk circuit", &h.qk_positions) || !r.MatrixValues("ov circuit", &h.ov) ||
        !r.Get("copying", &h.copying))
      return false;
  if (!r.Count("compositions", 16 + 24, &count)) return false;
  c->compositions.resize(count);
  for (attn::train::HeadComposition& p : c->compositions)
    if (!r.Get("composition", &p.from_layer) || !r.Get("composition", &p.from_head) || !r.Get("composition", &p.to_layer) ||
        !r.Get("composition", &p.to_head) || !r.Get("composition", &p.q) || !r.Get("composition", &p.k) ||
        !r.Get("composition", &p.v))
      return false;
  return true;
}

void PutSnapshot(Writer& w, const LearnSnapshot& s) {
  w.Put<int32_t>(s.step);
  w.Put<uint32_t>(static_cast<uint32_t>(s.weights.size()));
  for (const auto& layer : s.weights) {
    w.Put<uint32_t>(static_cast<uint32_t>(layer.size()));
    for (const Matrix& m : layer) w.MatrixValues(m);
  }
  w.Put<uint32_t>(static_cast<uint32_t>(s.inputs.size()));
  for (const Matrix& m : s.inputs) w.MatrixValues(m);
  w.Put<uint32_t>(static_cast<uint32_t>(s.parameters.blocks.size()));
  for (const Matrix* m : KeptMatrices(s.parameters)) w.MatrixValues(*m);
  w.Values(s.predictions);
  w.Put<uint32_t>(static_cast<uint32_t>(s.roles.size()));
  for (const auto& role : s.roles) PutRole(w, role);
  w.Put<float>(s.held_out_accuracy);
  w.Put<float>(s.held_out_loss);
  w.Floats(s.position_loss);
  w.Values(s.position_scored);
  PutCircuits(w, s.circuits);
}

bool GetSnapshot(Reader& r, LearnSnapshot* s) {
  uint32_t layers = 0, count = 0;
  if (!r.Get("step", &s->step) || !r.Count("weights", 4, &layers)) return false;
  s->weights.resize(layers);
  for (auto& layer : s->weights) {
    if (!r.Count("heads", kMatrixBytes, &count)) return false;
    layer.resize(count);
    for (Matrix& m : layer)
      if (!r.MatrixValues("weights", &m)) return false;
  }
  if (!r.Count("inputs", kMatrixBytes, &count)) return false;
  s->inputs.resize(count);
  for (Matrix& m : s->inputs)
    if (!r.MatrixValues("inputs", &m)) return false;
  if (!r.Count("blocks", 10 * kMatrixBytes, &count)) return false;
  s->parameters.blocks.resize(count);
  for (Matrix* m : KeptMatrices(s->parameters))
    if (!r.MatrixValues("parameters", m)) return false;
  if (!r.Values("predictions", &s->predictions) || !r.Count("roles", 24, &count)) return false;
  s->roles.resize(count);
  for (auto& role : s->roles)
    if (!GetRole(r, &role)) return false;
  return r.Get("held-out accuracy", &s->held_out_accuracy) && r.Get("held-out loss", &s->held_out_loss) &&
         r.Floats("loss per position", &s->position_loss) && r.Values("scored per position", &s->position_scored) &&
         GetCircuits(r, &s->circuits);
}

}  // namespace

std::string WriteLearnDelta(const LearnLab& lab, int from_step) {
  const int from = std::clamp(from_step, 0, lab.steps());
  Writer w;
  w.Put<uint32_t>(kDeltaMagic);
  w.Put<int32_t>(from);
  w.Floats(std::vector<float>(lab.losses().begin() + from, lab.losses().end()));
  w.Floats(std::vector<float>(lab.accuracies().begin() + from, lab.accuracies().end()));
  w.Put<double>(lab.steps_per_second());
  uint32_t count = 0;
  for (const LearnSnapshot& s : lab.snapshots()) count += s.step > from;
  w.Put<uint32_t>(count);
  for (const LearnSnapshot& s : lab.snapshots())
    if (s.step > from) PutSnapshot(w, s);
  return w.out;
}

Status ReadLearnDelta(std::string_view bytes, LearnDelta* delta) {
  Reader r(bytes, "learn message");
  uint32_t magic = 0, count = 0;
  LearnDelta d;
  if (r.Get("magic", &magic) && magic != kDeltaMagic)
    return Status(StatusCode::kParseError, Format("learn message: magic: expected a delta, got %u", magic));
  if (r.status().ok() && r.Get("from step", &d.from_step) && r.Floats("losses", &d.losses) &&
      r.Floats("accuracies", &d.accuracies) && r.Get("steps per second", &d.steps_per_second) &&
      r.Count("snapshots", 16, &count)) {
    d.snapshots.resize(count);
    for (LearnSnapshot& s : d.snapshots)
      if (!GetSnapshot(r, &s)) break;
    if (r.status().ok()) r.AtEnd("delta");
  }
  if (!r.status().ok()) return r.status();
  *delta = std::move(d);
  return Status::Ok();
}

}  // namespace lessons
