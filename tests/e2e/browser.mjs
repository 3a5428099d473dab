// Shared set-up for the browser tests: serve the built page, open it in headless Chromium,
// and record every console error, page error and failed request.
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const siteDir = process.env.ATTN_SITE_DIR || join(root, 'build/wasm/site');
export const screenshotDir = process.env.ATTN_SCREENSHOT_DIR || join(root, 'build/e2e');

// The tests assert results, states, pixels and counts, never how long something took (the speed and
// frame-time targets are in `npm run bench`). A wait for real work (a page load, training, a sweep)
// has no deadline of its own but this hang guard, far above what any plausible machine needs: it only
// turns a hang into a failure. Every page opened through newPage() waits this long by default.
export const HANG_GUARD_MS = 5 * 60 * 1000;

// ATTN_CPU_THROTTLE=4 runs every page as on a CPU 4× slower than this one (Chromium's
// Emulation.setCPUThrottlingRate): to check that no test depends on the machine's speed.
export const cpuThrottleRate = Number(process.env.ATTN_CPU_THROTTLE || 1);
if (!(cpuThrottleRate >= 1)) throw new Error(`ATTN_CPU_THROTTLE: expected a rate ≥ 1, got '${process.env.ATTN_CPU_THROTTLE}'`);

// Headless Chromium as every browser test launches it.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Every page a test opens comes from here: `owner` is a browser or a browser context. The page gets
// the hang guard as its default timeout and, under ATTN_CPU_THROTTLE, the slower CPU before it loads.
export async function newPage(owner, options) {
  const page = await owner.newPage(options);
  page.setDefaultTimeout(HANG_GUARD_MS);
  if (cpuThrottleRate > 1) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuThrottleRate });
  }
  return page;
}

// Serves `dir` (default the built page) and launches headless Chromium.
export async function openBrowser(dir = siteDir) {
  const server = await serve(dir, { port: 0 });
  const browser = await launchChromium();
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    browser,
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

// Opens the page at the given viewport and waits until the app has started.
// The page follows the system's colour scheme (theme=auto); tests see the dark one unless they ask.
// `context`: open it in that browser context (its storage shared with the context's other pages; the
// context's viewport), not in a new one.
export async function openPage(session, { width = 1200, height = 800, dpr = 1, hash = '', touch = false, colorScheme = 'dark',
                                          waitForVectors = true, context = null } = {}) {
  const page = await newPage(context ?? session.browser,
                             { viewport: { width, height }, deviceScaleFactor: dpr, hasTouch: touch, isMobile: touch, colorScheme });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(session.url + hash);
  await page.waitForSelector('html[data-ready=true]');
  // The GloVe asset arrives after the first frame (when a view of words is shown); most tests want it.
  if (waitForVectors) await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded);
  await settle(page);
  return { page, problems };
}

// The page as it opens where there is no Web Worker (an older browser, or an <attn-lab> whose files
// are on another origin than its page: the browser refuses such a worker script).
export async function openWithoutWorker(session, hash) {
  const page = await newPage(session.browser, { viewport: { width: 1200, height: 800 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  await page.addInitScript(() => { delete window.Worker; });
  await page.goto(session.url + hash);
  await page.waitForSelector('html[data-ready=true]');
  return { page, problems };
}

// Makes `page` receive `csp` as a real Content-Security-Policy header on every HTML response and
// records every problem in `problems`, CSP violations included (they are reported as events, not
// always as console errors). Returns { page, problems }.
export async function underCsp(page, csp) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    const html = (response.headers()['content-type'] || '').startsWith('text/html');
    await route.fulfill({ response, headers: html ? { ...response.headers(), 'content-security-policy': csp } : response.headers() });
  });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
  return { page, problems };
}

// Opens a state without waiting for the page to go idle (training keeps it busy): the page, dark, at
// the size given, and the console errors and page errors it reports.
export async function openBusy(session, hash, { width = 1280, height = 900, touch = false } = {}) {
  const page = await newPage(session.browser, { viewport: { width, height }, hasTouch: touch, isMobile: touch, colorScheme: 'dark' });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(session.url + hash);
  await page.waitForSelector('html[data-ready=true]');
  return { page, problems };
}

export async function screenshot(page, name) {
  await mkdir(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

// Waits until the app has drawn every frame its input asked for (it draws only when something changed).
// Some inputs ask for many frames of work (the speed view times 60 batches of ≥ 10 ms, one a frame):
// under ATTN_CPU_THROTTLE=4 settles took up to 9.6 s, so only the hang guard bounds it.
export async function settle(page) {
  await page.waitForFunction(() => window.attnlab.idle(), null, { polling: 'raf', timeout: HANG_GUARD_MS });
}
