import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan, PlanConflictError } from '../src/util/file-plan.js';

describe('applyPlan', () => {
  const root = () => mkdtempSync(join(tmpdir(), 'armature-plan-'));

  it('writes every file, making folders', () => {
    const dir = root();
    const out = applyPlan(dir, [
      { path: 'a/b/c.ts', action: 'create', content: 'c' },
      { path: 'd.ts', action: 'create', content: 'd' },
    ]);
    expect(out.lines).toEqual(['create    a/b/c.ts', 'create    d.ts']);
    expect(readFileSync(join(dir, 'a/b/c.ts'), 'utf8')).toBe('c');
  });

  it('refuses to overwrite anything without force, writing nothing at all', () => {
    const dir = root();
    writeFileSync(join(dir, 'taken.ts'), 'mine');
    const plan = [
      { path: 'new.ts', action: 'create' as const, content: 'n' },
      { path: 'taken.ts', action: 'create' as const, content: 'theirs' },
    ];
    expect(() => applyPlan(dir, plan)).toThrow(PlanConflictError);
    expect(() => applyPlan(dir, plan)).toThrow(
      'This file exists and would be overwritten:\n  taken.ts\nNothing was written. Use --force to overwrite, or pick another name (--dry-run shows the plan).',
    );
    expect(existsSync(join(dir, 'new.ts'))).toBe(false);
    expect(readFileSync(join(dir, 'taken.ts'), 'utf8')).toBe('mine');
    expect(applyPlan(dir, plan, { force: true }).lines).toEqual(['create    new.ts', 'overwrite taken.ts']);
    expect(readFileSync(join(dir, 'taken.ts'), 'utf8')).toBe('theirs');
  });

  it('prints the plan and writes nothing on a dry run; updates and unchanged files are named', () => {
    const dir = root();
    writeFileSync(join(dir, 'server.ts'), 'old');
    writeFileSync(join(dir, 'same.ts'), 'same');
    const out = applyPlan(
      dir,
      [
        { path: 'server.ts', action: 'update', content: 'new', note: 'adds X.y' },
        { path: 'same.ts', action: 'update', content: 'same' },
        { path: 'x.ts', action: 'create', content: 'x' },
      ],
      { dryRun: true },
    );
    expect(out).toEqual({ lines: ['update    server.ts  (adds X.y)', 'same      same.ts', 'create    x.ts'], written: [] });
    expect(readFileSync(join(dir, 'server.ts'), 'utf8')).toBe('old');
    expect(existsSync(join(dir, 'x.ts'))).toBe(false);
  });
});
