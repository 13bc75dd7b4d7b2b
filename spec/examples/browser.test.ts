/**
 * examples/browser in headless Chromium (Debian's `chromium` package, driven by puppeteer-core, which downloads no
 * browser): the page, on one origin, loads the official client (@modelcontextprotocol/client) as ES modules and
 * calls the MCP server on another origin through CORS. Set CHROMIUM_PATH to use another Chromium binary.
 */
import express from 'express';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser } from 'puppeteer-core';
import { pageHtml } from '../../examples/browser/page';
import { startBrowserExample, type RunningBrowserExample } from '../../examples/browser/server';
import { vendorClient } from '../../examples/browser/vendor';

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file): file is string => !!file && fs.existsSync(file));
/**
 * Runs the suite where Chromium is installed. Without it: a failing test under REQUIRE_CHROMIUM=1 (CI installs it),
 * else skipped with a notice (a fresh machine's `npm test` passes without a browser).
 */
function describeWithChromium(name: string, body: () => void): void {
  if (chromium) return describe(name, body);
  const missing = 'This suite needs Chromium: apt-get install -y chromium (or set CHROMIUM_PATH)';
  if (process.env.REQUIRE_CHROMIUM === '1') {
    test(name, () => {
      throw new Error(missing);
    });
    return;
  }
  console.warn(`${missing}; skipping "${name}". Set REQUIRE_CHROMIUM=1 to make this an error.`);
  describe.skip(name, body);
}

describeWithChromium('the browser example in headless Chromium', () => {

  let example: RunningBrowserExample;
  let browser: Browser;
  const requests: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    example = await startBrowserExample({ port: 0, pagePort: 0, host: '127.0.0.1' });
    browser = await puppeteer.launch({
      executablePath: chromium!,
      headless: true,
      // Root in CI containers: Chromium's sandbox needs user namespaces it does not get there.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await example?.close();
  });

  test('the page calls the server on another origin with the official client, through CORS', async () => {
    const page = await browser.newPage();
    page.on('request', (request) => {
      if (request.url().startsWith(example.mcpUrl)) requests.push({ method: request.method(), url: request.url() });
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(example.pageUrl);
    await page.waitForFunction(() => (globalThis as unknown as { mcpReport?: unknown }).mcpReport !== undefined, { timeout: 30_000 });
    const report = await page.evaluate(() => (globalThis as unknown as { mcpReport: unknown }).mcpReport);
    expect(errors).toEqual([]);
    expect(report).toEqual({
      // The session id came from a response header the page could read only because it is exposed.
      sessionId: expect.stringMatching(/^[\x21-\x7e]+$/),
      tools: ['add'],
      text: '5',
      structuredContent: { sum: 5 },
    });
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('done');
    // Cross-origin with custom headers: the browser asked first (preflight), then POSTed, and ended with a DELETE.
    const methods = requests.map((request) => request.method);
    expect(methods).toEqual(expect.arrayContaining(['POST', 'DELETE']));
    expect(new URL(example.pageUrl).origin).not.toBe(new URL(example.mcpUrl).origin);
    await page.close();
  }, 60_000);

  test('the same page on an origin the server does not list is refused (no CORS grant)', async () => {
    // The example's page and vendored client, served from a second origin the MCP server's cors.origins does not name.
    const vendor = vendorClient();
    const other = express();
    other.get('/', (_req, res) => {
      res.type('html').send(pageHtml(example.mcpUrl, vendor.importMap));
    });
    other.use(vendor.router);
    const http = await new Promise<Server>((resolve) => {
      const s = other.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => (globalThis as unknown as { mcpReport?: unknown }).mcpReport !== undefined, { timeout: 30_000 });
      const report = (await page.evaluate(() => (globalThis as unknown as { mcpReport: unknown }).mcpReport)) as { error?: string; sessionId?: string };
      expect(report.sessionId).toBeUndefined();
      expect(report.error).toEqual(expect.any(String));
      expect(await page.$eval('#status', (element) => element.textContent)).toMatch(/^failed: /);
      await page.close();
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  }, 60_000);
});
