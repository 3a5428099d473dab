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

// Serves `dir` (default the built page) and launches headless Chromium.
export async function openBrowser(dir = siteDir) {
  const server = await serve(dir, { port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
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
export async function openPage(session, { width = 1200, height = 800, dpr = 1, hash = '', touch = false, colorScheme = 'dark',
                                          waitForVectors = true } = {}) {
  const page = await session.browser.newPage({ viewport: { width, height }, deviceScaleFactor: dpr, hasTouch: touch, isMobile: touch, colorScheme });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(session.url + hash);
  await page.waitForSelector('html[data-ready=true]', { timeout: 30000 });
  // The GloVe asset arrives after the first frame (when a view of words is shown); most tests want it.
  if (waitForVectors) await page.waitForFunction(() => window.attnlab.view().wordVectorsLoaded, null, { timeout: 30000 });
  await settle(page);
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

export async function screenshot(page, name) {
  await mkdir(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

// Waits until the app has drawn every frame its input asked for (it draws only when something changed).
export async function settle(page) {
  await page.waitForFunction(() => window.attnlab.idle(), null, { polling: 'raf', timeout: 10000 });
}
