// Types of the attnlab package (index.mjs). Every call returns `Result<T>`: `{ok: true} & T` or an
// `EngineError`; no call throws. Results hold copies (plain objects, fresh Float32Arrays): nothing
// to free, and they stay valid whatever the engine does next. The one exception: a PreparedLayer
// (engine.prepare) keeps its packed weights in the engine's memory until its delete().

/** A row-major matrix: `data` holds rows·cols values (any typed array or number[] on input). */
export interface MatrixInput {
  rows: number;
  cols: number;
  data: Float32Array | Float64Array | Int32Array | Uint8Array | ArrayLike<number>;
}
/** A matrix the engine returns: a copy, row-major. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** The `code` of a failed call. */
export type ErrorCode =
  | 'empty_input'        // a sequence, a width or a tensor has no elements
  | 'non_finite'         // an input holds NaN or ±inf, or the scores overflow float32
  | 'shape_mismatch'     // two inputs disagree on a size
  | 'out_of_range'       // an option outside its domain ("windowRight: expected at most 16777216, got ...")
  | 'unknown_option'     // an unknown key or enum name ("numHeds: unknown option (did you mean numHeads?)")
  | 'invalid_argument'   // a value of the wrong type ("numHeads: expected an integer, got the string \"2\"")
  | 'parse_error'        // malformed text
  | 'resource_exhausted' // over a documented size limit; checked before anything is allocated
  | 'module_died';       // the instance trapped or aborted (never seen in tests): load a new engine

export interface EngineError {
  ok: false;
  code: ErrorCode;
  /** Names the argument, what was expected and what was given. */
  message: string;
}
export type Result<T> = ({ ok: true } & T) | EngineError;

export type ScoreFunction = 'dot' | 'scaled_dot' | 'bilinear' | 'additive' | 'additive_concat' | 'cosine';
export type Normalizer = 'softmax' | 'sparsemax' | 'relu' | 'sigmoid' | 'none';
export type PositionEncoding = 'none' | 'sinusoidal' | 'learned' | 'alibi' | 'rope' | 'quadratic_relative';
/** `engine.kernels()` lists those this engine runs: 'reference', 'eigen', 'wasm_simd128'. */
export type Kernel = 'reference' | 'eigen' | 'wasm_simd128' | 'avx2' | 'avx512';

/**
 * The attention layer's options (attn::AttentionConfig; formulas in the repository's docs/engine.md).
 * Every key is optional; an absent key takes the default written beside it. An unknown key is
 * `unknown_option`, a value of another type `invalid_argument`.
 */
export interface AttentionConfig {
  /** Multiplies the relevance; 0 (default) means 1/√d_k for 'scaled_dot', 1 otherwise. */
  scale?: number;
  /** Normaliser temperature τ > 0 (default 1): the normaliser sees scores / τ. */
  temperature?: number;
  /** 'cosine' only: cos(q, k) / cosineTemperature (default 1). */
  cosineTemperature?: number;
  /** 'additive' / 'additive_concat' hidden width d_a; 0 (default) means d_k. */
  additiveDim?: number;
  /** Query heads h (integer, default 1). */
  numHeads?: number;
  /** Key/value heads (integer dividing numHeads; 0, the default, means numHeads). */
  numKvHeads?: number;
  /** Per-head query/key width d_k; 0 (default) means d_model / h. */
  headDim?: number;
  /** Per-head value width d_v; 0 (default) as headDim. */
  valueHeadDim?: number;
  /** Width of the output projection; 0 (default) means d_model. */
  outputDim?: number;
  /** Softcap c > 0: s → c·tanh(s/c); 0 (default) disables. */
  softcap?: number;
  /** Sliding window: key j allowed only if p_q − windowLeft ≤ p_k; −1 (default) unbounded. */
  windowLeft?: number;
  /** Sliding window: key j allowed only if p_k ≤ p_q + windowRight; −1 (default) unbounded. */
  windowRight?: number;
  /** Sinusoidal and RoPE frequency base (default 10000). */
  positionBase?: number;
  /** Rows of the seeded learned position table (default 512). */
  maxPositions?: number;
  /** Seeds every parameter not given (unsigned 32-bit integer, default 0). */
  seed?: number;
  /** Q = query·Wq, K = key·Wk, V = value·Wv (default false: parameter-free). */
  projectInputs?: boolean;
  /** Y = concat(heads)·Wo (default false). */
  projectOutput?: boolean;
  /** Add bq, bk, bv, bo to the projections that are on (default false). */
  useBias?: boolean;
  /** Key j allowed only if p_k ≤ p_q (default false). */
  causal?: boolean;
  /** Relevance function (default 'scaled_dot'). */
  score?: ScoreFunction;
  /** Default 'softmax'. */
  normalizer?: Normalizer;
  /** Default 'none'. */
  position?: PositionEncoding;
  /** Default 'eigen'; forwardOutput on 'wasm_simd128' uses the fused kernel where it applies. */
  kernel?: Kernel;
}

/** query (n, d_model); key (m, d_kv) for cross-attention (absent: self-attention); value (m, ·) (absent: key). */
export interface AttentionInputs {
  query: MatrixInput;
  key?: MatrixInput | null;
  value?: MatrixInput | null;
  /** Added to every head's scores, (n, m). */
  floatMask?: MatrixInput | null;
}

/** Parameters to use instead of the seeded ones (each absent one is seeded from config.seed). */
export interface AttentionParameters {
  wq?: MatrixInput | null; wk?: MatrixInput | null; wv?: MatrixInput | null; wo?: MatrixInput | null;
  bq?: MatrixInput | null; bk?: MatrixInput | null; bv?: MatrixInput | null; bo?: MatrixInput | null;
  /** 'quadratic_relative': (1, h) Δ_h and α_h. */
  relativeCenter?: MatrixInput | null;
  relativeSharpness?: MatrixInput | null;
}

/** One head's intermediates. */
export interface HeadResult {
  q: Matrix; k: Matrix; v: Matrix;
  /** (n, m) each: raw relevance, scaled, softcapped, masked (the normaliser's input). */
  rawScores: Matrix; scaledScores: Matrix; cappedScores: Matrix; scores: Matrix;
  /** (n, m) the normalised weights. */
  weights: Matrix;
  /** (n, d_v) weights·v. */
  output: Matrix;
}

export interface ForwardResult {
  heads: HeadResult[];
  /** (n, d_out) the layer's output. */
  output: Matrix;
  /** The query after positions were added. */
  queryIn: Matrix;
  /** (n, h·d_v) the heads' outputs side by side. */
  concat: Matrix;
  /** The projections used (seeded or given): 0×0 when the config has none. */
  parameters: { wq: Matrix; wk: Matrix; wv: Matrix; wo: Matrix };
}

export interface ForwardOutputResult {
  output: Matrix;
  /** True when the fused kernel ran (no n×n matrix; memory O(n·d)). */
  fused: boolean;
}

/** Gradients of a scalar loss L given dOutput = ∂L/∂output; a gradient the config does not use is 0×0. */
export interface BackwardResult {
  /** ∂L/∂query (for self-attention it includes the key and value paths). */
  dQuery: Matrix;
  dKey: Matrix;
  dValue: Matrix;
  dWq: Matrix; dWk: Matrix; dWv: Matrix; dWo: Matrix;
  dBq: Matrix; dBk: Matrix; dBv: Matrix; dBo: Matrix;
  dRelativeCenter: Matrix;
  dRelativeSharpness: Matrix;
}

export interface SelfAttentionOptions {
  scale?: number;
  temperature?: number;
  kernel?: Kernel;
}

/** prepare()'s options: the layer's config and the width of the rows it takes. */
export interface PrepareOptions extends AttentionConfig {
  /** d_model: the width of every query forward() takes (integer ≥ 1). */
  dModel: number;
}

/**
 * A self-attention layer prepared once (attn::PreparedAttention): config and parameters checked,
 * missing parameters seeded, weights packed for the kernel. Each forward() checks only its query;
 * with kernel 'wasm_simd128' and a config the fused kernel covers (`fused`), a call of the same
 * shape as the last allocates nothing in the engine. Call delete() when done.
 */
export interface PreparedLayer {
  readonly dModel: number;
  /** Width of the output: outputDim or dModel with projectOutput, numHeads·d_v without. */
  readonly dOut: number;
  /** True when forward() runs the fused kernel (kernel 'wasm_simd128' and a covered config). */
  readonly fused: boolean;
  /** The layer on query (n, dModel), self-attention: the same numbers as forwardOutput with the same config and params. */
  forward(query: MatrixInput): Result<{ output: Matrix }>;
  /** Frees the layer's engine memory; later forward() calls return an error. Safe to call twice. */
  delete(): void;
}

/** attn::KernelChoice: the fastest kernel's tiling on this CPU (engine.kernelChoice()). */
export interface KernelChoice {
  ok: true;
  kernel: Kernel;
  /** The build's name for it: 'wasm_simd128' or 'wasm_relaxed_simd'. */
  build: string;
  /** Rows of A per register tile of the GEMM. */
  gemmRows: number;
  /** KB of a packed B panel's depth slice kept in L1. */
  gemmSliceKb: number;
  /** Query rows per tile of the fused attention. */
  attentionRows: number;
  /** Keys per tile of the fused attention. */
  attentionKeys: number;
  /**
   * The attention's multiply-adds fused (one rounding) or a multiply then an add: fixed by the build
   * except in the relaxed-SIMD one, which times both and runs f32x4.relaxed_madd only where it is
   * faster.
   */
  fusedMultiplyAdd: boolean;
  /** The GEMM's (the projections'), chosen the same way on its own. */
  gemmFusedMultiplyAdd: boolean;
  /** Settings timed (0: set, not measured; a choice set from another probe's keeps that probe's numbers). */
  candidates: number;
  /** How long choosing took. */
  probeMs: number;
  /** The winners' rates on the probe's GEMM and attention head. */
  gemmGflops: number;
  attentionGflops: number;
  /** Set with setKernelChoice (another instance's, an earlier load's), not probed by this one. */
  setFromElsewhere: boolean;
  /** All of it in a sentence. */
  text: string;
}

export interface Engine {
  /** The engine's version, the package's ("0.1.0"). */
  readonly version: string;
  /**
   * Which bundled wasm runs: true the relaxed-SIMD build (its kernels time f32x4.relaxed_madd, fused
   * where the CPU has FMA, against a multiply then an add and run the faster, so the last bits may
   * differ between machines), false the plain one; null for a `wasm` you gave.
   */
  readonly relaxedSimd: boolean | null;
  /** Which wasm build runs and why: "relaxed SIMD: this WebAssembly engine has it (…)", "plain SIMD128: …". */
  readonly wasmBuild: string;
  /**
   * How this CPU runs the SIMD kernel, chosen by timing its candidate tilings on the first call (a few
   * ms, then kept): the same numbers whatever is chosen (GEMM bit for bit; attention within its bound).
   * null once the engine has died.
   */
  kernelChoice(): KernelChoice | null;
  /** The kernels this engine runs. */
  kernels(): Kernel[];
  /** Every intermediate of every head; heads·n·m ≤ 2^24. */
  forward(config: AttentionConfig, inputs: AttentionInputs, params?: AttentionParameters | null): Result<ForwardResult>;
  /** The output alone; with kernel 'wasm_simd128' fused where it applies (long sequences). */
  forwardOutput(config: AttentionConfig, inputs: AttentionInputs, params?: AttentionParameters | null): Result<ForwardOutputResult>;
  /** Gradients given dOutput (n, d_out); the same checks and limits as forward. */
  backward(config: AttentionConfig, inputs: AttentionInputs, dOutput: MatrixInput,
           params?: AttentionParameters | null): Result<BackwardResult>;
  /** A layer prepared once for many forward() calls (as an onnxruntime session or a PyTorch module). */
  prepare(options: PrepareOptions, params?: AttentionParameters | null): Result<{ layer: PreparedLayer }>;
  /** softmax(x·xᵀ·scale / τ)·x of an (n, d) row-major x, every intermediate. */
  selfAttention(x: Float32Array | ArrayLike<number>, n: number, d: number, options?: SelfAttentionOptions): Result<Omit<ForwardResult, 'queryIn' | 'concat' | 'parameters'>>;
  /** Lower-case words and punctuation. */
  tokenize(text: string): Result<{ tokens: string[] }>;
  /** A deterministic vector per token, (tokens.length, dim), dim in 1..4096. */
  hashEmbeddings(tokens: string[], dim: number): Result<Matrix>;
}

export interface LoadOptions {
  /** Where attnlab-engine.wasm is (default: beside index.mjs; a relative string resolves against index.mjs), its bytes, or a compiled module. */
  wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
  /**
   * Which bundled wasm (not with `wasm`): true attnlab-engine-relaxed.wasm (rejects where the engine
   * has no relaxed SIMD), false attnlab-engine.wasm; default: the relaxed one where
   * WebAssembly.validate accepts relaxed SIMD (Chromium; node 20 with --experimental-wasm-relaxed-simd).
   */
  relaxedSimd?: boolean;
}

/** A new engine with its own WebAssembly memory. Rejects only if the wasm cannot be loaded (or relaxedSimd: true has no relaxed SIMD). */
export function loadEngine(options?: LoadOptions): Promise<Engine>;

// [SECTION] The language model (the page's view 12)

/** The model's shape. */
export interface LanguageModelInfo {
  readonly layers: number;
  readonly heads: number;
  readonly dModel: number;
  /** Words it reads at most (later ones are not read). */
  readonly context: number;
  /** Words it knows, the last being "<unk>". */
  readonly vocabulary: number;
}

export interface LanguageModelHead extends Matrix {
  /** 0-based. */
  layer: number;
  head: number;
}

export interface LanguageModelRun {
  /** The words read: lower-cased page tokens, at most `context`. */
  words: string[];
  /** (n, vocabulary): the next word's probabilities after each word, row-major. */
  next: Matrix;
  /** Every layer × head's causal attention weights (n, n), layer-major. */
  weights: LanguageModelHead[];
}

export interface NextWord {
  word: string;
  p: number;
}

export interface LanguageModel {
  readonly info: LanguageModelInfo;
  /** The model on `text`; knockedOut: heads (layer · heads + head) whose output is set to zero. */
  run(text: string, options?: { knockedOut?: number[] }): Result<LanguageModelRun>;
  /** The `top` (1–100, default 5) likeliest next words after each word. */
  nextWords(text: string, options?: { top?: number }): Result<{ words: string[]; next: NextWord[][] }>;
  /**
   * Continues `text` through the KV cache: tokens 1 – context − words (default 20), temperature ≥ 0
   * (0: greedy; default 0.8), seed (default 1). The same arguments give the same words.
   */
  generate(text: string, options?: { tokens?: number; temperature?: number; seed?: number }):
    Result<{ prompt: string[]; generated: NextWord[]; cacheBytes: number }>;
}

export interface LanguageModelLoadOptions {
  /** The model: the bundled lm-brown.bin by default; a path/URL (relative to index.mjs) or an asset's bytes. */
  model?: string | URL | ArrayBuffer | ArrayBufferView;
  /** Where attnlab-lm.wasm is, its bytes, or a compiled module. */
  wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
}

/** Loads the language model into its own WebAssembly instance. Rejects on a bad option or a model file that does not parse (the reason). */
export function loadLanguageModel(options?: LanguageModelLoadOptions): Promise<LanguageModel>;

// [SECTION] Checkpoints (openModel): GPT-2 / nanoGPT safetensors files and attnlab assets, by token ids

/** What openModel read. */
export interface CheckpointInfo extends LanguageModelInfo {
  /** Floats of the model (LmParameterCount). */
  readonly parameters: number;
  /** The file's parameter dtype: 'F32', 'F16', 'BF16' ('mixed' when several), 'int8' for an asset. */
  readonly dtype: string;
  /** 'gpt2 (Conv1D)', 'nanogpt (Linear)' or 'attnlab asset (ATTNLM01)'. */
  readonly naming: string;
  /** The MLP's GELU: 'gelu_new' (tanh form) or 'gelu' (erf form). */
  readonly activation: 'gelu_new' | 'gelu';
  /** LayerNorm's ε. */
  readonly eps: number;
  readonly positions: 'learned' | 'rope';
  /** 4 × parameters: the floats held in the module's memory. */
  readonly bytesInMemory: number;
  /** Bytes more holding the weight matrices packed once for the kernel's products (a checkpoint, on a
   * SIMD kernel: about bytesInMemory again); 0 when the products read the weights in place. */
  readonly packedBytes: number;
  /** The model has words of its own (an asset, attnlab's exports); false: ids only ("[0]", "[1]", …). */
  readonly words: boolean;
}

/** config.json (Hugging Face GPT-2's keys), parsed. */
export interface CheckpointConfig {
  n_head?: number;
  n_embd?: number;
  n_layer?: number;
  n_positions?: number;
  n_ctx?: number;
  vocab_size?: number;
  layer_norm_epsilon?: number;
  activation_function?: string;
  attnlab_positions?: 'learned' | 'rope';
  /** n_head, winning over the config's. */
  heads?: number;
  [key: string]: unknown;
}

/** Token ids, each in [0, vocabulary), 1 – context of them. */
export type TokenIds = readonly number[] | Int32Array | Uint32Array | Uint16Array;

export interface NextToken {
  id: number;
  /** The checkpoint's word for the id (its metadata's), GPT-2's token text, or "[id]". */
  token: string;
  p: number;
}

export interface CheckpointRun {
  ids: number[];
  /** (n, vocabulary): the next token's scores (logits) after each id. */
  logits: Matrix;
  /** (n, vocabulary): their softmax. */
  next: Matrix;
  /** Every layer × head's causal attention weights (n, n), layer-major. */
  weights: LanguageModelHead[];
}

export interface Checkpoint {
  readonly info: CheckpointInfo;
  /**
   * How a text is read: 'words' (attnlab's models: their words, as LanguageModel reads them), 'gpt2'
   * (GPT-2's vocabulary, 50,257 tokens or nanoGPT's 50,304: GPT-2's byte-level BPE from the optional
   * peer dependency js-tiktoken), or null (ids only: a vocabulary without words, or js-tiktoken absent).
   */
  readonly tokenizer: 'words' | 'gpt2' | null;
  /** The tokens by id (a copy): the model's words, GPT-2's tokens' text (" the"), or "[id]". */
  vocabulary(): string[];
  /** A text's ids and tokens, by `tokenizer` (refused when it is null). */
  encode(text: string): Result<{ ids: number[]; tokens: string[] }>;
  /** The model on `ids` (or a text, through encode); knockedOut: heads (layer · heads + head) whose output is set to zero. */
  run(ids: TokenIds | string, options?: { knockedOut?: number[] }): Result<CheckpointRun>;
  /** The `top` (1 – vocabulary, default 5) likeliest next tokens after each id. */
  nextTokens(ids: TokenIds | string, options?: { top?: number }): Result<{ ids: number[]; next: NextToken[][] }>;
  /**
   * Continues `ids` through the KV cache: tokens 1 – context − ids (default 20), temperature ≥ 0
   * (0: greedy, the argmax; default 0.8), seed (default 1). Every id may be chosen (an asset's
   * "<unk>" excepted). The same arguments give the same tokens.
   */
  generate(ids: TokenIds | string, options?: { tokens?: number; temperature?: number; seed?: number }):
    Result<{ generated: NextToken[]; cacheBytes: number }>;
}

/**
 * Opens a .safetensors checkpoint (GPT-2 or nanoGPT naming, F32/F16/BF16) or an attnlab asset
 * (told apart by the first bytes) in its own WebAssembly instance. `config`: config.json's text or
 * object, and/or {heads}. Rejects with the reason on bytes or a config that do not make a model.
 */
export function openModel(bytes: ArrayBuffer | ArrayBufferView, config?: string | CheckpointConfig,
                          options?: { wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module }): Promise<Checkpoint>;
