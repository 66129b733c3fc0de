import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleProcess, startConsoleProcess } from './support/console-process.js';

// `armature inspect --ui` (the example app, built) and `armature dev --ui` (a fixture app, from its
// sources) in Debian's Chromium, as a user runs them: the CLI serves the apps, and the page (the official MCP client in the browser) browses, calls and watches
// them. The fixture is copied next to this file (so it resolves @armature/core from this package)
// and edited there, to watch the dev loop restart it.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
];
const HERE = fileURLToPath(new URL('.', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../apps/example', import.meta.url));
// What the page looks like after the calls above (docs/images/console.png is a copy of one).
const SCREENSHOT = join(HERE, '.output', 'console.png');
const WAIT_MS = 20_000;
const RESTART_MS = 90_000;

let browser: Browser;
let example: ConsoleProcess;
let fixture: ConsoleProcess;
let fixtureDir: string;
const problems: string[] = [];

async function open(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Offline: the page asks nothing of any other host (no CDN, no fonts, no telemetry).
  const origin = new URL(url).origin;
  page.on('request', (request) => {
    if (!/^(data|blob|about):/.test(request.url()) && new URL(request.url()).origin !== origin)
      problems.push(`request to ${request.url()}`);
  });
  await page.goto(url);
  // The server may still be starting (vite-node, on a busy machine).
  await page.locator('#status', { hasText: /^connected/ }).waitFor({ timeout: RESTART_MS });
  return page;
}

async function pick(page: Page, key: string): Promise<void> {
  await page.locator(`[data-item="${key}"]`).click();
  await page.locator(`[data-detail="${key}"]`).waitFor();
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `console-browser: no Chromium at ${CHROMIUM}. Fix: apt-get update && apt-get install -y chromium (.ci/install-chromium.sh does it).`,
    );
  }
  fixtureDir = mkdtempSync(join(HERE, '.work-'));
  cpSync(join(HERE, 'fixture'), fixtureDir, { recursive: true });
  // The example as a built app (apps/example/dist, plain node), the fixture from its sources (vite-node).
  [example, fixture] = await Promise.all([
    startConsoleProcess(EXAMPLE, ['inspect', 'dist/app.js', '--ui']),
    startConsoleProcess(fixtureDir, ['dev', '--ui']),
  ]);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([example?.stop(), fixture?.stop()]);
  if (fixtureDir) rmSync(fixtureDir, { recursive: true, force: true });
}, 60_000);

describe('the console against the example app', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(example.url);
  }, 120_000);
  afterAll(() => page?.close());

  it('lists the catalogue with descriptions and annotations, and the search box filters it', async () => {
    await page.locator('[data-item="tool:quote_order"]').waitFor();
    expect(await page.locator('#status').textContent()).toBe('connected · 2025-11-25');
    await page.fill('#search', 'swatch');
    await expect
      .poll(() => page.locator('aside .entry').allTextContents())
      .toEqual(['render_swatchRenders a square PNG swatch of one colour, to preview it.']);
    await page.fill('#search', '');
    await pick(page, 'tool:get_price');
    const badges = await page.locator('.badges').textContent();
    expect(badges).toContain('readOnlyHint: true');
    expect(badges).toContain('idempotentHint: true');
  });

  it("a nested DTO form: the server's validation message shows at the field it names, and a valid call answers", async () => {
    await pick(page, 'tool:quote_order');
    // Defaults from the schema are filled in; the nested Address and the OrderLine array get fields.
    expect(await page.locator('[data-path="currency"] select').inputValue()).not.toBe('');
    await page.fill('[id="call-shipTo.country"]', 'France');
    await page.fill('[id="call-shipTo.postcode"]', '75001');
    await page.click('text=add lines item');
    await page.fill('[id="call-lines.0.sku"]', 'TEA-001');
    await page.click('#call');
    const error = page.locator('[data-path="shipTo.country"] .field-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('must be a two-letter country code such as FR');
    expect(await page.locator('.field-error').count()).toBe(1);
    expect(await page.locator('#result').textContent()).toContain('Invalid arguments for tool "quote_order":');

    await page.fill('[id="call-shipTo.country"]', 'FR');
    await page.click('#call');
    await page.locator('#result .structured', { hasText: '"total"' }).waitFor();
    expect(await page.locator('.field-error').count()).toBe(0);
  });

  it('a call with progress and a log line, and its trace with the handler span', async () => {
    await pick(page, 'tool:count_down');
    await page.fill('#call-steps', '4');
    await page.fill('#call-delayMs', '400');
    await page.click('#call');
    await page.locator('.progress progress').waitFor();
    await expect.poll(() => page.locator('.progress span').textContent()).toMatch(/^[1-3] \/ 4 [1-3] to go$/);
    await page.locator('.log-line', { hasText: 'count_down: 4 steps of 400 ms' }).waitFor();
    await page.locator('#result', { hasText: 'Lift-off after 4 steps' }).waitFor();
    const span = page.locator('#trace .span-name', { hasText: 'execute_tool count_down' });
    await span.waitFor();
    await page.locator('#trace .span-name', { hasText: 'tools/call count_down' }).waitFor();
    // The handler's span sits under the request's.
    const indent = (text: string) =>
      page.locator('#trace .span-name', { hasText: text }).evaluate((e) => Number.parseFloat(getComputedStyle(e).paddingLeft));
    expect(await indent('execute_tool count_down')).toBeGreaterThan(await indent('tools/call count_down'));
    // The log level filter hides info lines when only warnings and above are asked for.
    await page.selectOption('#log-level', 'warning');
    expect(await page.locator('.log-line', { hasText: 'count_down: 4 steps' }).count()).toBe(0);
    await page.selectOption('#log-level', 'debug');
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  });

  it('shows an image result', async () => {
    await pick(page, 'tool:render_swatch');
    await page.fill('#call-color', '#2f9e44');
    await page.click('#call');
    const image = page.locator('#result img.image');
    await image.waitFor();
    await expect.poll(() => image.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await page.locator('#result pre.text').textContent()).toContain('swatch of #2f9e44');
  });

  it('cancels a running call', async () => {
    await pick(page, 'tool:count_down');
    await page.fill('#call-steps', '50');
    await page.fill('#call-delayMs', '300');
    await page.click('#call');
    await page.locator('.progress progress').waitFor();
    await page.click('#cancel');
    await page.locator('.run-status.cancelled').waitFor();
    expect(await page.locator('#cancel').isDisabled()).toBe(true);
  });
});

describe('the console against the fixture app', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(fixture.url);
  }, 120_000);
  afterAll(() => page?.close());

  it('a date-time field takes a local date and time and sends an RFC 3339 date-time', async () => {
    await pick(page, 'tool:schedule_delivery');
    expect(await page.getAttribute('#call-at', 'type')).toBe('datetime-local');
    await page.fill('#call-at', '2026-03-01T10:30:00');
    await page.click('#call');
    const sent = await page.evaluate(() => new Date('2026-03-01T10:30:00').toISOString());
    await page.locator('#result', { hasText: `delivery at ${sent}` }).waitFor();
  });

  it('shows every kind of content as it came; a resource link reads the resource', async () => {
    await pick(page, 'tool:media');
    await page.click('#call');
    await page.locator('#result pre.text', { hasText: 'one of each' }).waitFor();
    expect(await page.locator('#result audio').getAttribute('src')).toMatch(/^data:audio\/wav;base64,UklGR/);
    expect(await page.locator('#result .embedded').textContent()).toContain('packed with care');
    await page.locator('#result .link a', { hasText: 'The latest order' }).click();
    await page.locator('[data-detail="resource:memo://orders/latest"] #result', { hasText: 'order 42: three teas' }).waitFor();
  });

  it('an elicitation is answered in the page, on both revisions', async () => {
    for (const revision of ['2025-11-25', '2026-07-28']) {
      await page.selectOption('#revision', revision);
      await page.locator('#status', { hasText: `connected · ${revision}` }).waitFor();
      await pick(page, 'tool:confirm_order');
      await page.click('#call');
      await page.locator('#elicitation', { hasText: 'Confirm the order?' }).waitFor();
      await page.selectOption('#elicit-confirm', 'true');
      await page.fill('#elicit-signer', `Ada ${revision}`);
      await page.click('#elicit-accept');
      await page.locator('#result', { hasText: `confirmed: true by Ada ${revision}` }).waitFor();
      await page
        .locator('.log-line', { hasText: 'confirm_order: asking the user' })
        .nth(revision === '2025-11-25' ? 0 : 1)
        .waitFor();
    }
    await page.selectOption('#revision', '2025-11-25');
    await page.locator('#status', { hasText: 'connected · 2025-11-25' }).waitFor();
  });

  it('a sampling request is answered by hand, and the roots set in the page reach the server', async () => {
    await pick(page, 'tool:name_order');
    await page.click('#call');
    await page.locator('#sampling', { hasText: 'Name this order in three words' }).waitFor();
    await page.fill('#sample-reply', 'The Green Box');
    await page.click('#sample-send');
    await page.locator('#result', { hasText: 'named: The Green Box' }).waitFor();

    await page.fill('#roots', 'file:///srv/shop\nfile:///srv/tea');
    await page.click('#roots-save');
    await pick(page, 'tool:list_roots');
    await page.click('#call');
    await page.locator('#result', { hasText: 'file:///srv/shop\nfile:///srv/tea' }).waitFor();
  });

  it('a task: its status timeline, its question answered in the page, and a cancel from the page', async () => {
    await pick(page, 'tool:export_orders');
    // What Armature knows and the list does not say: Class.method and tags; the search finds tags.
    expect(await page.locator('.badges .badge').allTextContents()).toEqual(['FixtureServer.export_orders', '#orders', 'tasks: optional']);
    await page.fill('#search', '#orders');
    expect(await page.locator('aside .entry-name').allTextContents()).toEqual(['export_orders']);
    await page.fill('#search', '');
    await page.check('#as-task');
    await page.fill('#call-parts', '3');
    await page.click('#call');
    await page
      .locator('#task .task-status.working', { hasText: /part \d of 3/ })
      .first()
      .waitFor();
    await page.locator('#elicitation', { hasText: 'Which format?' }).waitFor();
    await page.locator('#task .task-status.input_required').waitFor();
    await page.selectOption('#elicit-format', 'json');
    await page.click('#elicit-accept');
    await page.locator('#result', { hasText: 'exported 3 parts as json' }).waitFor();
    const statuses = await page.locator('#task .task-status b').allTextContents();
    expect(statuses[0]).toBe('working');
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');

    await page.fill('#call-parts', '50');
    await page.click('#call');
    await page.locator('#task .task-status.working').first().waitFor();
    await page.click('#cancel');
    await page.locator('#task .task-status.cancelled').waitFor();
    await page.locator('#result.error').waitFor();
    expect(await page.locator('#elicitation').count()).toBe(0);
  });

  it('an MCP App renders in a sandboxed frame, and a click in it calls the server', async () => {
    await pick(page, 'tool:add');
    await page.fill('#call-by', '5');
    await page.click('#call');
    const frame = page.frameLocator('#app-frame');
    await frame.locator('#total', { hasText: /^5$/ }).waitFor();
    expect(await page.locator('#app-frame').getAttribute('sandbox')).toBe('allow-scripts');
    await frame.locator('#add:not([disabled])').click();
    await frame.locator('#total', { hasText: /^6$/ }).waitFor();
    // The server's own state moved: the next call continues from the app's.
    await page.fill('#call-by', '1');
    await page.click('#call');
    await page.locator('#result .structured', { hasText: '"total": 7' }).waitFor();
  });

  it('a source edit restarts the server: a start-up error shows its code and fix, then the page reconnects with the form kept', {
    timeout: 240_000,
  }, async () => {
    await pick(page, 'tool:add');
    await page.fill('#call-by', '42');
    // Context imported as a type: its parameter no longer reflects, and the app cannot start.
    const app = join(fixtureDir, 'src', 'app.ts');
    const source = readFileSync(app, 'utf8');
    const broken = source.replace(/(import \{[^}]*?)\bContext\b/, '$1type Context');
    expect(broken).not.toBe(source);
    writeFileSync(app, broken);
    const failure = page.locator('#startup-error');
    // A restart runs vite-node again: seconds on a busy machine.
    await failure.waitFor({ timeout: RESTART_MS });
    expect(await failure.locator('.code').first().textContent()).toBe('ARM201');
    expect(await failure.textContent()).toContain('FixtureServer.confirm_order');
    expect(await failure.locator('.fix').first().textContent()).toContain('Fix: declare the DTO as a class');

    // The fix saved, and the greeting edited: the server is back with the new description.
    writeFileSync(join(fixtureDir, 'src', 'greeting.ts'), "export const GREETING = 'Hello again, edited';\n");
    writeFileSync(app, source);
    await page.locator('[data-item="tool:greet"]', { hasText: 'Hello again, edited' }).waitFor({ timeout: RESTART_MS });
    await page.locator('#status', { hasText: /^connected/ }).waitFor();
    expect(await failure.count()).toBe(0);
    expect(await page.inputValue('#call-by')).toBe('42');
    await page.click('#call');
    await page.locator('#result .structured', { hasText: /"total": \d+/ }).waitFor();
  });

  it('shows no page errors, and the page asked no other host for anything', () => {
    expect(problems).toEqual([]);
  });
});
