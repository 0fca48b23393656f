// The sandbox's OAuth 2.0 token endpoint (code, refresh and client grants,
// client authentication by Basic or client_secret_post), userinfo, and the
// bearer check the REST API uses.
import type { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ClientRecord } from "./_store.ts";
import { s256, timingSafeEqual } from "./_crypto.ts";
import { SANDBOX_USER_NAME } from "./_trigger.ts";
import type { SandboxCore } from "./_core.ts";
import { refuseOtherMethods } from "./_methods.ts";
import {
  bearerOf,
  BODY_TOO_LARGE,
  CODE_VERIFIER,
  formDecode,
  MAX_BODY_BYTES,
  oauthError,
  parseBasic,
  repeatedMessage,
  repeatedParameter,
  TOKEN_PARAMS,
} from "./_http.ts";

export function tokenRoutes(
  app: Hono,
  core: SandboxCore,
): { authenticateBearer: (c: Context) => Promise<{ tenantId: string; sub: string } | string> } {
  const { store, ttlSeconds, now } = core;
  /** The client authenticated by Basic or client_secret_post (one of them, never both), or an error. */
  const authenticateClient = async (
    authorization: string | undefined,
    form: Record<string, string>,
  ): Promise<ClientRecord | Response> => {
    const challenge = { "WWW-Authenticate": 'Basic realm="sandbox"' };
    let clientId: string | undefined;
    let candidates: string[];
    if (authorization) {
      const basic = parseBasic(authorization);
      if (!basic) {
        return oauthError(
          401,
          "invalid_client",
          "The Authorization header is not valid Basic credentials",
          challenge,
        );
      }
      // Module A sends the raw pair; RFC 6749 clients form-encode it.
      clientId = basic[0];
      const decodedId = formDecode(basic[0]);
      if (decodedId !== null && decodedId !== clientId) {
        if (await store.clientById(decodedId)) clientId = decodedId;
      }
      candidates = [basic[1], formDecode(basic[1]) ?? basic[1]];
      // RFC 6749 2.3: one authentication method per request. A client_id in the form is allowed beside Basic
      // (Module A sends it) when it is Basic's; an empty client_secret counts as not sent (RFC 6749 3.1).
      if (form.client_secret) {
        return oauthError(
          400,
          "invalid_request",
          "The client authenticated twice (Basic and client_secret in the form): use one client authentication method",
        );
      }
      if (form.client_id !== undefined && form.client_id !== clientId) {
        return oauthError(
          400,
          "invalid_request",
          "client_id in the form differs from the one in the Authorization header",
        );
      }
    } else {
      clientId = form.client_id;
      candidates = form.client_secret === undefined ? [] : [form.client_secret];
    }
    if (!clientId || candidates.length === 0) {
      return oauthError(
        401,
        "invalid_client",
        "Client authentication is required (Basic or client_secret_post)",
        challenge,
      );
    }
    const client = await store.clientById(clientId);
    let ok = false;
    for (const candidate of candidates) {
      if (await timingSafeEqual(candidate, client?.clientSecret ?? "\0")) {
        ok = true;
      }
    }
    if (!client || !ok) {
      return oauthError(
        401,
        "invalid_client",
        "Unknown client or wrong client secret",
        challenge,
      );
    }
    return client;
  };

  const tokenAnswer = (
    tokens: { accessToken: string; refreshToken: string },
    scope: string,
  ): Response =>
    Response.json({
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_type: "bearer",
      expires_in: ttlSeconds,
      scope,
    }, { headers: { "Cache-Control": "no-store", "Pragma": "no-cache" } });

  app.post(
    "/oauth2/token",
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: () => oauthError(413, "invalid_request", BODY_TOO_LARGE) }),
    async (c) => {
      const type = c.req.header("Content-Type") ?? "";
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        return oauthError(
          400,
          "invalid_request",
          "The body must be application/x-www-form-urlencoded",
        );
      }
      const params = new URLSearchParams(await c.req.text());
      const repeated = repeatedParameter(TOKEN_PARAMS, (name) => params.getAll(name).length);
      if (repeated) return oauthError(400, "invalid_request", repeatedMessage(repeated));
      const form: Record<string, string> = Object.fromEntries(params);
      const client = await authenticateClient(
        c.req.header("Authorization"),
        form,
      );
      if (client instanceof Response) return client;
      const grantType = form.grant_type;
      if (grantType === "authorization_code") {
        if (!form.code) {
          return oauthError(400, "invalid_request", "code is missing");
        }
        const code = await store.consumeCode(form.code, ttlSeconds * 1000);
        if (!code || code.expiresAt < now()) {
          return oauthError(
            400,
            "invalid_grant",
            "The authorization code is unknown, expired or already used",
          );
        }
        if (code.clientId !== client.clientId) {
          return oauthError(
            400,
            "invalid_grant",
            "The authorization code was issued to another client",
          );
        }
        if (form.redirect_uri !== code.redirectUri) {
          return oauthError(
            400,
            "invalid_grant",
            "redirect_uri differs from the one of the authorization request",
          );
        }
        if (!form.code_verifier || !CODE_VERIFIER.test(form.code_verifier)) {
          return oauthError(
            400,
            "invalid_grant",
            "code_verifier is missing or malformed",
          );
        }
        if (await s256(form.code_verifier) !== code.codeChallenge) {
          return oauthError(
            400,
            "invalid_grant",
            "code_verifier does not match the code_challenge",
          );
        }
        const grant = {
          clientId: client.clientId,
          sub: code.sub,
          scope: code.scope,
          tenantId: code.tenantId,
          grantId: code.grantId,
        };
        const tokens = await store.issueTokens(
          grant,
          now() + ttlSeconds * 1000,
          ttlSeconds * 1000,
        );
        if (!tokens) {
          return oauthError(500, "server_error", "Tokens could not be stored");
        }
        return tokenAnswer(tokens, grant.scope);
      }
      if (grantType === "refresh_token") {
        if (!form.refresh_token) {
          return oauthError(400, "invalid_request", "refresh_token is missing");
        }
        const entry = await store.refreshEntry(form.refresh_token);
        if (!entry.value) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token is unknown or was already used",
          );
        }
        if (entry.value.clientId !== client.clientId) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token was issued to another client",
          );
        }
        if ((entry.value.refreshExpiresAt ?? Infinity) <= now()) {
          return oauthError(400, "invalid_grant", "The refresh token has expired");
        }
        const tokens = await store.issueTokens(
          entry.value,
          now() + ttlSeconds * 1000,
          ttlSeconds * 1000,
          entry,
        );
        if (!tokens) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token is unknown or was already used",
          );
        }
        return tokenAnswer(tokens, entry.value.scope);
      }
      return oauthError(
        400,
        grantType ? "unsupported_grant_type" : "invalid_request",
        grantType ? `grant_type ${JSON.stringify(grantType)} is not supported` : "grant_type is missing",
      );
    },
  );

  /** The grant of the request's bearer token, or why there is none. */
  const authenticateBearer = async (
    c: Context,
  ): Promise<{ tenantId: string; sub: string } | string> => {
    const token = bearerOf(c.req.header("Authorization"));
    if (!token) return "An access token is required (Authorization: Bearer)";
    const grant = await store.accessGrant(token);
    if (!grant) return "The access token is not valid";
    if (grant.expiresAt <= now()) return "The access token has expired";
    return grant;
  };

  const userinfo = async (c: Context): Promise<Response> => {
    const grant = await authenticateBearer(c);
    if (typeof grant === "string") {
      return Response.json({ error: "invalid_token", error_description: grant }, {
        status: 401,
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      });
    }
    return Response.json({
      sub: grant.sub,
      name: SANDBOX_USER_NAME,
      preferred_username: grant.sub,
    }, { headers: { "Cache-Control": "no-store" } });
  };
  app.get("/oauth2/userinfo", userinfo);
  app.post("/oauth2/userinfo", userinfo);
  const oauthRefusal = (_c: Context, message: string, status: 405): Response =>
    oauthError(status, "invalid_request", message);
  refuseOtherMethods(app, { path: "/oauth2/token", methods: ["POST"] }, oauthRefusal);
  refuseOtherMethods(app, { path: "/oauth2/userinfo", methods: ["GET", "POST"] }, oauthRefusal);

  return { authenticateBearer };
}
