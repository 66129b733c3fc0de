import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type ContractChange, diffContracts, formatContractChanges } from './contract-diff.js';
import { CONTRACT_FORMAT, type Contract, contractOf, formatContract } from './contract-snapshot.js';
import { type Catalogue, InspectError } from './load-catalogue.js';
import { CONTRACT_TEXT as T } from './publish-messages.js';

/** `--snapshot <file>`: writes the contract of the catalogue; returns what to print. */
export function writeContractSnapshot(cwd: string, file: string, catalogue: Catalogue): string {
  const contract = contractOf(catalogue);
  writeFileSync(resolve(cwd, file), formatContract(contract));
  const resources = Object.keys(contract.resources).length + Object.keys(contract.resourceTemplates).length;
  return `${T.snapshotWritten(file, Object.keys(contract.tools).length, Object.keys(contract.prompts).length, resources)}\n`;
}

export function readContractSnapshot(cwd: string, file: string): Contract {
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new InspectError(T.snapshotMissing(relative(cwd, path) || file));
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InspectError(T.snapshotUnreadable(file, (error as Error).message));
  }
  const contract = parsed as Partial<Contract>;
  if (contract.format !== CONTRACT_FORMAT || typeof contract.tools !== 'object' || contract.tools === null) {
    throw new InspectError(T.snapshotUnreadable(file, `expected "format": ${CONTRACT_FORMAT} and a "tools" object`));
  }
  return { prompts: {}, resources: {}, resourceTemplates: {}, ...contract } as Contract;
}

export interface ContractCheck {
  readonly changes: readonly ContractChange[];
  readonly breaking: boolean;
  readonly output: string;
}

/** `--check <file>`: compares the catalogue with the contract recorded in `file`. */
export function checkContract(file: string, recorded: Contract, catalogue: Catalogue): ContractCheck {
  const changes = diffContracts(recorded, contractOf(catalogue));
  return {
    changes,
    breaking: changes.some((c) => c.severity === 'breaking'),
    output: formatContractChanges(file, changes),
  };
}

/** What `--check <file> --if-present` prints when there is no snapshot yet. */
export const skippedCheck = (file: string) => `${T.snapshotSkipped(file)}\n`;
