/** Hosts an `http:` URL may name: this machine only (a local sign-in page, say). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * What is wrong with a URL a remote server asks the caller to open (URL elicitation), or undefined
 * when it may be passed on: `https:`, or `http:` to this machine, with no user name or password
 * (`https://bank.example@evil.example` reads as the bank). Anything else (`javascript:`, `data:`,
 * `file:`, plain `http:` elsewhere, a malformed URL) never reaches the caller.
 */
export function urlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string' || !URL.canParse(url)) return 'it is not a URL';
  const parsed = new URL(url);
  if (parsed.protocol === 'http:' && !LOOPBACK.test(parsed.hostname)) return 'it is http: to another machine than this one';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `its scheme is ${parsed.protocol}`;
  if (parsed.username !== '' || parsed.password !== '') return 'it carries a user name or password';
  return undefined;
}
