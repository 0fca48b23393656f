// Zero-downtime client-secret rotation. When `communities.save` replaces a
// community's client secret, the replaced one is kept under a key of its own
// (not in the community record) for as long as a postback signed with it just
// before the change can still arrive: the receiver's default signature window
// (5 minutes back), its 30 s ahead allowance, and a minute for the clocks of
// the process that saved and the one that receives. The receiver verifies with
// the current secret first and with this one only when that fails.

import { DEFAULT_MAX_AGE_MS, DEFAULT_MAX_FUTURE_MS, secretKeyBytes } from "./_jive_extn.ts";
import type { Community } from "../types.ts";

/** Slack for the clocks of the process that rotated and the receiver's. */
export const ROTATION_MARGIN_MS = 60_000;
/** How long after a rotation the previous secret verifies: 5 min + 30 s + 1 min = 6 min 30 s. */
export const PREVIOUS_SECRET_MS = DEFAULT_MAX_AGE_MS + DEFAULT_MAX_FUTURE_MS + ROTATION_MARGIN_MS;
/** How long KV keeps the entry: a minute past the end of its use, then it expires on its own. */
export const PREVIOUS_SECRET_KEEP_MS = PREVIOUS_SECRET_MS + 60_000;

/** What the rotation entry holds (times in ms since the epoch). The secret never leaves the module. */
export interface PreviousSecret {
  /** The replaced client secret. */
  secret: string;
  /** The client id it was paired with, when the community had one. */
  clientId?: string;
  /** When `save` replaced it. */
  rotatedAt: number;
  /** The last moment (receiver clock) a postback signed with it is accepted. */
  validUntil: number;
}

/**
 * The rotation entry a save writes: when the stored community had a client
 * secret and the new record has another one (or none), the stored one becomes
 * the previous secret; otherwise `null` (a first secret, or the same one).
 */
export function rotationOf(stored: Community | null, next: Community, now: number): PreviousSecret | null {
  const secret = stored?.clientSecret;
  if (typeof secret !== "string" || secret === "" || secret === next.clientSecret) return null;
  return {
    secret,
    ...(typeof stored!.clientId === "string" ? { clientId: stored!.clientId } : {}),
    rotatedAt: now,
    validUntil: now + PREVIOUS_SECRET_MS,
  };
}

/** The HMAC key of a client secret, or `null` when it cannot verify signatures. */
export function verifyingKey(secret: unknown): Uint8Array | null {
  try {
    return secretKeyBytes(secret, "verify");
  } catch {
    return null;
  }
}

/** Whether a value is a time (ms since the epoch) a `Date` can hold. */
function isTime(value: unknown): value is number {
  return typeof value === "number" && Math.abs(value) <= 8.64e15;
}

/**
 * A rotation entry as read from KV, or `null` when it is none: one edited by hand into junk (not an object, a
 * secret that is no string, a `rotatedAt` or `validUntil` that is no time a `Date` holds) is read as no rotation,
 * so its secret never verifies on an end that cannot be compared, and nothing that shows it throws.
 */
export function readRotation(value: unknown): PreviousSecret | null {
  if (typeof value !== "object" || value === null) return null;
  const { secret, clientId, rotatedAt, validUntil } = value as Partial<Record<keyof PreviousSecret, unknown>>;
  if (typeof secret !== "string" || !isTime(rotatedAt) || !isTime(validUntil)) return null;
  if (clientId !== undefined && typeof clientId !== "string") return null;
  return { secret, ...(clientId === undefined ? {} : { clientId }), rotatedAt, validUntil };
}
