// The readable reference: plain scalar loops with shape comments, templated on the scalar so
// tests can run it in double precision. Never optimised: it is the documentation of the math,
// and every fast kernel is checked against it.
//   reference/ops.h          hot spots: GEMM, QKᵀ, softmax, weights·V
//   reference/dims.h         sizes of one call
//   reference/scores.h       relevance, scale, softcap, masks, position bias
//   reference/normalizers.h  softmax, sparsemax, ReLU-normalised, sigmoid, none (+ backward)
//   reference/forward.h      the forward pass: reference::Forward<T>
//   reference/backward.h     the backward pass: reference::Backward<T>
//   reference/cast.h         float <-> double copies of inputs and parameters
#pragma once

#include "attn/reference/backward.h"
#include "attn/reference/cast.h"
#include "attn/reference/dims.h"
#include "attn/reference/forward.h"
#include "attn/reference/normalizers.h"
#include "attn/reference/ops.h"
#include "attn/reference/scores.h"
