const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The top-level `"id"` member's value exactly as written in a JSON object's text (e.g.
 * `1152921504606846977`, which `JSON.parse` would round), or undefined when there is none. One
 * linear pass tracking strings and nesting; meant for text that already parsed as JSON.
 */
export function rawIdToken(text: string): string | undefined {
  let depth = 0;
  let lastString: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      for (i = start; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      lastString = text.slice(start, i);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x3a && depth === 1 && lastString === 'id') {
      const match = /^\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*"|true|false|null)/.exec(text.slice(i + 1, i + 1 + 400));
      return match?.[1];
    } else if (c === 0x2c) lastString = undefined;
  }
  return undefined;
}
