// Sliders and checkboxes drawn from a control's field spec (lessons/fields.h): the label, range
// and format written once, and what is typed with Ctrl+click clamped to the same range.
#pragma once

#include "lessons/fields.h"

namespace attnlab {

// Returns true when the value changed.
bool SliderField(const lessons::FloatField& field, float* value);
// `max` narrows the slider below the field's own maximum (e.g. to the sentence's last word);
// `format` overrides the field's.
bool SliderField(const lessons::IntField& field, int* value, int max, const char* format = nullptr);
bool SliderField(const lessons::IntField& field, int* value);
bool CheckboxField(const lessons::BoolField& field, bool* value);
// A number stepped by − and + (a seed), not typed: a phone's keyboard cannot reach an ImGui field.
bool StepperField(const lessons::IntField& field, int* value);
// A combo box over `count` choices shown by `names` (the reader's words, not the link's).
bool ChoiceCombo(const char* label, const char* const* names, int count, int* index);

}  // namespace attnlab
