// Rewrites the prototype relaxed-SIMD fused multiply-add that clang 14 emits into the standard one.
//
//   node --experimental-wasm-relaxed-simd scripts/wasm_relaxed_opcodes.mjs [--wasm-opt PATH] FILE.wasm...
//
// Why: Debian bookworm's emscripten 3.1.6 (clang 14) has no wasm_f32x4_relaxed_madd; its builtin
// __builtin_wasm_fma_f32x4 emits the prototype's f32x4.fma, 0xfd 0xaf 0x01 (LEB128 175), which no
// engine accepts any more. The standard f32x4.relaxed_madd is 0xfd 0x85 0x02 (LEB128 261): the same
// length, so the rewrite is in place and no section or function size changes. The standard
// instruction computes a·b + c from the operands in stack order; clang passes the builtin's (a, b, c)
// in that order (tests/e2e/wasm_relaxed.test.mjs pins it with a = 2, b = 3, c = 5 → 11, not 17).
//
// The code section is decoded instruction by instruction (every opcode of the MVP, sign extension,
// the 0xfc prefix and SIMD128), so a byte pattern inside an immediate (a constant, an offset) is never
// taken for an opcode. Anything it does not know is an error, and so is every other prototype
// relaxed opcode (f32x4.fms, f64x2.fma, laneselect, relaxed min/max/swizzle/trunc): only the one
// rewrite whose meaning is checked is done. When the running engine supports relaxed SIMD, the result
// must pass WebAssembly.validate before it is written. With --wasm-opt (binaryen's, which reads the
// prototype opcode as f32x4.relaxed_fma), the number rewritten must equal the number binaryen prints:
// a second, independent decoder agrees on what was found.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relaxedSimdAvailable } from '../web/bindings/relaxed_simd.mjs';

export const PROTOTYPE_F32X4_FMA = 0xaf;       // 175, LEB128 0xaf 0x01
export const STANDARD_F32X4_RELAXED_MADD = 0x105;  // 261, LEB128 0x85 0x02

// The 0xfd sub-opcodes clang 14 used for the relaxed-SIMD prototype (gaps in the final SIMD128 table).
const PROTOTYPE_NAMES = new Map([
  [0xa2, 'i8x16.relaxed_swizzle'], [0xa5, 'i32x4.relaxed_trunc_f32x4_s'], [0xa6, 'i32x4.relaxed_trunc_f32x4_u'],
  [0xaf, 'f32x4.fma'], [0xb0, 'f32x4.fms'], [0xb2, 'i8x16.laneselect'], [0xb3, 'i16x8.laneselect'],
  [0xb4, 'f32x4.relaxed_min'], [0xc5, 'i32x4.relaxed_trunc_f64x2_s_zero'], [0xc6, 'i32x4.relaxed_trunc_f64x2_u_zero'],
  [0xcf, 'f64x2.fma'], [0xd0, 'f64x2.fms'], [0xd2, 'i32x4.laneselect'], [0xd3, 'i64x2.laneselect'],
  [0xd4, 'f64x2.relaxed_min'], [0xe2, 'f32x4.relaxed_max'], [0xee, 'f64x2.relaxed_max'],
]);

// The final SIMD128 sub-opcodes by their immediates. Unused slots (where the prototypes above lived,
// and the few never assigned) are absent, so they are refused.
const SIMD_MEMARG = new Set([...range(0x00, 0x0b), 0x5c, 0x5d]);  // loads, splat loads, store, load_zero
const SIMD_MEMARG_LANE = new Set(range(0x54, 0x5b));               // load/store lane
const SIMD_LANE = new Set(range(0x15, 0x22));                      // extract/replace lane
const SIMD_UNUSED = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6,
                             0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);
// Standard relaxed SIMD (0x100…0x113), no immediates: passed through (a file rewritten once may be
// read again).
const RELAXED_STANDARD = new Set(range(0x100, 0x113));

function range(first, last) {
  const out = [];
  for (let i = first; i <= last; ++i) out.push(i);
  return out;
}

class Reader {
  constructor(bytes, pos, end) {
    this.b = bytes;
    this.pos = pos;
    this.end = end;
  }
  fail(what) {
    throw new Error(`wasm_relaxed_opcodes: ${what} at byte ${this.pos}`);
  }
  byte() {
    if (this.pos >= this.end) this.fail('unexpected end');
    return this.b[this.pos++];
  }
  u32() {  // unsigned LEB128, at most 5 bytes
    let result = 0, shift = 0;
    for (let i = 0; i < 5; ++i) {
      const x = this.byte();
      result += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return result;
      shift += 7;
    }
    this.fail('LEB128 longer than 5 bytes');
  }
  signed(maxBytes) {  // signed LEB128 (s32, s33, s64): skipped, the value is not needed
    for (let i = 0; i < maxBytes; ++i) if (!(this.byte() & 0x80)) return;
    this.fail(`signed LEB128 longer than ${maxBytes} bytes`);
  }
  skip(n) {
    if (this.pos + n > this.end) this.fail('unexpected end');
    this.pos += n;
  }
  memarg() {
    this.u32();  // alignment (bit 6 would name a memory index under multi-memory: not emitted here)
    this.u32();  // offset
  }
  blockType() {
    const x = this.b[this.pos];
    if (x === 0x40 || (x >= 0x7b && x <= 0x7f) || x === 0x70 || x === 0x6f) this.pos += 1;  // empty or a value type
    else this.signed(5);  // a type index (s33)
  }
}

// Decodes one function body [pos, end); returns {sites: the offsets of the prototype f32x4.fma
// sub-opcodes (the byte after 0xfd) to rewrite, madds: how many standard relaxed_madd it holds}.
// Throws on anything unknown.
function scanBody(bytes, pos, end, funcIndex) {
  const r = new Reader(bytes, pos, end);
  const localGroups = r.u32();
  for (let i = 0; i < localGroups; ++i) {
    r.u32();
    r.byte();
  }
  const sites = [];
  let madds = 0, depth = 1;  // the function's own block, closed by its last `end`
  while (depth > 0) {
    const at = r.pos;
    const op = r.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04) {  // block, loop, if
      r.blockType();
      ++depth;
    } else if (op === 0x0b) {
      --depth;
    } else if (op <= 0x01 || op === 0x05 || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1 ||
               (op >= 0x45 && op <= 0xc4)) {
      // unreachable, nop, else, return, drop, select, ref.is_null, numeric and sign extension: no immediates
    } else if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || (op >= 0x20 && op <= 0x26) ||
               op === 0xd2) {
      r.u32();  // br, br_if, call, return_call, local/global/table get/set/tee, ref.func: one index
    } else if (op === 0x0e) {  // br_table
      const n = r.u32();
      for (let i = 0; i <= n; ++i) r.u32();
    } else if (op === 0x11 || op === 0x13) {  // call_indirect, return_call_indirect: type, table
      r.u32();
      r.u32();
    } else if (op === 0x1c) {  // select t*
      const n = r.u32();
      r.skip(n);
    } else if (op >= 0x28 && op <= 0x3e) {
      r.memarg();
    } else if (op === 0x3f || op === 0x40) {  // memory.size, memory.grow: memory index
      r.u32();
    } else if (op === 0x41) {
      r.signed(5);
    } else if (op === 0x42) {
      r.signed(10);
    } else if (op === 0x43) {
      r.skip(4);
    } else if (op === 0x44) {
      r.skip(8);
    } else if (op === 0xd0) {  // ref.null t
      r.byte();
    } else if (op === 0xfc) {
      const sub = r.u32();
      if (sub <= 7) {
        // saturating truncations
      } else if (sub === 8) {  // memory.init data, memory
        r.u32();
        r.u32();
      } else if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) {
        r.u32();  // data.drop, memory.fill, elem.drop, table.grow/size/fill
      } else if (sub === 10 || sub === 12 || sub === 14) {
        r.u32();  // memory.copy, table.init, table.copy: two indices
        r.u32();
      } else {
        r.pos = at;
        r.fail(`unknown opcode 0xfc ${sub} in function ${funcIndex}`);
      }
    } else if (op === 0xfd) {
      const subAt = r.pos;
      const sub = r.u32();
      if (sub === PROTOTYPE_F32X4_FMA) {
        if (r.pos - subAt !== 2) r.fail(`prototype f32x4.fma with a ${r.pos - subAt}-byte opcode (expected 2)`);
        sites.push(subAt);
      } else if (PROTOTYPE_NAMES.has(sub)) {
        r.pos = at;
        r.fail(`prototype relaxed-SIMD ${PROTOTYPE_NAMES.get(sub)} (0xfd ${sub}) in function ${funcIndex}: ` +
               'only f32x4.fma is rewritten (its meaning is tested); do not use this builtin');
      } else if (SIMD_MEMARG.has(sub)) {
        r.memarg();
      } else if (SIMD_MEMARG_LANE.has(sub)) {
        r.memarg();
        r.byte();
      } else if (SIMD_LANE.has(sub)) {
        r.byte();
      } else if (sub === 0x0c || sub === 0x0d) {  // v128.const, i8x16.shuffle
        r.skip(16);
      } else if ((sub >= 0x0e && sub <= 0xff && !SIMD_UNUSED.has(sub)) || RELAXED_STANDARD.has(sub)) {
        if (sub === STANDARD_F32X4_RELAXED_MADD) ++madds;
        // every other SIMD128 instruction and the standard relaxed ones: no immediates
      } else {
        r.pos = at;
        r.fail(`unknown opcode 0xfd ${sub} in function ${funcIndex}`);
      }
    } else {
      r.pos = at;
      r.fail(`unknown opcode 0x${op.toString(16)} in function ${funcIndex}`);
    }
  }
  if (r.pos !== end) r.fail(`function ${funcIndex} ends at byte ${r.pos}, its size says ${end}`);
  return { sites, madds };
}

// Rewrites `bytes` (a Uint8Array, changed in place): returns {rewritten: how many prototype f32x4.fma
// became f32x4.relaxed_madd, relaxedMadd: how many f32x4.relaxed_madd the module holds now}.
export function rewriteRelaxedOpcodes(bytes) {
  const top = new Reader(bytes, 0, bytes.length);
  const magic = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (!magic.every((x) => top.byte() === x)) throw new Error('wasm_relaxed_opcodes: not a WebAssembly 1 module');
  let imports = 0, rewritten = 0, relaxedMadd = 0, sawCode = false;
  while (top.pos < bytes.length) {
    const id = top.byte();
    const size = top.u32();
    const start = top.pos, end = start + size;
    if (end > bytes.length) top.fail(`section ${id} runs past the end of the file`);
    if (id === 2) {  // imports: function imports come first in the function index space
      const s = new Reader(bytes, start, end);
      const count = s.u32();
      for (let i = 0; i < count; ++i) {
        s.skip(s.u32());  // module
        s.skip(s.u32());  // name
        const kind = s.byte();
        if (kind === 0x00) {
          s.u32();
          ++imports;
        } else if (kind === 0x01) {  // table: reftype, limits
          s.byte();
          if (s.byte() & 1) s.u32();
          s.u32();
        } else if (kind === 0x02) {  // memory: limits
          if (s.byte() & 1) s.u32();
          s.u32();
        } else if (kind === 0x03) {  // global: valtype, mutability
          s.byte();
          s.byte();
        } else s.fail(`unknown import kind ${kind}`);
      }
    } else if (id === 10) {
      sawCode = true;
      const s = new Reader(bytes, start, end);
      const count = s.u32();
      for (let i = 0; i < count; ++i) {
        const bodySize = s.u32();
        const bodyStart = s.pos;
        const { sites, madds } = scanBody(bytes, bodyStart, bodyStart + bodySize, imports + i);
        for (const at of sites) {
          bytes[at] = 0x85;  // 261 = 0x05 | 0x80, then 261 >> 7 = 2
          bytes[at + 1] = 0x02;
        }
        rewritten += sites.length;
        relaxedMadd += madds + sites.length;
        s.pos = bodyStart + bodySize;
      }
      if (s.pos !== end) s.fail('code section size does not match its bodies');
    }
    top.pos = end;
  }
  if (!sawCode) throw new Error('wasm_relaxed_opcodes: no code section');
  return { rewritten, relaxedMadd };
}


// How many prototype f32x4.fma binaryen's wasm-opt finds in `file` (it prints them as f32x4.relaxed_fma).
export function countWithWasmOpt(wasmOpt, file) {
  const text = execFileSync(wasmOpt, ['--all-features', '--print', file],
                            { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  return (text.match(/\(f32x4\.relaxed_fma\b/g) ?? []).length;
}

function main(args) {
  let wasmOpt = null;
  const files = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--wasm-opt') wasmOpt = args[++i];
    else files.push(args[i]);
  }
  if (!files.length) {
    throw new Error('usage: node --experimental-wasm-relaxed-simd scripts/wasm_relaxed_opcodes.mjs [--wasm-opt PATH] FILE.wasm...');
  }
  const canValidate = relaxedSimdAvailable();
  for (const file of files) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const binaryen = wasmOpt ? countWithWasmOpt(wasmOpt, file) : null;
    const { rewritten } = rewriteRelaxedOpcodes(bytes);
    if (binaryen !== null && binaryen !== rewritten) {
      throw new Error(`wasm_relaxed_opcodes: ${file}: ${rewritten} rewritten, but wasm-opt prints ${binaryen} f32x4.relaxed_fma`);
    }
    if (canValidate && !WebAssembly.validate(bytes)) {
      throw new Error(`wasm_relaxed_opcodes: ${file} does not validate after the rewrite`);
    }
    fs.writeFileSync(file, bytes);
    console.log(`wasm_relaxed_opcodes: ${path.basename(file)}: ${rewritten} f32x4.fma → f32x4.relaxed_madd` +
                (binaryen !== null ? ' (wasm-opt counts the same)' : '') +
                (canValidate ? ', validates' : ' (not validated: run node with --experimental-wasm-relaxed-simd)'));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
