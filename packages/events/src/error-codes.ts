import type { ErrorCodeInfo } from '@armature/core';
import { EVENTS_BUILD_MESSAGES as B } from './messages.js';

/** The start-up codes of `events({...})` (ARM170-ARM179), as `errorCodes()` lists core's. */
export function eventsErrorCodes(): ErrorCodeInfo[] {
  const examples: [(typeof B)[keyof typeof B], string, string][] = [
    [B.notExperimental, B.notExperimental.message(), B.notExperimental.fix()],
    [B.badEventName, B.badEventName.message('incident created', 'is not 1-128 characters of A-Z a-z 0-9 _ . - /'), B.badEventName.fix()],
    [B.badPayloadDto, 'payload is missing; it must be a DTO class', B.badPayloadDto.fix()],
    [B.badEgressAllow, B.badEgressAllow.message('localhost'), B.badEgressAllow.fix()],
    [B.badNumberOption, B.badNumberOption.message('timeoutMs', -1), B.badNumberOption.fix('timeoutMs')],
  ];
  return examples.map(([definition, message, fix]) => ({ code: definition.code, title: definition.title, example: { message, fix } }));
}
