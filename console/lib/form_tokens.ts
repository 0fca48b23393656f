/**
 * One-time form tokens: a form that must not act twice (Register: Back,
 * then submit again, would make a second identical hook; Send test event,
 * Replay to receiver and Redeliver through routes/_once.ts) carries a token
 * issued to the session it is shown to; its first submission takes it, and
 * a later one with the same token learns what the first did. Taken tokens
 * are kept in KV for a day.
 *
 * A token is a nonce (when it was issued, and random bytes) and its
 * HMAC-SHA256 under the session id (which travels only in the HttpOnly
 * cookie) and the form's scope (such as the delivery a Redeliver button is
 * for), so issuing one writes nothing, and a made-up token, one shown to
 * another session or another form, is refused. So is one older than half
 * the day its use is kept: once that use is forgotten, the same POST sent
 * again (a session may live 90 days) would act a second time.
 *
 * @module
 */

import { formTokenKey } from "./kv_keys.ts";
import { retryLocked, SETTLE_MS, waitWhile } from "./kv_retry.ts";
import { isLocalPath, timingSafeEqual } from "./session.ts";

/** How long a taken token is remembered. */
const TOKEN_TTL_MS = 24 * 3600_000;

/** How long after it is issued a token is taken: well within its use's TTL, whatever the clocks of two processes. */
const TOKEN_LIFE_MS = TOKEN_TTL_MS / 2;

/** What a token's first submission left: in progress, or the record it made. */
export interface TokenUse {
  /** The webhook record the submission made, once it is done. */
  hookId?: string;
  /** The submission ended without knowing whether the platform made the hook (it did not answer in time). */
  uncertain?: boolean;
  /** Where the submission's answer led (its redirect), once it is done. */
  location?: string;
}

/** The message of a submission whose token is missing, made up, or another session's. */
export const FORM_TOKEN_REFUSED =
  "This form has expired or was opened in another session: check the values below and register again";

/** Characters of a token's nonce (16 bytes, base64url): 6 bytes of its issue time in ms, then 10 random bytes. */
const NONCE_CHARS = 22;

/** A nonce naming its issue time, `at` (ms since the epoch), then 10 random bytes, base64url (22 characters). */
function nonceAt(at: number): string {
  const bytes = new Uint8Array(16);
  for (let i = 5, t = at; i >= 0; i--, t = Math.floor(t / 256)) bytes[i] = t % 256;
  crypto.getRandomValues(bytes.subarray(6));
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** When the token with nonce `nonce` was issued (ms since the epoch). */
function issuedAt(nonce: string): number {
  const bytes = Uint8Array.fromBase64(nonce, { alphabet: "base64url" });
  return bytes.subarray(0, 6).reduce((t, b) => t * 256 + b, 0);
}

/**
 * What a stored use says, read as a {@linkcode TokenUse}: `{}` (in progress) as it is; the fields of their types
 * (a redirect only within the console); and anything else, a value edited by hand into junk or left by a bad write,
 * as a submission whose outcome is unknown (`uncertain`): the form acts no second time and nothing waits on it.
 */
function useOf(value: unknown): TokenUse {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { uncertain: true };
  const { hookId, uncertain, location } = value as Record<string, unknown>;
  if (Object.keys(value).length === 0) return {};
  const use: TokenUse = {};
  if (typeof hookId === "string" && hookId !== "") use.hookId = hookId;
  if (uncertain === true) use.uncertain = true;
  if (isLocalPath(location)) use.location = location;
  return Object.keys(use).length > 0 ? use : { uncertain: true };
}

/** Whether `value` looks like a form token (a nonce and its MAC, base64url). */
function valid(value: string): boolean {
  return /^[A-Za-z0-9_-]{65}$/.test(value);
}

/** The MAC of `nonce` (and the form's `scope`, if any) under the session id, base64url (43 characters). */
async function macOf(sessionId: string, nonce: string, scope: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(sessionId),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign(
      "HMAC",
      key,
      encoder.encode(scope ? `form-token\n${scope}\n${nonce}` : `form-token\n${nonce}`),
    ),
  );
  let bin = "";
  for (const b of mac) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** One-time form tokens in KV. */
export class FormTokens {
  #kv: Deno.Kv;

  /** @param kv the console's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * Issues a token for a form shown to the session `sessionId`.
   *
   * @param sessionId the session's id (from its cookie)
   * @param scope what the form acts on, when the token must not serve another form (`""`: the register form)
   * @returns the token, for the form's hidden field
   */
  async issue(sessionId: string, scope = ""): Promise<string> {
    const nonce = nonceAt(Date.now());
    return nonce + await macOf(sessionId, nonce, scope);
  }

  /**
   * Takes a token for a submission in the session `sessionId`: `null` when
   * this submission is the first (go ahead), else what the first one left.
   *
   * @throws {TypeError} {@linkcode FORM_TOKEN_REFUSED} when the token is
   *   missing or malformed, was not issued to this session and `scope`, or
   *   was issued longer ago than a taken token is remembered for sure
   */
  async take(token: string, sessionId: string, scope = ""): Promise<TokenUse | null> {
    if (!valid(token) || !sessionId) throw new TypeError(FORM_TOKEN_REFUSED);
    const nonce = token.slice(0, NONCE_CHARS);
    if (!timingSafeEqual(token.slice(NONCE_CHARS), await macOf(sessionId, nonce, scope))) {
      throw new TypeError(FORM_TOKEN_REFUSED);
    }
    if (Date.now() - issuedAt(nonce) > TOKEN_LIFE_MS) throw new TypeError(FORM_TOKEN_REFUSED);
    const key = formTokenKey(token);
    for (;;) {
      const res = await retryLocked(() =>
        this.#kv.atomic().check({ key, versionstamp: null }).set(key, {}, { expireIn: TOKEN_TTL_MS }).commit()
      );
      if (res.ok) return null;
      const entry = await this.#kv.get<unknown>(key);
      if (entry.versionstamp !== null) return useOf(entry.value);
      // Expired between the check and the read: take it again.
    }
  }

  /** Gives a token back after a submission that changed nothing, so that the form may be sent again. */
  async release(token: string): Promise<void> {
    if (valid(token)) await retryLocked(() => this.#kv.delete(formTokenKey(token)));
  }

  /** Records that a token's submission ended not knowing whether the platform made the hook. */
  async uncertain(token: string): Promise<void> {
    if (!valid(token)) return;
    await retryLocked(() => this.#kv.set(formTokenKey(token), { uncertain: true }, { expireIn: TOKEN_TTL_MS }));
  }

  /** Records where a token's submission led, for a second submission of the form to land there too. */
  async led(token: string, location: string): Promise<void> {
    if (!valid(token)) return;
    await retryLocked(() => this.#kv.set(formTokenKey(token), { location }, { expireIn: TOKEN_TTL_MS }));
  }

  /**
   * What a taken token's first submission left once it ends, waiting up to `timeoutMs` while it is in progress (a
   * double click sends the second before the first is answered): `null` when it gave the token back, so that this
   * submission may take it; the in-progress mark (`{}`) when it did not end in time (15 s by default).
   */
  async settled(token: string, timeoutMs: number = SETTLE_MS): Promise<TokenUse | null> {
    // `{}` marks a submission in progress; what it left once it ended has its fields (junk: an unknown outcome).
    const inProgress = (entry: Deno.KvEntryMaybe<unknown>) =>
      entry.versionstamp !== null && Object.keys(useOf(entry.value)).length === 0;
    const entry = await waitWhile<unknown>(this.#kv, formTokenKey(token), inProgress, timeoutMs);
    return entry.versionstamp === null ? null : useOf(entry.value);
  }

  /**
   * Ends the wait for a token's submission still in progress after {@linkcode settled}: its console may have been
   * killed mid-way (another process on the same KV takes the form sent again), so its outcome is recorded as unknown
   * (`uncertain`: the platform may have made the hook) unless it ended meanwhile. A submission that is only slow
   * still records what it made when it ends, over this mark.
   *
   * @returns what the token's submission left now: `null` when it gave the token back
   */
  async unfinished(token: string): Promise<TokenUse | null> {
    if (!valid(token)) return { uncertain: true };
    const key = formTokenKey(token);
    for (;;) {
      const entry = await retryLocked(() => this.#kv.get<unknown>(key));
      if (entry.versionstamp === null) return null;
      const use = useOf(entry.value);
      if (Object.keys(use).length > 0) return use;
      const marked = await retryLocked(() =>
        this.#kv.atomic().check(entry).set(key, { uncertain: true }, { expireIn: TOKEN_TTL_MS }).commit()
      );
      if (marked.ok) return { uncertain: true };
    }
  }

  /** Records what a token's submission made. */
  async done(token: string, hookId: string): Promise<void> {
    if (!valid(token)) return;
    await retryLocked(() => this.#kv.set(formTokenKey(token), { hookId }, { expireIn: TOKEN_TTL_MS }));
  }
}
