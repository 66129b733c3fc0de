/** A template expression: `{name}`, `{+name}`, `{?a,b}`... (RFC 6570). */
const EXPRESSION = /\{([^}]*)\}/g;

/**
 * What makes a remote server's URI template unsafe to match, or undefined. The SDK matches a URI
 * against a template with one regular expression, a group per variable: two variables a URI can
 * split between in more than one way (`{a}{b}`, `{a}-{b}`, two `{+a}`) make a failed match try
 * every split, which for a few dozen variables takes minutes and blocks every read of the app.
 * A remote's template is served only when each path segment holds at most one variable and a
 * `{+...}` or `{#...}` variable (which crosses segments) comes last; the app's own templates are
 * its author's, and are not checked.
 */
export function templateProblem(uriTemplate: string): string | undefined {
  let inSegment = 0;
  let crossing = false;
  let last = 0;
  for (const match of uriTemplate.matchAll(EXPRESSION)) {
    if (crossing) return 'a {+...} or {#...} variable is followed by another';
    if (uriTemplate.slice(last, match.index).includes('/')) inSegment = 0;
    last = match.index + match[0].length;
    const operator = match[1]?.[0] ?? '';
    // A query expression matches up to the next `&`, after its own literal `name=`: never ambiguous.
    if (operator === '?' || operator === '&') continue;
    if (operator === '/') inSegment = 0;
    if (operator === '+' || operator === '#') crossing = true;
    if (++inSegment > 1) return 'two variables share a path segment, so a URI can be split between them in many ways';
  }
  return undefined;
}
