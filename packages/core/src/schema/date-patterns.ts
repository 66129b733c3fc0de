// RFC 3339 calendar dates, month lengths and leap years included (what ajv-formats' `date` checks).
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const LEAP_DAY = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29';
const CALENDAR_DATE = `(?:\\d{4}-${MONTH_DAY}|${LEAP_DAY})`;

/**
 * The date-times both ajv-formats' `date-time` and JavaScript's `Date` accept: RFC 3339 with a
 * time zone, minus the forms `Date` refuses (leap second 60, a `+hh` offset without minutes).
 * The shape check tests a `format: date-time` value against it; it is never advertised (about 330
 * characters the model would read as tokens, where the format name says the same).
 */
export const DATE_TIME_PATTERN = `^${CALENDAR_DATE}[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)$`;

/** `YYYY-MM-DD`: with `@IsISO8601({ strict: true })` a property advertises `format: date`. */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
