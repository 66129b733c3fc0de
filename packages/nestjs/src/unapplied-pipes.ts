import type { Constructor } from '@armature/core';
import { ValidationPipe } from '@nestjs/common';
import { PIPES_METADATA } from '@nestjs/common/constants.js';
import type { ApplicationConfig } from '@nestjs/core';
import { ArmatureValidationPipe } from './armature-validation.pipe.js';

/** Armature validates tool input with the DTO's own rules: these pipes have nothing left to do on MCP. */
const VALIDATION_PIPES: Function[] = [ValidationPipe, ArmatureValidationPipe];

function typeOf(pipe: unknown): Function | undefined {
  return typeof pipe === 'function' ? pipe : (pipe as object | null)?.constructor;
}

function named(pipes: readonly unknown[], where: string): string[] {
  return pipes
    .map(typeOf)
    .filter(
      (type) => type !== undefined && !VALIDATION_PIPES.some((validation) => type === validation || type.prototype instanceof validation),
    )
    .map((type) => `${type?.name} (${where})`);
}

/**
 * The pipes that would run on a controller's arguments but do not run on MCP tool input (where
 * Armature validates and transforms the DTO itself): the global ones (`useGlobalPipes`, `APP_PIPE`)
 * and those of `@UsePipes` on a server class or its methods, each with where it was declared.
 */
export function unappliedPipes(config: ApplicationConfig, serverClasses: readonly Constructor[]): string[] {
  const found = [
    ...named(config.getGlobalPipes(), 'global'),
    ...named(
      config.getGlobalRequestPipes().map((wrapper) => wrapper.metatype),
      'global',
    ),
  ];
  for (const serverClass of serverClasses) {
    found.push(...named(Reflect.getMetadata(PIPES_METADATA, serverClass) ?? [], `on ${serverClass.name}`));
    for (const name of Object.getOwnPropertyNames(serverClass.prototype)) {
      const method = (serverClass.prototype as Record<string, unknown>)[name];
      if (typeof method !== 'function' || name === 'constructor') continue;
      found.push(...named(Reflect.getMetadata(PIPES_METADATA, method) ?? [], `on ${serverClass.name}.${name}`));
    }
  }
  return found;
}
