// scripts/count-results.mjs: what `npm test` counts as passed, failed and not run in the JUnit files
// of ctest and node --test. CI has no PyTorch, so the PyTorch check is skipped there: a skip must
// not count as a failure (it did, and CI failed with "1437 passed, 1 failed").
import test from 'node:test';
import assert from 'node:assert/strict';
import { countTests, parseXml } from '../../scripts/count-results.mjs';

const ctestCase = (name, status, child = '') =>
  `<testcase name="${name}" classname="${name}" time="0.1" status="${status}">${child}<system-out></system-out></testcase>`;

test('ctest: run passes; fail and a command that never started fail; a skip and a disabled test are not counted', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><testsuite name="(empty)" tests="5">
    ${ctestCase('passes', 'run')}
    ${ctestCase('fails', 'fail', '<failure message="Failed"/>')}
    ${ctestCase('never_started', 'notrun', '<failure message="Could not find executable"/>')}
    ${ctestCase('lm.torch_regenerate', 'notrun', '<skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>')}
    ${ctestCase('off', 'disabled')}
  </testsuite>`;
  assert.deepEqual(countTests(parseXml(xml)), { passed: 1, failed: 2, skipped: 2 });
});

test('node --test: a failure or error fails, a skip is not counted, a suite failure counts once more', () => {
  const xml = `<testsuites>
    <testcase name="a"/>
    <testcase name="b"><failure type="testCodeFailure" message="x"/></testcase>
    <testcase name="c"><skipped type="skipped" message="no torch"/></testcase>
    <testsuite name="s"><testcase name="d"/><testcase name="e"><error message="y"/></testcase>
      <failure message="hook failed"/></testsuite>
  </testsuites>`;
  assert.deepEqual(countTests(parseXml(xml)), { passed: 2, failed: 3, skipped: 1 });
});
