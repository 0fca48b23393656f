/**
 * Forms sent after their session ended (signed out in another tab, or
 * expired): the sign-in redirect leads back to the page the form was on, not
 * to the form's POST URL, and the form's non-secret fields ride along in a
 * short-lived draft in KV, keyed by a random id in that page's address. The
 * page takes the draft once, fills its form with it and says that the change
 * was not saved. Secrets (client secrets, tokens) are never kept.
 *
 * @module
 */

import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { type ConsoleEnv, cookieName, type Deps, secureCookies } from "./context.ts";
import { atRest, draftKey, isBearerId } from "./kv_keys.ts";
import { retryLocked } from "./kv_retry.ts";
import { randomToken, timingSafeEqual } from "./session.ts";

/** How long a draft waits for its sign-in. */
const DRAFT_TTL_MS = 30 * 60_000;
/**
 * The cookie binding drafts to the browser that sent their forms: anyone can send a form naming this origin (a
 * script sets `Origin`), and the page its link leads to must not show another browser what it never typed.
 */
const DRAFT_COOKIE = "cw_draft";
/** Largest form body read into a draft. */
const MAX_DRAFT_BODY = 256 * 1024;
/** Longest value kept of one field, and most values of a list field. */
const MAX_VALUE = 2000;
const MAX_VALUES = 64;

/** Which form a draft holds, by the fields it keeps. */
export type DraftKind =
  | "label"
  | "events"
  | "register"
  | "community-new"
  | "community-edit"
  | "forward"
  | "action";

/** The fields each kind of form keeps (never a secret); list fields end in `[]`. */
const KEPT: Record<DraftKind, string[]> = {
  label: ["name", "description"],
  events: ["events[]", "object"],
  register: ["tenantId", "events[]", "object", "callback"],
  "community-new": ["name", "tenantId", "baseUrl", "clientId"],
  "community-edit": ["name", "baseUrl", "clientId"],
  forward: ["url"],
  action: [],
};

/** A kept form. */
export interface Draft {
  /** The page the form was on (a local path). */
  page: string;
  /** Which form. */
  kind: DraftKind;
  /** Its kept fields. */
  fields: Record<string, string | string[]>;
}

/** The notice of a page that got its draft back. */
export const DRAFT_NOTICE =
  "Your session had ended, so the form you sent was not saved. You are signed in again: what you typed is filled in below where it could be kept (secrets are never kept); check it and send it again.";

/** Forms of the console by POST path: the page each is on, and its kind. */
const FORMS: [RegExp, (m: RegExpExecArray) => string, DraftKind][] = [
  [/^\/webhooks$/, () => "/webhooks/new", "register"],
  [/^\/webhooks\/([^/]+)\/label$/, (m) => `/webhooks/${m[1]}`, "label"],
  [/^\/webhooks\/([^/]+)\/events$/, (m) => `/webhooks/${m[1]}`, "events"],
  [/^\/webhooks\/([^/]+)\/(enabled|test|unregister|forget)$/, (m) => `/webhooks/${m[1]}`, "action"],
  [/^\/webhooks\/([^/]+)\/forward$/, (m) => `/webhooks/${m[1]}/forward`, "forward"],
  [
    /^\/webhooks\/([^/]+)\/forward\/([^/]+\/(enabled|remove)|redeliver\/[^/]+)$/,
    (m) => `/webhooks/${m[1]}/forward`,
    "action",
  ],
  [/^\/communities$/, () => "/communities/new", "community-new"],
  [/^\/communities\/([^/]+)$/, (m) => `/communities/${m[1]}`, "community-edit"],
  [/^\/communities\/([^/]+)\/remove$/, (m) => `/communities/${m[1]}`, "action"],
  [/^\/communities\/([^/]+)\/reconcile$/, (m) => `/communities/${m[1]}/reconcile`, "action"],
  [/^\/deliveries\/([^/]+)\/replay$/, (m) => `/deliveries/${m[1]}`, "action"],
];

/**
 * The page a form posted to `path` is on, and its kind; `null` for a path
 * that is no form of the console.
 */
export function formPage(path: string): { page: string; kind: DraftKind } | null {
  for (const [pattern, page, kind] of FORMS) {
    const m = pattern.exec(path);
    if (m) return { page: page(m), kind };
  }
  return null;
}

/** The kept fields of a form body, by its kind. */
function keep(kind: DraftKind, body: URLSearchParams): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const spec of KEPT[kind]) {
    if (spec.endsWith("[]")) {
      const name = spec.slice(0, -2);
      fields[name] = body.getAll(name).slice(0, MAX_VALUES).map((v) => v.slice(0, MAX_VALUE));
    } else {
      fields[spec] = (body.get(spec) ?? "").slice(0, MAX_VALUE);
    }
  }
  // A URL's user info is a password or a token (the relay and the community form refuse it anyway): never kept.
  for (const name of ["url", "baseUrl"]) {
    const text = fields[name];
    if (typeof text !== "string" || !text.includes("@")) continue;
    const parsed = URL.parse(text);
    if (parsed) parsed.username = parsed.password = "";
    fields[name] = parsed?.href ?? "";
  }
  return fields;
}

/**
 * Keeps the form of a request whose session ended; resolves with where to go
 * after sign-in: the form's page, with the draft's id when one was kept. A
 * draft is kept only when `trusted`: a form sent from this console's pages
 * (so another site cannot prefill one), within its address's allowance of
 * kept forms (anyone can send one: rate_limits.ts).
 *
 * @param c the request (a POST without a session); its answer binds the draft to the browser (an HttpOnly cookie)
 * @param deps the console's dependencies (its KV)
 * @param trusted whether the form may be kept (from this console's origin, within its address's allowance)
 * @returns a local path
 */
export async function keepForm(c: Context<ConsoleEnv>, deps: Deps, trusted: boolean): Promise<string> {
  const kv = deps.kv;
  const form = formPage(c.req.path);
  if (!form) return "/";
  if (!trusted) return form.page;
  let body = new URLSearchParams();
  const type = c.req.header("content-type") ?? "";
  const length = Number(c.req.header("content-length"));
  if (KEPT[form.kind].length > 0 && Number.isFinite(length) && length <= MAX_DRAFT_BODY) {
    try {
      if (type.startsWith("application/x-www-form-urlencoded")) body = new URLSearchParams(await c.req.text());
      else if (type.startsWith("multipart/form-data")) {
        const data = await c.req.formData();
        for (const [name, value] of data) if (typeof value === "string") body.append(name, value);
      }
    } catch {
      // An unreadable body keeps nothing; the page still says the change was not saved.
    }
  }
  const id = randomToken();
  const name = cookieName(c, deps, DRAFT_COOKIE);
  const held = getCookie(c, name) ?? "";
  const owner = isBearerId(held) ? held : randomToken();
  setCookie(c, name, owner, {
    httpOnly: true,
    sameSite: "Lax",
    secure: secureCookies(deps, c.req.url),
    path: "/",
    maxAge: DRAFT_TTL_MS / 1000,
  });
  const put = (fields: Draft["fields"]) => {
    const draft: Draft = { page: form.page, kind: form.kind, fields };
    // The cookie's hash, like the id: the KV alone names no browser's drafts.
    const stored = { ...draft, owner: atRest(owner), savedAt: Date.now() };
    return retryLocked(() => kv.set(draftKey(id), stored, { expireIn: DRAFT_TTL_MS }));
  };
  // Fields past what one KV value holds (64 KiB, wide characters at two bytes) are not kept: the page still comes
  // back, and still says the change was not saved.
  await put(keep(form.kind, body)).catch((error) => {
    if (!/too large/i.test(String((error as Error)?.message))) throw error;
    return put({});
  });
  return `${form.page}?${new URLSearchParams({ draft: id })}`;
}

/**
 * Takes (reads once and deletes) the draft named by the request's `?draft=`,
 * when it was kept for this very page and this browser sent its form (its
 * draft cookie); another browser's link takes nothing and leaves it.
 *
 * @param c the request of the page
 * @param deps the console's dependencies (its KV)
 * @returns the draft, or `null`
 */
export async function takeDraft(c: Context<ConsoleEnv>, deps: Deps): Promise<Draft | null> {
  const kv = deps.kv;
  const id = c.req.query("draft");
  if (!id || id.length > 100) return null;
  const entry = await kv.get<Draft & { savedAt: number; owner?: string }>(draftKey(id));
  if (typeof entry.value !== "object" || entry.value === null) return null;
  const held = getCookie(c, cookieName(c, deps, DRAFT_COOKIE)) ?? "";
  if (typeof entry.value.owner !== "string" || !timingSafeEqual(entry.value.owner, atRest(held))) return null;
  const res = await retryLocked(() => kv.atomic().check(entry).delete(entry.key).commit());
  const { savedAt, page, kind, fields } = entry.value;
  if (!res.ok || !(typeof savedAt === "number" && savedAt + DRAFT_TTL_MS >= Date.now()) || page !== c.req.path) {
    return null;
  }
  return { page, kind, fields: fieldsOf(fields) };
}

/**
 * A kept draft's fields, read by their types: texts and lists of texts. Fields edited by hand into junk (or left by a
 * bad write) are dropped: the page comes back without them, as with fields too large to keep.
 */
function fieldsOf(value: unknown): Draft["fields"] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const fields: Draft["fields"] = {};
  for (const [name, field] of Object.entries(value)) {
    if (typeof field === "string") fields[name] = field;
    else if (Array.isArray(field)) fields[name] = field.filter((x): x is string => typeof x === "string");
  }
  return fields;
}

/** A text field of a draft. */
export function draftText(draft: Draft, name: string): string {
  const value = draft.fields[name];
  return typeof value === "string" ? value : "";
}

/** A list field of a draft. */
export function draftList(draft: Draft, name: string): string[] {
  const value = draft.fields[name];
  return Array.isArray(value) ? value : [];
}
