/**
 * The community form's fields, reading and checking them, and the small
 * parts the community pages share (the form, the token state).
 *
 * @module
 */

import type { Context } from "hono";
import type { VNode } from "preact";
import { type Community, ConflictError, type SecretRotation } from "../../webhooks/mod.ts";
import type { ConsoleEnv } from "../lib/context.ts";
import { bidiControls } from "../lib/labels.ts";
import { fieldError } from "../components/field_error.ts";
import { utcText } from "../components/LocalTime.tsx";

/** The fields of the community form (secrets are never echoed back). */
export interface CommunityForm {
  name: string;
  tenantId: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  clearTokens: boolean;
  /**
   * The client secret's state the edit form was rendered from ({@linkcode secretStateOf}); `""` when the form did
   * not say (then only the store's check-and-set applies).
   */
  secretFrom: string;
}

/**
 * What the edit form carries of the client secret it was rendered from, so
 * that a new secret sent from a form rendered before another rotation is
 * refused: `none` (no secret), `set`, or `rotated:<time>` while a rotation's
 * entry is kept (its time). Never the secret, nor anything made from it.
 */
export function secretStateOf(community: Community, rotation: SecretRotation | null): string {
  if (!community.clientSecret) return "none";
  return rotation ? `rotated:${rotation.rotatedAt}` : "set";
}

/** The refusal of a new secret whose form was rendered before another rotation (or whose commit found one). */
export const SECRET_CHANGED = "Not saved: the secret changed meanwhile (another client secret was saved after this " +
  "form was loaded). Check the community, then type the secret again if it should still replace the new one";

/**
 * Whether a form sets a new secret though the secret's state now (of
 * `community` and `rotation`, as {@linkcode secretStateOf} says) is not the
 * one it was rendered from. The same state, or a rotation whose entry has
 * since expired or been revoked (`rotated:...`, now `set`), is current; so
 * is a form that did not say (`""`), or one whose secret is the one stored (the same form sent twice: the rotation
 * was its own). A rotation made and expired entirely while a form stayed open (7 min 30 s) is not seen here.
 */
export function staleSecret(form: CommunityForm, community: Community, rotation: SecretRotation | null): boolean {
  const from = form.secretFrom, now = secretStateOf(community, rotation);
  if (!form.clientSecret || from === "" || from === now || form.clientSecret === community.clientSecret) return false;
  return !(from.startsWith("rotated:") && now === "set");
}

export function str(v: unknown): string {
  return typeof v === "string" ? v.trim() : "";
}

export async function readForm(c: Context<ConsoleEnv>): Promise<CommunityForm> {
  const body = await c.req.parseBody();
  return {
    name: str(body.name),
    tenantId: str(body.tenantId),
    baseUrl: str(body.baseUrl).replace(/\/+$/, ""),
    clientId: str(body.clientId),
    clientSecret: str(body.clientSecret),
    accessToken: str(body.accessToken),
    refreshToken: str(body.refreshToken),
    clearTokens: body.clearTokens === "1",
    secretFrom: str(body.secretFrom),
  };
}

export function validate(form: CommunityForm, isNew: boolean): string | null {
  if (!form.name) return "Name is required";
  if (isNew && !form.tenantId) return "Tenant id is required";
  if (form.name.length > 200) return "Name is too long (at most 200 characters)";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(form.name)) return "Name may not hold control characters";
  const bidi = bidiControls(form.name);
  if (bidi.length > 0) {
    return `Name may not hold bidirectional control characters (${
      bidi.join(", ")
    }): they can make text read as something else. They are removed below; save again to keep the rest`;
  }
  if (form.tenantId.length > 200) {
    return "Tenant id is too long (at most 200 characters)";
  }
  if (isNew) {
    // Its page is /communities/{tenant id}: a dot segment would be resolved away, and "new" is the add form's.
    if (form.tenantId === "." || form.tenantId === ".." || form.tenantId === "new") {
      return `Tenant id '${form.tenantId}' cannot be used: the community's page would be another page`;
    }
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(form.tenantId)) return "Tenant id may not hold control characters";
    const tenantBidi = bidiControls(form.tenantId);
    if (tenantBidi.length > 0) {
      return `Tenant id may not hold bidirectional control characters (${
        tenantBidi.join(", ")
      }). They are removed below; save again to keep the rest`;
    }
  }
  let url: URL;
  try {
    url = new URL(form.baseUrl);
  } catch {
    return `Base URL must be an absolute http(s) URL, got '${form.baseUrl}'`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `Base URL must be an absolute http(s) URL, got '${form.baseUrl}'`;
  }
  // No call could use it (fetch refuses a URL with credentials), and the pages and the consent redirect would show it.
  if (url.username || url.password) {
    return "Base URL may not hold a user name or password: the console signs in to the community with OAuth";
  }
  if (form.refreshToken && !form.accessToken) {
    return "A refresh token needs an access token";
  }
  return null;
}

/** The origin of a URL, or "" when it is not one. */
export function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? "").origin;
  } catch {
    return "";
  }
}

/**
 * The form onto the record as it is when it is stored: tokens renewed
 * meanwhile are kept, and a community removed meanwhile stays removed (the
 * caller's `update` calls this with the record it found). A new client
 * secret replaces only the secret that `read` (the record the form was
 * checked against) held: else a {@linkcode ConflictError}. `moved`: the base
 * URL went to another origin, so the stored tokens are forgotten.
 */
export function applyForm(form: CommunityForm, read: Community, current: Community, moved: boolean): Community {
  const updated: Community = { ...current, name: form.name, baseUrl: form.baseUrl };
  if (form.clientId) updated.clientId = form.clientId;
  else delete updated.clientId;
  if (form.clientSecret) {
    // Atomic with the commit: it replaces the secret read before (checked against the form), or keeps its own.
    const own = current.clientSecret === form.clientSecret;
    if (current.clientSecret !== read.clientSecret && !own) throw new ConflictError(SECRET_CHANGED);
    updated.clientSecret = form.clientSecret;
  }
  if (form.clearTokens || moved) {
    delete updated.oauth;
    delete updated.renewedAt;
  }
  if (form.accessToken) {
    updated.oauth = { access_token: form.accessToken, refresh_token: form.refreshToken };
    updated.renewedAt = new Date().toISOString();
  }
  return updated;
}

/** Token state as shown: present or absent, and when renewed. */
export function TokenState({ community }: { community: Community }): VNode {
  const present = Boolean(community.oauth?.access_token);
  return (
    <span class="token-state">
      <span
        class={present ? "state-present" : "state-absent"}
        data-tokens={present ? "present" : "absent"}
      >
        {present ? "present" : "absent"}
      </span>
      {present && (
        <span class="renewed">
          {" · last renewed "}
          {community.renewedAt ? <time dateTime={community.renewedAt}>{utcText(community.renewedAt)}</time> : "never"}
        </span>
      )}
    </span>
  );
}

export function CommunityFields(
  { form, isNew, community, rotation = null, fault }: {
    form: Partial<CommunityForm>;
    isNew: boolean;
    /** The field a refusal is about ({@linkcode faultOf}): marked invalid, described by the page's error. */
    fault?: keyof CommunityForm;
    community?: Community;
    /** The community's secret rotation in force: with `community`, the form carries its secret's state. */
    rotation?: SecretRotation | null;
  },
): VNode {
  return (
    <>
      <label>
        Name
        <input type="text" name="name" required value={form.name ?? ""} {...fieldError(fault === "name")} />
      </label>
      <label>
        Tenant id
        {isNew
          ? (
            <input
              type="text"
              name="tenantId"
              required
              {...fieldError(fault === "tenantId")}
              value={form.tenantId ?? ""}
            />
          )
          : <code>{form.tenantId}</code>}
      </label>
      <label>
        Base URL
        <input
          type="url"
          name="baseUrl"
          required
          {...fieldError(fault === "baseUrl")}
          placeholder="https://community.example.com"
          value={form.baseUrl ?? ""}
        />
      </label>
      <label>
        OAuth client id
        <input type="text" name="clientId" value={form.clientId ?? ""} />
      </label>
      <label>
        <span>
          OAuth client secret {community &&
            (community.clientSecret ? "(set; leave blank to keep)" : "(not set)")}
        </span>
        <input
          type="password"
          name="clientSecret"
          autocomplete="off"
          value=""
        />
      </label>
      {/* The label's words in one element: each child of a grid label is a row of its own. */}
      <label>
        <span>
          Access token {community && (
            <>
              (<TokenState community={community} />; leave blank to keep)
            </>
          )}
        </span>
        <input
          type="password"
          name="accessToken"
          autocomplete="off"
          {...fieldError(fault === "accessToken")}
          value=""
        />
      </label>
      <label>
        Refresh token
        <input
          type="password"
          name="refreshToken"
          autocomplete="off"
          value=""
        />
      </label>
      {community && <input type="hidden" name="secretFrom" value={secretStateOf(community, rotation)} />}
      {community && (
        <label class="check">
          <input type="checkbox" name="clearTokens" value="1" /> Forget the stored tokens
        </label>
      )}
    </>
  );
}

/** Adds the community routes to `app`. */
