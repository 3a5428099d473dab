// The build tree the language model's build-time tools share (scripts/build-lm.mjs builds
// attnlab_train_lm in it, scripts/build-lm-heads.mjs attnlab_lm_heads): $ATTN_LM_BUILD_DIR, default
// build/lm, configured once for this machine's CPU (-march=native), tools only, no tests or page.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const build = process.env.ATTN_LM_BUILD_DIR ? resolve(process.env.ATTN_LM_BUILD_DIR) : join(root, 'build/lm');

export const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

// Prepares the corpus (scripts/prepare-brown.mjs), builds `target` and returns its path.
export function buildLmTool(target) {
  run(process.execPath, [join(root, 'scripts/prepare-brown.mjs')]);
  if (!existsSync(join(build, 'CMakeCache.txt')))
    run('cmake', ['-S', root, '-B', build, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_CXX_FLAGS=-march=native -Wno-maybe-uninitialized',
      '-DATTN_BUILD_TOOLS=ON', '-DATTN_BUILD_WEB=OFF', '-DATTN_BUILD_TESTS=OFF']);
  run('cmake', ['--build', build, '--target', target, '--parallel', '2']);
  return join(build, 'lessons', target);
}
