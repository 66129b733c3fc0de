import { ToolError } from '@armature/core';
import { OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';

/** Rounds of percent-decoding looked through: a value encoded more often than this is refused. */
const DECODE_ROUNDS = 8;

/** Overlong UTF-8 spellings of `.` and `/` that old servers decode (and WHATWG decoders refuse). */
const OVERLONG = [
  [/%c0%ae|%e0%80%ae/gi, '.'],
  [/%c0%af|%e0%80%af/gi, '/'],
] as const;

/** `%XX` runs that make valid UTF-8 decoded, any other `%` left as it is (`100%` stays). */
function decodeOnce(value: string): string {
  return value.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * Whether a segment would be read as "this folder" or "the parent" by some server: only dots,
 * once trimmed of blanks and NULs (which Windows and some servers drop) and of a `;` path
 * parameter (Tomcat reads `..;x` as `..`).
 */
const isDotSegment = (segment: string): boolean => /^\.+$/.test(segment.split(';')[0]?.replace(/[\s\0]+/g, '') ?? '');

/**
 * Whether the value, in any spelling a server along the way may decode it to (percent-encoded,
 * double-encoded, overlong UTF-8, Unicode look-alikes folded by NFKC), holds a `.` or `..`
 * segment, alone or between `/` or `\`.
 */
function movesThePath(value: string): boolean {
  let current = value;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    let seen = current.normalize('NFKC');
    for (const [spelling, char] of OVERLONG) seen = seen.replace(spelling, char);
    if (seen.split(/[/\\]/).some(isDotSegment)) return true;
    const next = decodeOnce(seen);
    if (next === seen) return false;
    current = next;
  }
  return true;
}

/**
 * A path parameter's value as the one path segment it fills: percent-encoded as UTF-8 (a `/` in it
 * becomes `%2F`; a lone surrogate U+FFFD, as in the query), or a tool error, before any request, for a value that would change which path the call
 * reaches (empty, or a dot segment in any spelling).
 */
export function pathSegment(operation: OpenApiOperation, name: string, value: string): string {
  if (value === '') throw new ToolError(OPENAPI_MESSAGES.emptyPathValue(operation, name));
  if (movesThePath(value)) throw new ToolError(OPENAPI_MESSAGES.dotPathValue(operation, name, value));
  return encodeURIComponent(value.replace(/\p{Cs}/gu, '\ufffd'));
}
