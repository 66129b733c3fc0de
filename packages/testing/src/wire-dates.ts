/**
 * An equality tester for `expect.addEqualityTesters([wireDates])` (Vitest, Jest 29.4+): a `Date`
 * compared with a string fails the test saying why. A result holds what a client receives, and JSON
 * carries a `Date` as its ISO string, so `toEqual({ due: new Date(...) })` can never match it.
 * Undefined (no opinion) for every other pair.
 */
export function wireDates(a: unknown, b: unknown): boolean | undefined {
  const date = a instanceof Date ? a : b instanceof Date ? b : undefined;
  const text = typeof a === 'string' ? a : typeof b === 'string' ? b : undefined;
  if (date === undefined || text === undefined) return undefined;
  const iso = Number.isNaN(date.getTime()) ? 'an invalid date' : `'${date.toISOString()}'`;
  throw new TypeError(
    `a Date was compared with the string ${JSON.stringify(text)}: tool results hold what a client receives, and JSON carries a Date as its ISO string. Compare with the string: ${iso} (date.toISOString())`,
  );
}
