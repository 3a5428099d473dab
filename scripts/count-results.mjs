#!/usr/bin/env node
// Counts passed and failed tests in JUnit XML files, as written by `ctest --output-junit` and by
// `node --test --test-reporter=junit`. Prints "<passed> <failed>" (the sums over every file) on
// stdout and one line per file on stderr; scripts/test.sh adds these up.
//
//   node scripts/count-results.mjs build/test-logs/native-release-ctest.xml ...
//
// A test is one <testcase>. ctest gives each a status: "run" passed; "fail" and "notrun" (its
// command could not start, e.g. a test binary that failed to build) failed, as ctest counts them;
// "disabled", and "notrun" with a <skipped> child (SKIP_REGULAR_EXPRESSION or SKIP_RETURN_CODE
// matched: e.g. the PyTorch check on a machine without torch), are not counted. Node's testcases have no status: a <failure> or <error> child failed,
// a <skipped> child (skip, todo) is not counted, anything else passed. A node test with subtests
// becomes a <testsuite> holding them: its subtests are counted, and a <failure> of its own counts
// as one more failed test. A file that is missing, empty or not XML counts as one failed test: the
// stage that should have written it did not finish.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The element tree of an XML document: { name, attrs, children }. Enough XML for JUnit files:
// comments, CDATA, processing instructions and text are dropped; attribute values are unescaped.
export function parseXml(text) {
  const root = { name: '#document', attrs: {}, children: [] };
  const stack = [root];
  const body = text.replace(/<!--[\s\S]*?-->/g, '').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '').replace(/<!DOCTYPE[^>]*>/gi, '');
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  const attr = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  const unescape = (s) => s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[\da-f]+);/gi, (m, e) =>
    ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e.toLowerCase()] ??
    String.fromCodePoint(e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));
  let m;
  let elements = 0;
  while ((m = tag.exec(body))) {
    const [, closing, name, attrText, selfClosing] = m;
    if (closing) {
      if (stack.length < 2 || stack[stack.length - 1].name !== name) throw new Error(`unexpected </${name}>`);
      stack.pop();
      continue;
    }
    const node = { name, attrs: {}, children: [] };
    for (const a of attrText.matchAll(attr)) node.attrs[a[1]] = unescape(a[2] ?? a[3]);
    stack[stack.length - 1].children.push(node);
    ++elements;
    if (!selfClosing) stack.push(node);
  }
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].name}> is not closed`);
  if (!elements) throw new Error('no XML elements');
  return root;
}

// { passed, failed, skipped } of one JUnit document.
export function countTests(root) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const has = (node, ...names) => node.children.some((c) => names.includes(c.name));
  const visit = (node) => {
    if (node.name === 'testcase') {
      const status = node.attrs.status;
      if (status === 'run') ++counts.passed;
      else if (status === 'notrun' && has(node, 'skipped')) ++counts.skipped;
      else if (status === 'fail' || status === 'notrun') ++counts.failed;
      else if (status === 'disabled') ++counts.skipped;
      else if (has(node, 'failure', 'error')) ++counts.failed;
      else if (has(node, 'skipped')) ++counts.skipped;
      else ++counts.passed;
      return;
    }
    if (node.name === 'testsuite' && has(node, 'failure', 'error')) ++counts.failed;
    node.children.forEach(visit);
  };
  visit(root);
  return counts;
}

function main(files) {
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    let counts;
    try {
      counts = countTests(parseXml(readFileSync(file, 'utf8')));
    } catch (e) {
      console.error(`count-results: ${file}: ${e.code === 'ENOENT' ? 'missing' : e.message}: counted as 1 failed`);
      counts = { passed: 0, failed: 1, skipped: 0 };
    }
    console.error(`count-results: ${file}: ${counts.passed} passed, ${counts.failed} failed` +
      (counts.skipped ? `, ${counts.skipped} not run (skipped or disabled)` : ''));
    passed += counts.passed;
    failed += counts.failed;
  }
  console.log(`${passed} ${failed}`);
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
