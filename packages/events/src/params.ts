import { Type } from 'class-transformer';
import {
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  MaxLength,
  ValidateBy,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';

// The params of the events/* methods as DTOs: core validates them before a handler runs and answers
// a bad one -32602 naming each field, as it does a tool's arguments. What a DTO cannot say (the
// callback URL and its target, the secret's format, arguments against the event's own DTO, a
// cursor this server gave out) the runtime checks after.

/** The longest cursor this server gives out (Redis stream ids and `<epoch>.<seq>` both fit). */
const MAX_CURSOR = 64;
/** Event names are at most 128 characters (ARM171). */
const MAX_NAME = 128;
/** Longer than any URL a receiver needs; the URL's own checks come after. */
const MAX_URL = 2_048;

// The draft gives `null` a meaning of its own (`cursor: null` starts from now, `ttlMs: null` asks for no
// expiry), and core's shape check refuses null for an optional property with a JSON type (IsString,
// IsInt): these two constraints carry no JSON type, so null passes as "absent" (@IsOptional) and
// every other value is checked by them.

/** A cursor: null, or a string of at most 64 characters. */
function IsCursor(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEventsCursor',
      validator: {
        validate: (value: unknown) => value === null || (typeof value === 'string' && value.length <= MAX_CURSOR),
        defaultMessage: () => `$property must be null or a cursor this server gave out (a string of at most ${MAX_CURSOR} characters)`,
      },
    },
    options,
  );
}

/** null, or a positive whole number. */
function IsPositiveIntOrNull(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPositiveIntOrNull',
      validator: {
        validate: (value: unknown) => value === null || (Number.isSafeInteger(value) && (value as number) > 0),
        defaultMessage: () => '$property must be null or a positive whole number',
      },
    },
    options,
  );
}

/** What every method names: one event type and the subscription's arguments. */
class EventKey {
  @IsString()
  @MaxLength(MAX_NAME)
  name!: string;

  /** Checked against the event's `arguments` DTO by the runtime. */
  @IsOptional()
  @IsObject()
  arguments?: Record<string, unknown>;
}

/** Where delivery starts: every mode takes the draft's `cursor` and `maxAgeMs`. */
class FromCursor extends EventKey {
  /** null (or absent): start from now; else replay what is retained after it. */
  @IsOptional()
  @IsCursor()
  cursor?: string | null;

  /** Replay nothing older than this, when `cursor` is given. */
  @IsOptional()
  @IsInt()
  @IsPositive()
  maxAgeMs?: number;
}

/** `events/poll`. */
export class PollParams extends FromCursor {
  @IsOptional()
  @IsInt()
  @IsPositive()
  maxEvents?: number;
}

/** `events/stream`: one push subscription for as long as the request stays open. */
export class StreamParams extends FromCursor {}

/** `delivery` of `events/unsubscribe`: the subscription's key. */
export class WebhookTarget {
  /** Only `webhook` is served by subscribe/unsubscribe (-32014 otherwise). */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  mode?: string;

  @IsString()
  @MaxLength(MAX_URL)
  url!: string;
}

/** `delivery` of `events/subscribe`: the key and the signing secret. */
export class WebhookDelivery extends WebhookTarget {
  /** A Standard Webhooks secret (`whsec_...`), checked by the runtime. */
  @IsString()
  @MaxLength(200)
  secret!: string;
}

/** `events/subscribe` (`cursor` and `maxAgeMs` are accepted: this server keeps no per-subscription replay position). */
export class SubscribeParams extends FromCursor {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookDelivery)
  delivery!: WebhookDelivery;

  /** Suggested lifetime; null asks for no expiry (granted as `maxTtlMs`). */
  @IsOptional()
  @IsPositiveIntOrNull()
  ttlMs?: number | null;
}

/** `events/unsubscribe`. */
export class UnsubscribeParams extends EventKey {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookTarget)
  delivery!: WebhookTarget;
}
