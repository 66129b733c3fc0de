import { describe, expect, it } from 'vitest';
import { errorCodes } from '../src/index.js';

describe('error codes', () => {
  it('gives every start-up message its own stable code, title, example and fix', () => {
    const entries = errorCodes();
    const codes = entries.map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const entry of entries) {
      expect(entry.code).toMatch(/^ARM[1-4]\d\d$/);
      expect(entry.title).not.toBe('');
      expect(entry.example.message).not.toBe('');
      expect(entry.example.fix).not.toBe('');
    }
  });
});
