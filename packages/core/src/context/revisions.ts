/** The protocol revision with the initialize handshake and sessions. */
export const LEGACY_REVISION = '2025-11-25';
/** The stateless protocol revision (the SDK names it internally only). */
export const MODERN_REVISION = '2026-07-28';
