/**
 * Sessions of signed-in users, kept in Deno KV with an expiry. A session id
 * is 32 random bytes (base64url); it travels only in the HttpOnly cookie and
 * is never logged or rendered, and the KV keeps only its SHA-256 (see
 * `kv_keys.ts`). Each session carries its own CSRF token for the forms of
 * the console.
 *
 * @module
 */

import { isBearerId, oauthStateKey, rawSessionKey, sessionKey } from "./kv_keys.ts";
import { retryLocked } from "./kv_retry.ts";

/** A signed-in user's session as stored in KV. */
export interface Session {
  /** Who signed in (from the provider's userinfo, or its `sub`). */
  user: { sub: string; name: string };
  /** The per-session token every form must echo in `_csrf`. */
  csrf: string;
  /** When the session was created (ISO 8601). */
  createdAt: string;
}

/** How long a pending authorization may be taken. */
const PENDING_TTL_MS = 10 * 60_000;

/** A pending authorization as stored, with when. */
type StoredPending = PendingAuthorization & { savedAt?: number };

/** A pending OAuth authorization: the PKCE verifier and where it leads. */
export interface PendingAuthorization {
  /** What the authorization is for. */
  kind: "signin" | "community";
  /** The PKCE code verifier. */
  codeVerifier: string;
  /** The `state` parameter sent to the provider. */
  state: string;
  /** The page to return to afterwards (a local path). */
  returnTo: string;
  /** For `kind: "community"`: the community's tenant id. */
  tenantId?: string;
}

/** Whether a stored value is a path of this console (`/...`, never `//host` or `/\\host`): where a redirect may lead. */
export function isLocalPath(value: unknown): value is string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value);
}

/** How far ahead of this clock a session's creation time may lie (another process's clock): no further. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Whether a stored value is a session this console made and still live: a user of string `sub` and `name`, a CSRF
 * token of a bearer id's shape, a creation time that is a time, not far ahead of now, and within `ttlMs` of it. A
 * value edited by hand into junk (or left by a bad write) is none, so it signs nobody in and matches no form.
 */
function isLiveSession(value: unknown, ttlMs: number): value is Session {
  if (typeof value !== "object" || value === null) return false;
  const { user, csrf, createdAt } = value as Partial<Record<keyof Session, unknown>>;
  if (typeof user !== "object" || user === null) return false;
  const { sub, name } = user as Record<string, unknown>;
  if (typeof sub !== "string" || sub === "" || typeof name !== "string") return false;
  if (typeof csrf !== "string" || !isBearerId(csrf) || typeof createdAt !== "string") return false;
  const at = Date.parse(createdAt);
  // KV expiry is lazy: check the age as well.
  return Number.isFinite(at) && at <= Date.now() + CLOCK_SKEW_MS && at + ttlMs >= Date.now();
}

/**
 * Whether a stored value is a pending authorization the console made: its kind, a string verifier and state, a
 * return page of the console (a path, never `//`), a string tenant id if any, and a save time that is a number. A
 * value edited by hand into junk is none: its callback signs nobody in and leads nowhere else.
 */
function isPending(value: unknown): value is StoredPending {
  if (typeof value !== "object" || value === null) return false;
  const { kind, codeVerifier, state, returnTo, tenantId, savedAt } = value as Record<string, unknown>;
  return (kind === "signin" || kind === "community") && typeof codeVerifier === "string" &&
    typeof state === "string" && isLocalPath(returnTo) &&
    (tenantId === undefined || typeof tenantId === "string") && typeof savedAt === "number" &&
    Number.isFinite(savedAt);
}

/** Returns `bytes` random bytes as base64url text without padding. */
export function randomToken(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let bin = "";
  for (const b of buf) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replaceAll(
    "=",
    "",
  );
}

/** Compares two strings in constant time (for equal lengths). */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

/** Sessions and pending authorizations in KV. */
export class SessionStore {
  #kv: Deno.Kv;
  #ttlMs: number;

  /**
   * @param kv the console's KV
   * @param ttlMs how long a session lives
   */
  constructor(kv: Deno.Kv, ttlMs: number) {
    this.#kv = kv;
    this.#ttlMs = ttlMs;
  }

  /** The session lifetime in milliseconds. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Creates a session for `user`; resolves with its id. */
  async create(user: Session["user"]): Promise<string> {
    const id = randomToken();
    const session: Session = {
      user,
      csrf: randomToken(),
      createdAt: new Date().toISOString(),
    };
    await retryLocked(() => this.#kv.set(sessionKey(id), session, { expireIn: this.#ttlMs }));
    return id;
  }

  /** The live session with that id, or `null` (unknown or expired). */
  async get(id: string | undefined): Promise<Session | null> {
    if (!id || id.length > 100) return null;
    const value = (await this.#kv.get<unknown>(sessionKey(id))).value ?? await this.#moveRaw(id);
    return isLiveSession(value, this.#ttlMs) ? value : null;
  }

  /**
   * A session an earlier version kept under its raw id, moved to its hashed key (set there, deleted under the raw
   * id, in one commit) so that an upgrade signs nobody out; `null` when there is none.
   */
  async #moveRaw(id: string): Promise<Session | null> {
    const raw = rawSessionKey(id);
    const entry = raw ? await this.#kv.get<Session>(raw) : null;
    if (!entry || !isLiveSession(entry.value, this.#ttlMs)) return null;
    const left = Date.parse(entry.value.createdAt) + this.#ttlMs - Date.now();
    if (!(left > 0)) return null;
    const key = sessionKey(id);
    const res = await retryLocked(() =>
      this.#kv.atomic().check(entry, { key, versionstamp: null }).set(key, entry.value, { expireIn: left })
        .delete(entry.key).commit()
    );
    // Lost to a request that moved it (or a sign-out that deleted it) at once: what the hashed key holds now.
    return res.ok ? entry.value : (await this.#kv.get<Session>(key)).value;
  }

  /** Deletes a session (sign-out), under its hashed key and under its raw id (as an earlier version kept it). */
  async destroy(id: string | undefined): Promise<void> {
    if (!id || id.length > 100) return;
    const raw = rawSessionKey(id);
    const atomic = this.#kv.atomic().delete(sessionKey(id));
    if (raw) atomic.delete(raw);
    await retryLocked(() => atomic.commit());
  }

  /** Stores a pending authorization for ten minutes; resolves with its id. */
  async savePending(pending: PendingAuthorization): Promise<string> {
    const id = randomToken();
    const stored: StoredPending = { ...pending, savedAt: Date.now() };
    await retryLocked(() => this.#kv.set(oauthStateKey(id), stored, { expireIn: PENDING_TTL_MS }));
    return id;
  }

  /**
   * Takes (reads and deletes) a pending authorization, or `null`. With `state`, only the authorization of that
   * `state` is taken: another one (a sign-in of another tab, a callback the user never asked for) is left alone.
   */
  async takePending(
    id: string | undefined,
    state?: string,
  ): Promise<PendingAuthorization | null> {
    if (!id || id.length > 100) return null;
    const entry = await this.#kv.get<StoredPending>(oauthStateKey(id));
    if (!isPending(entry.value)) return null;
    if (state !== undefined && !timingSafeEqual(entry.value.state, state)) return null;
    // Used once: only the request that deletes it gets it.
    const res = await retryLocked(() => this.#kv.atomic().check(entry).delete(entry.key).commit());
    // KV's expiry is lazy: one older than ten minutes is refused here too (and is gone now).
    const { savedAt, ...pending } = entry.value;
    const now = Date.now();
    return res.ok && savedAt! <= now + CLOCK_SKEW_MS && savedAt! + PENDING_TTL_MS >= now ? pending : null;
  }
}
