// The sandbox's OAuth 2.0 authorization endpoint: the request's checks
// (client, redirect URI, PKCE with S256) and the consent page that approves
// or denies it. A client is sent back only to a redirect URI registered for
// it (communityFor, oauthClientFor), exactly: never to the origin the
// request's Host header names. The token endpoint and userinfo are in _oauth_token.ts.
import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type ConsentFields, consentPage, errorPage } from "./_pages.ts";
import { type ClientRecord, CODE_TTL_MS } from "./_store.ts";
import { SANDBOX_USER_NAME, SANDBOX_USER_SUB } from "./_trigger.ts";
import type { SandboxCore } from "./_core.ts";
import { refuseOtherMethods } from "./_methods.ts";
import {
  AUTHORIZE_PARAMS,
  CODE_CHALLENGE,
  CROSS_SITE_FORM,
  csrfOr,
  FORM_TOO_LARGE,
  MAX_BODY_BYTES,
  repeatedMessage,
  repeatedParameter,
} from "./_http.ts";

/** The longest redirect URI, scope or state an authorization request may carry (a code must fit one KV value). */
const MAX_FIELD_CHARS = 4096;

export function authorizeRoutes(app: Hono, core: SandboxCore): void {
  const { store, basePath, now, tenantId } = core;

  /** Validates an authorization request; the client, or what is wrong. */
  const checkAuthorization = async (fields: Partial<ConsentFields>): Promise<ClientRecord | string> => {
    if (!fields.client_id) return "client_id is missing";
    const client = await store.clientById(fields.client_id);
    if (!client) {
      return `client_id ${JSON.stringify(fields.client_id)} is not a client of the sandbox`;
    }
    if (!fields.redirect_uri) return "redirect_uri is missing";
    for (const name of ["redirect_uri", "scope", "state"] as const) {
      const value = fields[name];
      if (value !== undefined && value.length > MAX_FIELD_CHARS) {
        return `${name} must be at most ${MAX_FIELD_CHARS} characters, got ${value.length}`;
      }
    }
    let redirect: URL;
    try {
      redirect = new URL(fields.redirect_uri);
    } catch {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} is not an absolute URL`;
    }
    if (redirect.protocol !== "http:" && redirect.protocol !== "https:") {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} must be an http(s) URL`;
    }
    if (redirect.hash !== "" || fields.redirect_uri.includes("#")) {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} must not have a fragment`;
    }
    // Each client sends the browser only to a console that asked for it (communityFor, oauthClientFor).
    if (!await store.isRedirectUri(client.kind, fields.redirect_uri)) {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} is not registered for the ${client.kind}'s client`;
    }
    if (fields.response_type !== "code") {
      return `response_type must be "code", got ${JSON.stringify(fields.response_type ?? null)}`;
    }
    if (!fields.code_challenge) {
      return "code_challenge is missing: PKCE with S256 is required";
    }
    if (fields.code_challenge_method !== "S256") {
      return `code_challenge_method must be "S256", got ${JSON.stringify(fields.code_challenge_method ?? null)}`;
    }
    if (!CODE_CHALLENGE.test(fields.code_challenge)) {
      return "code_challenge must be 43 to 128 characters of base64url";
    }
    return client;
  };

  const clientName = (client: ClientRecord): string =>
    client.kind === "console" ? "The console (sign-in)" : "The console, on behalf of the Sandbox community's app";

  app.get("/oauth2/authorize", async (c) => {
    const all = c.req.queries();
    const repeated = repeatedParameter(AUTHORIZE_PARAMS, (name) => all[name]?.length ?? 0);
    if (repeated) return c.html(errorPage(repeatedMessage(repeated)), 400);
    const q = c.req.query();
    const fields: ConsentFields = {
      client_id: q.client_id ?? "",
      redirect_uri: q.redirect_uri ?? "",
      response_type: q.response_type ?? "",
      code_challenge: q.code_challenge ?? "",
      code_challenge_method: q.code_challenge_method ?? "",
      state: q.state,
      scope: q.scope,
    };
    const checked = await checkAuthorization(fields);
    if (typeof checked === "string") {
      return c.html(errorPage(checked), 400);
    }
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    return c.html(
      consentPage(
        `${basePath}/oauth2/authorize`,
        clientName(checked),
        fields,
        SANDBOX_USER_NAME,
      ),
    );
  });

  app.post(
    "/oauth2/authorize",
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.html(errorPage(FORM_TOO_LARGE), 413) }),
    csrfOr((c) => c.html(errorPage(CROSS_SITE_FORM), 403)),
    async (c) => {
      const form = await c.req.parseBody({ all: true }).catch(() => null);
      if (form === null) return c.html(errorPage("The form could not be read"), 400);
      const repeated = repeatedParameter([...AUTHORIZE_PARAMS, "decision"], (name) => [form[name]].flat().length);
      if (repeated) return c.html(errorPage(repeatedMessage(repeated)), 400);
      const text = (name: string): string | undefined =>
        typeof form[name] === "string" ? form[name] as string : undefined;
      const fields: Partial<ConsentFields> = {
        client_id: text("client_id"),
        redirect_uri: text("redirect_uri"),
        response_type: text("response_type"),
        code_challenge: text("code_challenge"),
        code_challenge_method: text("code_challenge_method"),
        state: text("state"),
        scope: text("scope"),
      };
      const checked = await checkAuthorization(fields);
      if (typeof checked === "string") {
        return c.html(errorPage(checked), 400);
      }
      const redirect = new URL(fields.redirect_uri!);
      const decision = text("decision");
      if (decision === "approve") {
        const code = await store.createCode({
          clientId: checked.clientId,
          redirectUri: fields.redirect_uri!,
          codeChallenge: fields.code_challenge!,
          scope: fields.scope || "sandbox",
          sub: SANDBOX_USER_SUB,
          tenantId,
          expiresAt: now() + CODE_TTL_MS,
        });
        redirect.searchParams.set("code", code);
      } else if (decision === "deny") {
        redirect.searchParams.set("error", "access_denied");
        redirect.searchParams.set(
          "error_description",
          "The sandbox user denied the request",
        );
      } else {
        return c.html(errorPage('decision must be "approve" or "deny"'), 400);
      }
      if (fields.state !== undefined) {
        redirect.searchParams.set("state", fields.state);
      }
      return c.redirect(redirect.href, 303);
    },
  );
  refuseOtherMethods(
    app,
    { path: "/oauth2/authorize", methods: ["GET", "POST"] },
    (c, message, status) => c.html(errorPage(message), status),
  );
}
