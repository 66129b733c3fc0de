/** Limits checked on the raw text of a message, before anything parses it. */
export interface MessageLimits {
  /** Deepest nesting of the whole JSON-RPC message. Default 64 (tool arguments get 32 of it). */
  maxDepth?: number;
  /** Most values (object members plus array items, counted by their separators) in the whole message. Default 25,000. */
  maxValues?: number;
}

export const DEFAULT_MESSAGE_LIMITS: Readonly<Required<MessageLimits>> = Object.freeze({ maxDepth: 64, maxValues: 25_000 });

export interface PrescanResult {
  /** What is wrong, or undefined when the text is within the limits. */
  problem?: string;
  /** The top-level `id` when it could be read (a number or a string), to answer the right caller. */
  id?: string | number;
  /**
   * The top-level `id` exactly as written (e.g. `1152921504606846977`, which `JSON.parse` would
   * round), to answer with it unchanged.
   */
  rawId?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const UNDERSCORE = 0x5f;

/**
 * One linear pass over raw JSON text counting nesting and values outside strings. V8's
 * JSON.parse takes seconds on a 2,000,000-deep nesting and tens of milliseconds on a 32,000-key
 * object, all of it blocking the event loop; this refuses such a message first, in about the time
 * it takes to read it. It does not validate JSON: the parser still does that afterwards.
 */
export function prescanJson(text: string, limits: Readonly<Required<MessageLimits>>): PrescanResult {
  let depth = 0;
  let values = 0;
  let id: string | number | undefined;
  let rawId: string | undefined;
  let keyStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      i = closingQuote(text, start);
      keyStart = start;
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        depth++;
        if (depth > limits.maxDepth) return { problem: `the message is nested deeper than ${limits.maxDepth} levels`, id, rawId };
        break;
      case 0x7d: // }
      case 0x5d: // ]
        depth--;
        break;
      case 0x3a: // :
        if (keyStart >= 0 && isProtoKey(text, keyStart)) return { problem: PROTO_KEY, id, rawId };
        if (depth === 1 && keyStart >= 0 && rawId === undefined && isIdKey(text, keyStart)) ({ id, rawId } = readId(text, i + 1));
        break;
      case 0x2c: // ,
        values++;
        break;
    }
    if (values > limits.maxValues) return { problem: `the message holds more than ${limits.maxValues} values`, id, rawId };
  }
  return { id, rawId };
}

/**
 * True when `prescanJson` would find no problem in `text`, known without its pass over every
 * character: no key can be `__proto__` (neither the name nor a backslash, which an escaped spelling
 * needs, is in it), it has no more characters than `maxValues` (each value it counts is a comma), and
 * no more `{` and `[` anywhere than `maxDepth` (each level it counts is one of them). A few native
 * searches of the text; what the pre-scan also reads, the id, is then read only when needed.
 */
export function withinLimitsUnscanned(text: string, limits: Readonly<Required<MessageLimits>>): boolean {
  if (text.length > limits.maxValues || text.includes('\\') || text.includes('__proto__')) return false;
  const opened = countUpTo(text, '{', limits.maxDepth);
  return opened <= limits.maxDepth && opened + countUpTo(text, '[', limits.maxDepth - opened) <= limits.maxDepth;
}

/** How many times `char` occurs in `text`, counted up to one more than `max`. */
function countUpTo(text: string, char: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count <= max; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/**
 * Where the string whose text starts at `start` (after its opening quote) ends: its closing quote,
 * the first one after an even run of backslashes (or the text's length when there is none). Found
 * with `indexOf`, which is many times faster than a loop over the characters of a long string.
 */
export function closingQuote(text: string, start: number): number {
  for (let quote = text.indexOf('"', start); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslash = quote - 1;
    while (backslash >= start && text.charCodeAt(backslash) === BACKSLASH) backslash--;
    if ((quote - 1 - backslash) % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * Refused wherever it appears: JSON.parse makes it an own key, which the request engine's checks see,
 * while the SDK's schema parser turns it into the prototype of the object it builds (the key then
 * silently disappears). Refusing it before either parses keeps every path's answer the same.
 */
const PROTO_KEY = 'the message has a "__proto__" key, which could reach an object\'s prototype; remove it';

/** Whether the key whose text starts at `start` (after its opening quote) reads `__proto__`, escapes decoded. */
function isProtoKey(text: string, start: number): boolean {
  // `__proto__` spelt with or without escapes begins with `_` or a backslash.
  const first = text.charCodeAt(start);
  if (first !== UNDERSCORE && first !== BACKSLASH) return false;
  let close = start;
  let escaped = false;
  for (; close < text.length; close++) {
    const c = text.charCodeAt(close);
    if (c === BACKSLASH) {
      escaped = true;
      close++;
    } else if (c === QUOTE) break;
  }
  if (!escaped) return close - start === 9 && text.startsWith('__proto__', start);
  try {
    return JSON.parse(text.slice(start - 1, close + 1)) === '__proto__';
  } catch {
    return false;
  }
}

/** Whether the key whose text starts at `start` (after its opening quote) is `id`, written without escapes. */
function isIdKey(text: string, start: number): boolean {
  return text.charCodeAt(start) === 0x69 && text.charCodeAt(start + 1) === 0x64 && text.charCodeAt(start + 2) === QUOTE;
}

/** What `/\s/` matches, without a regular expression for the ASCII characters messages are made of. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(String.fromCharCode(c)));
}

const MINUS = 0x2d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** The characters a number token is read over (as JSON writes numbers, and then some). */
const isNumberPart = (c: number) => isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
/** The longest token read at an id (a longer one is cut there). */
const MAX_TOKEN = 400;

/** The number (`-?[0-9][0-9.eE+-]*`) or literal at `start`, cut at MAX_TOKEN characters; undefined when neither is there. */
function bareToken(text: string, start: number): string | undefined {
  const end = Math.min(text.length, start + MAX_TOKEN);
  const c = text.charCodeAt(start);
  if (isDigit(c) || (c === MINUS && start + 1 < end && isDigit(text.charCodeAt(start + 1)))) {
    let close = start + 1;
    while (close < end && isNumberPart(text.charCodeAt(close))) close++;
    return text.slice(start, close);
  }
  for (const literal of LITERALS) if (end - start >= literal.length && text.startsWith(literal, start)) return literal;
  return undefined;
}
const LITERALS = ['true', 'false', 'null'];

/** Whether a number token is an integer of at most 16 digits (`-?\d{1,16}`): its value is read then. */
function isShortInteger(token: string): boolean {
  const from = token.charCodeAt(0) === MINUS ? 1 : 0;
  if (token.length - from < 1 || token.length - from > 16) return false;
  for (let i = from; i < token.length; i++) if (!isDigit(token.charCodeAt(i))) return false;
  return true;
}

/**
 * The id token at `from` as written, and its value when it is a string (of any length: the scan
 * reads it once, like the rest of the message) or a number of at most 16 digits.
 */
function readId(text: string, from: number): { id?: string | number; rawId?: string } {
  let start = from;
  while (start < text.length && isSpace(text.charCodeAt(start))) start++;
  let token: string | undefined;
  const quoted = text.charCodeAt(start) === QUOTE;
  if (quoted) {
    let close = start + 1;
    for (; close < text.length; close++) {
      const c = text.charCodeAt(close);
      if (c === BACKSLASH) close++;
      else if (c === QUOTE) break;
    }
    if (close < text.length) token = text.slice(start, close + 1);
  } else token = bareToken(text, start);
  if (token === undefined) return {};
  if (!quoted && !isShortInteger(token)) return { rawId: token };
  try {
    return { id: JSON.parse(token) as string | number, rawId: token };
  } catch {
    return { rawId: token };
  }
}
