import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The file a static host serves for a URL path, as VitePress's own preview does: `dir/` -> `dir/index.html`,
 * `page` -> `page.html`; `undefined` when there is none (or the path leaves the site).
 */
export function siteFileFor(root: string, pathname: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
  if (file !== root && !file.startsWith(root + sep)) return undefined;
  for (const candidate of [file, `${file}.html`]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

export interface StaticSite {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves a built site on 127.0.0.1 on a free port, with the site's 404 page for unknown paths. */
export async function serveStaticSite(root: string): Promise<StaticSite> {
  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://127.0.0.1');
    const file = siteFileFor(root, pathname);
    const status = file ? 200 : 404;
    const body = file ? readFileSync(file) : readFileSync(join(root, '404.html'));
    // Like a real host: hashed assets are immutable (so the browser can cache compiled scripts), pages are not.
    const caching = pathname.startsWith('/assets/') && file ? 'public, max-age=31536000, immutable' : 'no-cache';
    response.writeHead(status, { 'content-type': TYPES[extname(file ?? '.html')] ?? 'application/octet-stream', 'cache-control': caching });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
