import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plainUi, runCli } from '../src/index.js';

// `--ui` of `armature dev` and `armature inspect`: what the command refuses before it starts the
// console (the console itself is driven in Chromium by packages/console/test/console-browser.test.ts).

async function run(...argv: string[]) {
  const lines: string[] = [];
  const code = await runCli(argv, { ui: plainUi((line) => lines.push(line)), stdout: () => undefined });
  return { code, lines };
}

describe('armature dev --ui / inspect --ui', () => {
  it('dev --ui refuses arguments for the entry: the console serves the app itself', async () => {
    const { code, lines } = await run('dev', '--ui', 'src/app.ts', '--', '--http', '--port', '3001');
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain(
      'armature dev --ui serves the app itself, so arguments after -- are not used: drop --http --port 3001',
    );
  });

  it.each([['dev'], ['inspect']])('%s --ui takes one entry', async (command) => {
    const { code, lines } = await run(command, '--ui', 'src/app.ts', 'src/other.ts');
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(/usage: armature dev(\|inspect)? \[entry\]/);
  });

  it('says which module --ui wants when the entry is missing', async () => {
    const cwd = fileURLToPath(new URL('../../console/test/fixture', import.meta.url));
    const lines: string[] = [];
    const code = await runCli(['dev', '--ui', 'src/missing.ts'], { cwd, ui: plainUi((line) => lines.push(line)) });
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain(
      'src/missing.ts does not exist. Fix: armature dev --ui <the module that exports the app: createApp(), an app, servers, or the @McpServer classes>',
    );
  });

  it('the help names --ui for both commands', async () => {
    let help = '';
    await runCli(['--help'], { stdout: (text) => (help += text) });
    expect(help).toMatch(/dev\n[\s\S]*--ui {23}a console in the browser on 127\.0\.0\.1/);
    expect(help).toMatch(/inspect\n[\s\S]*--ui {23}serve the app \(e\.g\. a built dist\/app\.js\)/);
  });
});
