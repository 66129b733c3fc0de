import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_ROOT, listPages, scanPage } from './support/markdown-includes.js';
import { crawlPages, type VisitedPage } from './support/site-crawl.js';
import { type StaticSite, serveStaticSite, siteFileFor } from './support/static-site-server.js';

// The built site (`pnpm --filter @armature/docs docs:build`, which `pnpm test` runs first through turbo)
// in Debian's Chromium: every page, every link, every anchor, one code sample per guide, the search.
const SITE = join(DOCS_ROOT, 'dist');
const OUTPUT = join(DOCS_ROOT, '.site-test-output');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TABS = 2;
// A bound, not a speed target: the crawl of the 136 pages takes about 60 s on an idle two-core
// machine, and more than 80 s on a busy one.
const CRAWL_TIMEOUT_MS = 240_000;
const GUIDES = listPages().filter((page) => page !== 'README.md');

function builtPages(folder = SITE): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : builtPages(path);
    if (!entry.name.endsWith('.html')) return [];
    return [`/${relative(SITE, path).split(sep).join('/')}`.replace(/(^|\/)index\.html$/, '$1')];
  });
}

let site: StaticSite;
let context: BrowserContext;
let profile: string;
let visited: VisitedPage[] = [];
let crawlSeconds = 0;

beforeAll(async () => {
  if (!existsSync(join(SITE, 'index.html'))) {
    throw new Error('site-browser: docs/dist has no built site. Fix: pnpm --filter @armature/docs docs:build (pnpm test builds it first).');
  }
  const stale = listPages().filter((page) => statSync(join(DOCS_ROOT, page)).mtimeMs > statSync(join(SITE, 'index.html')).mtimeMs);
  if (stale.length > 0) {
    throw new Error(
      `site-browser: docs/dist is older than ${stale.join(', ')}. Fix: pnpm --filter @armature/docs docs:build (pnpm test builds it first).`,
    );
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `site-browser: no Chromium at ${CHROMIUM}. Fix: apt-get update && apt-get install -y chromium (.ci/run does it when missing).`,
    );
  }
  rmSync(OUTPUT, { recursive: true, force: true });
  mkdirSync(OUTPUT, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'armature-site-chromium-'));
  const started = performance.now();
  site = await serveStaticSite(SITE);
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const screenshots: Record<string, string> = {
    '/': join(OUTPUT, 'home.png'),
    '/getting-started.html': join(OUTPUT, 'getting-started.png'),
  };
  visited = await crawlPages(context, site.origin, builtPages(), { tabs: TABS, screenshots });
  crawlSeconds = (performance.now() - started) / 1000;
}, CRAWL_TIMEOUT_MS);

afterAll(async () => {
  await context?.close();
  await site?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  const links = new Set(visited.flatMap((page) => page.links));
  const targets = new Set([...links].map((link) => link.split('#')[0]));
  console.info(
    `site-browser: ${visited.length} pages visited, ${links.size} distinct links checked (${targets.size} distinct targets), launch and crawl ${crawlSeconds.toFixed(1)} s`,
  );
});

function pageAt(path: string): VisitedPage | undefined {
  const file = siteFileFor(SITE, path);
  return visited.find((page) => siteFileFor(SITE, page.path) === file);
}

describe('the docs site in headless Chromium', () => {
  it('visits every built page: each answers 200 with no console error, uncaught error or failed request', () => {
    expect(visited.length).toBe(builtPages().length);
    expect(visited.length).toBeGreaterThan(GUIDES.length);
    const failures = visited.flatMap((page) => [
      ...(page.status === 200 ? [] : [`${page.path}: HTTP ${page.status}`]),
      ...page.problems.map((problem) => `${page.path}: ${problem}`),
    ]);
    expect(failures).toEqual([]);
  });

  it('has no broken link: every <a href> inside the site leads to a page that answers 200, and every #anchor exists there', async () => {
    const targets = new Map<string, string>();
    for (const page of visited) for (const link of page.links) if (link.startsWith(`${site.origin}/`)) targets.set(link, page.path);
    expect(targets.size).toBeGreaterThan(visited.length);
    const broken: string[] = [];
    const statuses = new Map<string, number>();
    for (const [link, from] of targets) {
      const url = new URL(link);
      if (!statuses.has(url.pathname)) statuses.set(url.pathname, (await fetch(site.origin + url.pathname, { method: 'HEAD' })).status);
      if (statuses.get(url.pathname) !== 200) {
        broken.push(`${from} -> ${url.pathname}: HTTP ${statuses.get(url.pathname)}`);
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor !== '' && !pageAt(url.pathname)?.ids.has(anchor))
        broken.push(`${from} -> ${url.pathname}${url.hash}: no element with that id`);
    }
    expect(broken).toEqual([]);
  });

  it('links every page from another one, so navigation reaches all of them', () => {
    const linked = new Set(
      visited.flatMap((page) =>
        page.links
          .filter((link) => !link.startsWith(`${site.origin}${page.path}#`))
          .map((link) => siteFileFor(SITE, new URL(link).pathname)),
      ),
    );
    const orphans = visited
      .filter((page) => page.path !== '/404.html' && !linked.has(siteFileFor(SITE, page.path)))
      .map((page) => page.path);
    expect(orphans).toEqual([]);
  });

  it('lists every guide and the API reference of both packages in the navigation of the home page', () => {
    const home = pageAt('/') as VisitedPage;
    const paths = home.links.map((link) => new URL(link).pathname);
    for (const guide of GUIDES) expect(paths, guide).toContain(`/${guide.replace(/\.md$/, '.html')}`);
    expect(paths).toEqual(expect.arrayContaining(['/api/', '/api/@armature/core.html', '/api/@armature/testing.html']));
  });

  it.each(listPages())('%s renders its first included example as a code block', (guide) => {
    const include = scanPage(guide).markers.find((marker) => marker.kind === 'include');
    const firstLine = include?.body.split('\n').find((line) => line.trim() !== '');
    expect(firstLine, `${guide} has an include`).toBeTypeOf('string');
    const page = pageAt(guide === 'README.md' ? '/' : `/${guide.replace(/\.md$/, '.html')}`);
    expect(page?.codeBlocks.some((code) => code.includes(firstLine as string))).toBe(true);
  });

  it('renders the API reference of createMcpApp from the public types', () => {
    const page = pageAt('/api/@armature/core.html');
    expect(page?.ids.has('createmcpapp')).toBe(true);
    expect(page?.codeBlocks.join('\n')).toContain('createMcpApp(');
  });

  it('finds a guide with the local search', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${site.origin}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => (document.querySelector('#app') as { __vue_app__?: unknown } | null)?.__vue_app__ !== undefined);
      await page.click('.DocSearch-Button');
      await page.fill('#localsearch-input', 'elicitation');
      const first = page.locator('.results .result').first();
      await first.waitFor({ timeout: 10_000 });
      const hrefs = await page
        .locator('.results .result')
        .evaluateAll((results) => results.map((result) => result.getAttribute('href') ?? ''));
      expect(hrefs.map((href) => href.split('#')[0])).toContain('/elicitation.html');
    } finally {
      await page.close();
    }
  });

  it('saves screenshots of the home page and a guide to docs/.site-test-output', () => {
    for (const name of ['home.png', 'getting-started.png']) {
      const png = readFileSync(join(OUTPUT, name));
      expect(png.subarray(1, 4).toString('latin1'), name).toBe('PNG');
      expect(png.length, name).toBeGreaterThan(10_000);
    }
  });
});
