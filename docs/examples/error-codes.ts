import { ArmatureBuildError, createMcpApp, errorCodes, McpServer, Tool } from '@armature/core';
import { expectEqual } from './support/check.js';

// #region reading
@McpServer({ name: 'shipping', version: '1.0.0' })
class ShippingServer {
  @Tool({ name: 'ship parcel', description: 'Ship a parcel' })
  ship() {
    return 'shipped';
  }
}

export function problemsOf(make: () => unknown): string[] {
  try {
    make();
    return [];
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    // Each problem: code, where (Class.method), message, fix.
    return error.problems.map((p) => `${p.code} ${p.where}: ${p.fix}`);
  }
}

const titles = new Map(errorCodes().map((entry) => [entry.code, entry.title]));
// #endregion

/** The reference table: every code with its title, a typical message and the fix. */
function codeTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = errorCodes().map((e) => `| ${e.code} | ${cell(e.title)} | ${cell(e.example.message)} | ${cell(e.example.fix)} |`);
  return ['| code | what | example | fix |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export const outputs: Record<string, string> = {
  reading: "ARM106 ShippingServer.ship: @Tool({ name: 'ship_parcel', ... })",
};
outputs.codes = codeTable();

export async function main(): Promise<void> {
  expectEqual(
    problemsOf(() => createMcpApp(ShippingServer)),
    [outputs.reading],
    'a real start-up problem carries its code',
  );
  expectEqual(titles.get('ARM106'), 'a tool or prompt name is not 1-128 characters of A-Z a-z 0-9 _ . -', 'the code is listed');
  const codes = errorCodes().map((e) => e.code);
  expectEqual(new Set(codes).size, codes.length, 'codes are unique');
}
