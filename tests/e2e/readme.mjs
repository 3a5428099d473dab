// README.md as a newcomer reads it: its code blocks as printed, and the numbers it quotes from the
// build, so tests can run the one and check the other against what the build gives.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const readme = readFileSync(join(root, 'README.md'), 'utf8');

// Every fenced block of `lang` (```html, ```ts, …), in order, without the fences.
export function codeBlocks(lang, text = readme) {
  return [...text.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]);
}

// The Content-Security-Policy README recommends for a post (the one in backticks after "Content-Security-Policy: ").
export function readmeCsp(text = readme) {
  const m = text.match(/`Content-Security-Policy: ([^`]+)`/);
  if (!m) throw new Error('README quotes no Content-Security-Policy');
  return m[1];
}

// The number README prints right after `phrase` (a RegExp whose first group is the number, commas
// allowed: "1,915"). Throws when README no longer has the phrase, so a reworded sentence is noticed.
export function quoted(pattern, text = readme) {
  const m = text.match(pattern);
  if (!m) throw new Error(`README no longer matches ${pattern}`);
  return Number(m[1].replace(/,/g, ''));
}

// A README number agrees with the build when it is the measured value rounded as printed, give or
// take 3% (a size moves a little with every change; the 362 KiB README said of a 402 KiB file is 11% off).
export function agrees(printed, measured) {
  return Math.abs(printed - measured) <= Math.max(1, 0.03 * measured);
}
