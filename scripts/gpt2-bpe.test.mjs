// The committed GPT-2 BPE data against the installed js-tiktoken (npm test, stage gpt2-bpe): the
// asset's ranks (engine/train/data/gpt2-bpe.bin) and the golden ids the C++ tokenizer is tested on
// (tests/data/gpt2-bpe-golden.txt). After a js-tiktoken upgrade these say what to regenerate; the
// C++ side (ctest Gpt2Bpe.*) needs neither node nor the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = dirname(fileURLToPath(import.meta.url));

for (const script of ['build-gpt2-vocab.mjs', 'build-gpt2-golden.mjs']) {
  test(`${script} --check: the committed file is what js-tiktoken gives`, () => {
    const run = spawnSync(process.execPath, [join(scripts, script), '--check'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
}
