import { describe, expect, it } from 'vitest';
import { textMemo } from '../src/transports/http/text-memo.js';

// The per-text memo of the HTTP request path (Host verdicts, URLs): the same answers as the
// function it remembers, and no growth a caller controls.
describe('textMemo', () => {
  it('answers as the function, computing each kept text once', () => {
    const seen: string[] = [];
    const upper = textMemo((text: string) => {
      seen.push(text);
      return text.toUpperCase();
    });
    expect([upper('a'), upper('b'), upper('a'), upper('b')]).toEqual(['A', 'B', 'A', 'B']);
    expect(seen).toEqual(['a', 'b']);
  });

  it('keeps at most max texts, none longer than maxLength, and no undefined answer', () => {
    let calls = 0;
    const memo = textMemo(
      (text: string) => {
        calls++;
        return text.startsWith('bad') ? undefined : text.length;
      },
      2,
      5,
    );
    for (const text of ['bad1', 'bad1', 'longer-than-five', 'longer-than-five']) memo(text);
    expect(calls).toBe(4);
    calls = 0;
    for (const text of ['a', 'b', 'c', 'a']) memo(text);
    // 'c' found the memo full and emptied it: 'a' is computed again.
    expect(calls).toBe(4);
  });
});
