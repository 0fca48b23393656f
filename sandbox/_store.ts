/**
 * The sandbox's state in Deno KV: its OAuth clients, authorization codes,
 * tokens (stored under their SHA-256, never in clear) and webhooks.
 *
 * @module
 */

import {
  accessKey,
  accessPrefix,
  clientKey,
  type ClientKind,
  codeKey,
  redirectUriKey,
  refreshKey,
  revokedGrantKey,
} from "./_keys.ts";
import { CODE_FIELDS, isAccessGrant, isRefreshGrant, isUsedMark, shaped } from "./_record_shapes.ts";
import { randomToken, sha256Hex } from "./_crypto.ts";
import { HookStore } from "./_hook_store.ts";

export type { HookRecord } from "./_hook_store.ts";

/** An OAuth client of the sandbox. */
export interface ClientRecord {
  /** Which client this is. */
  kind: ClientKind;
  /** Its client id. */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
}

/** An authorization code waiting to be exchanged. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  sub: string;
  tenantId: string;
  expiresAt: number;
}

/** An authorization code once used: what a second use revokes. */
interface UsedCode {
  used: true;
  grantId: string;
  /** Until when (ms since the epoch, real time as KV's expiry) a token of its grant may live; absent in older ones. */
  keptUntil?: number;
}

/** What an access or refresh token grants. */
export interface GrantRecord {
  clientId: string;
  sub: string;
  scope: string;
  tenantId: string;
  /** The authorization code the tokens came from (its hash), absent for tokens issued by hand. */
  grantId?: string;
  /**
   * Until when (ms since the epoch, real time) a token of the grant issued so far may live, by the lifetimes of the
   * sandbox that issued each: one restarted with shorter ones still revokes the earlier tokens as long.
   */
  keptUntil?: number;
}

/** A refresh token's grant and its expiry (ms since the epoch, by the sandbox's clock; absent in older records). */
export interface RefreshRecord extends GrantRecord {
  refreshExpiresAt?: number;
}

/** An access token's grant and its expiry (ms since the epoch). */
export interface AccessRecord extends GrantRecord {
  expiresAt: number;
}

/** Lifetime of an authorization code. */
export const CODE_TTL_MS = 60_000;
/** Lifetime of a refresh token (KV's and the sandbox's clock's) unless the sandbox's `refreshTokenTtlSeconds` says. */
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How much longer than its lifetime an access token stays in KV (read as expired meanwhile, not as unknown). */
const ACCESS_KEPT_MS = 60_000;

/**
 * How long a token of a grant may stay in KV, for an access token lifetime of `ttlMs` and a refresh token lifetime
 * of `refreshMs`: the longer of the two. The markers that revoke a grant (its used code, its revocation) are kept as
 * long, so that no token of it outlives them, whatever the sandbox's token lifetimes (over 30 days included).
 */
export function grantTokensKeptMs(ttlMs: number, refreshMs: number): number {
  return Math.max(ttlMs + ACCESS_KEPT_MS, refreshMs);
}

function newClient(kind: ClientKind, fixed?: { clientId: string; clientSecret: string }): ClientRecord {
  if (kind === "community" && fixed) return { kind, ...fixed };
  if (kind === "community") {
    // Shaped like the platform's: an id ending in ".i", a base64 secret
    // ending in ".s" (dropped before the secret is used as HMAC key).
    const raw = crypto.getRandomValues(new Uint8Array(32));
    return {
      kind,
      clientId: `${randomToken(18).toLowerCase().replaceAll(/[-_]/g, "x")}.i`,
      clientSecret: `${btoa(String.fromCharCode(...raw))}.s`,
    };
  }
  return { kind, clientId: "sandbox-console", clientSecret: randomToken(32) };
}

/** The sandbox's KV state: its OAuth clients, codes and tokens, and (from {@linkcode HookStore}) its webhooks. */
export class SandboxStore extends HookStore {
  #kv: Deno.Kv;
  #clients = new Map<ClientKind, Promise<ClientRecord>>();

  #communityClient?: { clientId: string; clientSecret: string };
  /** How long a refresh token lives (ms). */
  readonly #refreshMs: number;

  constructor(
    kv: Deno.Kv,
    communityClient?: { clientId: string; clientSecret: string },
    refreshMs: number = REFRESH_TTL_MS,
  ) {
    super(kv);
    this.#communityClient = communityClient;
    this.#kv = kv;
    this.#refreshMs = refreshMs;
  }

  /** The client of this kind, created (once, atomically) on first use. */
  client(kind: ClientKind): Promise<ClientRecord> {
    let pending = this.#clients.get(kind);
    if (!pending) {
      pending = this.#loadClient(kind);
      this.#clients.set(kind, pending);
      pending.catch(() => this.#clients.delete(kind));
    }
    return pending;
  }

  async #loadClient(kind: ClientKind): Promise<ClientRecord> {
    const key = clientKey(kind);
    for (let attempt = 0; attempt < 5; attempt++) {
      const found = await this.#kv.get<ClientRecord>(key);
      if (found.value) return found.value;
      const created = newClient(kind, this.#communityClient);
      const result = await this.#kv.atomic().check({ key, versionstamp: null })
        .set(key, created).commit();
      if (result.ok) return created;
    }
    throw new Error(`Cannot create the sandbox ${kind} client`);
  }

  /** The client whose id this is, or `null`. */
  async clientById(clientId: string): Promise<ClientRecord | null> {
    for (const kind of ["community", "console"] as const) {
      const client = await this.client(kind);
      if (client.clientId === clientId) return client;
    }
    return null;
  }

  /** Registers `uri` as a redirect URI of the client of this kind (kept in KV, shared by every sandbox on it). */
  async registerRedirectUri(kind: ClientKind, uri: string): Promise<void> {
    const key = redirectUriKey(kind, await sha256Hex(uri));
    if ((await this.#kv.get(key)).value === null) await this.#kv.set(key, uri);
  }

  /** Whether `uri` is, exactly, a registered redirect URI of the client of this kind. */
  async isRedirectUri(kind: ClientKind, uri: string): Promise<boolean> {
    return (await this.#kv.get<string>(redirectUriKey(kind, await sha256Hex(uri)))).value === uri;
  }

  /** Stores a code; returns the code itself. */
  async createCode(record: CodeRecord): Promise<string> {
    const code = randomToken(32);
    await this.#kv.set(codeKey(await sha256Hex(code)), record, {
      expireIn: CODE_TTL_MS,
    });
    return code;
  }

  /**
   * Uses a code up (once): its record and the grant id its tokens carry, or
   * `null` when it is unknown or was used already. A second use revokes the
   * tokens the first one got (RFC 6749 4.1.2: whoever used it first may have
   * stolen it), whether it comes later or at the same moment. `ttlMs` is the lifetime of the access tokens the
   * sandbox issues: the markers are kept as long as a token of the grant may live ({@linkcode grantTokensKeptMs}).
   */
  async consumeCode(code: string, ttlMs: number): Promise<(CodeRecord & { grantId: string }) | null> {
    const keptMs = grantTokensKeptMs(ttlMs, this.#refreshMs);
    const grantId = await sha256Hex(code);
    const key = codeKey(grantId);
    for (;;) {
      const found = await this.#kv.get<CodeRecord | UsedCode>(key);
      // A record edited by hand into junk (or left by a bad write) is no code: unknown, as one never issued.
      if (!isUsedMark(found.value) && !shaped(found.value, CODE_FIELDS, "expiresAt")) return null;
      const value = found.value as CodeRecord | UsedCode;
      if ("used" in value) {
        const expireIn = Math.max(keptMs, (value.keptUntil ?? 0) - Date.now());
        await this.#kv.set(revokedGrantKey(value.grantId), true, { expireIn });
        return null;
      }
      const used: UsedCode = { used: true, grantId };
      // Kept as long as a token it gave may live, so that a late replay still revokes them (and longer by each refresh).
      const result = await this.#kv.atomic().check(found).set(key, used, { expireIn: keptMs }).commit();
      if (result.ok) return { ...value, grantId };
    }
  }

  /** Whether the tokens of this grant were revoked (a replayed code); tokens issued by hand have none. */
  async #revoked(record: GrantRecord | null): Promise<boolean> {
    if (!record?.grantId) return false;
    return (await this.#kv.get(revokedGrantKey(record.grantId))).value !== null;
  }

  /** Issues an access and a refresh token for a grant. */
  async issueTokens(
    grant: GrantRecord,
    expiresAt: number,
    ttlMs: number,
    replacing?: Deno.AtomicCheck,
    given: { accessToken?: string; refreshToken?: string } = {},
  ): Promise<{ accessToken: string; refreshToken: string } | null> {
    const accessToken = given.accessToken ?? randomToken(32);
    const refreshToken = given.refreshToken ?? randomToken(32);
    // A refresh token's grant as stored also holds when it expires: the access token's does not.
    const { refreshExpiresAt: _, ...base } = grant as RefreshRecord;
    // Its markers outlive every token of the grant: these, and those an earlier issue (another sandbox's) gave.
    const keptMs = grantTokensKeptMs(ttlMs, this.#refreshMs);
    // (A minute more: KV counts a token's lifetime from its commit, a little after now.)
    if (base.grantId) base.keptUntil = Math.max(base.keptUntil ?? 0, Date.now() + keptMs + ACCESS_KEPT_MS);
    const access: AccessRecord = { ...base, expiresAt };
    const op = this.#kv.atomic();
    if (replacing) op.check(replacing).delete(replacing.key);
    op.set(accessKey(await sha256Hex(accessToken)), access, {
      expireIn: ttlMs + ACCESS_KEPT_MS,
    });
    // Its expiry by the sandbox's clock (`now`, which tests move), beside KV's own by real time.
    const refresh: RefreshRecord = { ...base, refreshExpiresAt: expiresAt - ttlMs + this.#refreshMs };
    op.set(refreshKey(await sha256Hex(refreshToken)), refresh, {
      expireIn: this.#refreshMs,
    });
    // New tokens of a grant from a code (a refresh's): its used code's marker is kept as long as them, so that the
    // code's replay still revokes them (consumeCode).
    if (base.grantId) {
      const used: UsedCode = { used: true, grantId: base.grantId, keptUntil: base.keptUntil };
      op.set(codeKey(base.grantId), used, { expireIn: Math.max(keptMs, base.keptUntil! - Date.now()) });
    }
    const result = await op.commit();
    return result.ok ? { accessToken, refreshToken } : null;
  }

  /** The grant of an access token (expired or not), or `null`, also when its grant was revoked. */
  async accessGrant(token: string): Promise<AccessRecord | null> {
    const record = (await this.#kv.get<unknown>(accessKey(await sha256Hex(token)))).value;
    // A record edited by hand into junk (or left by a bad write) is no grant: the token is unknown.
    if (!isAccessGrant(record)) return null;
    return await this.#revoked(record as AccessRecord) ? null : record as AccessRecord;
  }

  /** Deletes an access token; `false` when it was not known. */
  async revokeAccess(token: string): Promise<boolean> {
    const key = accessKey(await sha256Hex(token));
    const found = await this.#kv.get(key);
    if (found.value === null) return false;
    await this.#kv.delete(key);
    return true;
  }

  /** The KV entry of a refresh token, for rotation; without a value when its grant was revoked. */
  async refreshEntry(
    token: string,
  ): Promise<Deno.KvEntryMaybe<RefreshRecord>> {
    const entry = await this.#kv.get<RefreshRecord>(refreshKey(await sha256Hex(token)));
    // A record edited into junk (no grant's texts, an expiry that is no time) is no refresh token: unknown.
    if (entry.value !== null && !isRefreshGrant(entry.value)) {
      return { key: entry.key, value: null, versionstamp: null };
    }
    return await this.#revoked(entry.value) ? { key: entry.key, value: null, versionstamp: null } : entry;
  }

  /** Marks every access token as expired; returns how many. */
  async expireAccessTokens(at: number): Promise<number> {
    let count = 0;
    for await (
      const entry of this.#kv.list<AccessRecord>({ prefix: accessPrefix() })
    ) {
      await this.#kv.set(entry.key, { ...entry.value, expiresAt: at }, {
        expireIn: 60_000,
      });
      count++;
    }
    return count;
  }
}
