/**
 * A pure function of one short text, remembered for the texts seen last: a request's Host header
 * and URL are nearly always those of the requests before it on the same server, and parsing them
 * again (a `URL` each) is per-request work that needs doing once. At most `max` texts of at most
 * `maxLength` characters are kept (all forgotten at once beyond), so no caller can grow it.
 */
export function textMemo<T>(compute: (text: string) => T, max = 64, maxLength = 256): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    const kept = known.get(text);
    if (kept !== undefined) return kept;
    const value = compute(text);
    if (text.length <= maxLength && value !== undefined) {
      if (known.size >= max) known.clear();
      known.set(text, value);
    }
    return value;
  };
}
