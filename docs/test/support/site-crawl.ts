import type { BrowserContext } from 'playwright-core';

/** What one page of the site showed a real browser. */
export interface VisitedPage {
  readonly path: string;
  readonly status: number;
  /** Every element id, for checking the anchors other pages link to. */
  readonly ids: ReadonlySet<string>;
  /** Every `<a href>`, resolved to an absolute URL. */
  readonly links: readonly string[];
  /** The text of every rendered `pre code` block. */
  readonly codeBlocks: readonly string[];
  /** Console errors, uncaught exceptions, failed or refused requests. */
  readonly problems: readonly string[];
}

const PAGE_TIMEOUT_MS = 15_000;

/**
 * Loads every path with a full page load in one of `tabs` reused tabs (a tab per page would start a
 * renderer process each time), waits until Vue has hydrated the page (`#app.__vue_app__` is set then;
 * hydration mismatches and script errors surface only by then), and reads what a reader would see.
 * Requests leaving `origin` are refused and reported: the site must work offline.
 */
export async function crawlPages(
  context: BrowserContext,
  origin: string,
  paths: readonly string[],
  options: { tabs: number; screenshots: Record<string, string> },
): Promise<VisitedPage[]> {
  const results: VisitedPage[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    const page = await context.newPage();
    let problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
    });
    page.on('requestfailed', (request) => {
      // ERR_ABORTED: the next page load cancelled a prefetch VitePress started for a linked page.
      const error = request.failure()?.errorText;
      if (request.url().startsWith(origin) && error !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} (${error})`);
    });
    await page.route(
      (url) => url.origin !== origin,
      (route) => {
        problems.push(`request outside the site: ${route.request().url()}`);
        return route.abort();
      },
    );
    try {
      for (let index = next++; index < paths.length; index = next++) {
        const path = paths[index] as string;
        problems = [];
        const response = await page.goto(origin + path, { waitUntil: 'domcontentloaded', timeout: PAGE_TIMEOUT_MS });
        await page.waitForFunction(
          () => (document.querySelector('#app') as { __vue_app__?: unknown } | null)?.__vue_app__ !== undefined,
          undefined,
          {
            timeout: PAGE_TIMEOUT_MS,
          },
        );
        const seen = await page.evaluate(() => ({
          ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
          links: [...document.querySelectorAll('a[href]')].map((anchor) => (anchor as HTMLAnchorElement).href),
          codeBlocks: [...document.querySelectorAll('pre code')].map((code) => code.textContent ?? ''),
        }));
        const screenshot = options.screenshots[path];
        if (screenshot) await page.screenshot({ path: screenshot });
        results[index] = {
          path,
          status: response?.status() ?? 0,
          ids: new Set(seen.ids),
          links: seen.links,
          codeBlocks: seen.codeBlocks,
          problems,
        };
      }
    } finally {
      await page.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.tabs, paths.length) }, worker));
  return results;
}
