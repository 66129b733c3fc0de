/** True inside Cloudflare's workerd (wrangler dev, miniflare, deployed Workers): its documented user agent. */
export function onCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
}
