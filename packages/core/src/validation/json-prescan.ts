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
  let lastKeyAtTop: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      for (i = start; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
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
        if (depth === 1 && keyStart >= 0) {
          lastKeyAtTop = text.slice(keyStart, text.indexOf('"', keyStart));
          if (lastKeyAtTop === 'id' && rawId === undefined) ({ id, rawId } = readId(text, i + 1));
        }
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
 * Refused wherever it appears: JSON.parse makes it an own key, which the direct path's checks see,
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

/**
 * The id token at `from` as written, and its value when it is a string (of any length: the scan
 * reads it once, like the rest of the message) or a number of at most 16 digits.
 */
function readId(text: string, from: number): { id?: string | number; rawId?: string } {
  let start = from;
  while (start < text.length && /\s/.test(text.charAt(start))) start++;
  let token: string | undefined;
  if (text.charCodeAt(start) === QUOTE) {
    let close = start + 1;
    for (; close < text.length; close++) {
      const c = text.charCodeAt(close);
      if (c === BACKSLASH) close++;
      else if (c === QUOTE) break;
    }
    if (close < text.length) token = text.slice(start, close + 1);
  } else token = /^(-?[0-9][0-9.eE+-]*|true|false|null)/.exec(text.slice(start, start + 400))?.[1];
  if (token === undefined) return {};
  if (!/^(-?\d{1,16}|".*")$/s.test(token)) return { rawId: token };
  try {
    return { id: JSON.parse(token) as string | number, rawId: token };
  } catch {
    return { rawId: token };
  }
}
