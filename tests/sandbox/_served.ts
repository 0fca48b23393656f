// What the sandbox's attack tests share: the sandbox served alone on
// 127.0.0.1 over a real in-memory KV, a postback receiver, a raw HTTP/1.1
// client (any method, any Host, any bytes), a consent flow that yields a
// fresh authorization code, a dump of the sandbox's KV state and a capture
// of everything logged.

import { Hono } from "hono";
import { createSandbox, type Sandbox, SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";

/** The community client the sandbox is given (its secret is base64 ending in `.s`, like the platform's). */
export const COMMUNITY = { clientId: "fuzz-community.i", clientSecret: `${btoa("k".repeat(32))}.s` };

export interface Served {
  kv: Deno.Kv;
  sandbox: Sandbox;
  port: number;
  origin: string;
  base: string;
  /** The receiver's callback URL; it answers 200 to every postback. */
  callback: string;
  /** The community's and the console's registered redirect URIs. */
  communityRedirect: string;
  consoleRedirect: string;
  consoleSecret: string;
}

/** Serves a fresh sandbox and a receiver for the length of `fn`. */
export async function withServed(fn: (served: Served) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.body?.cancel();
    return new Response("ok");
  });
  const sandbox = createSandbox({ kv, communityClient: COMMUNITY });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    await sandbox.communityFor(origin);
    const console_ = await sandbox.oauthClientFor(origin);
    await fn({
      kv,
      sandbox,
      port: server.addr.port,
      origin,
      base: `${origin}/sandbox`,
      callback: `http://127.0.0.1:${receiver.addr.port}/hook`,
      communityRedirect: `${origin}/auth/community/callback`,
      consoleRedirect: console_.redirectUris[0],
      consoleSecret: console_.clientSecret,
    });
  } finally {
    await server.shutdown();
    await receiver.shutdown();
    kv.close();
  }
}

/** An answer as read off the wire. */
export interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Headers;
  /** The status line and header lines as sent. */
  head: string;
  body: string;
}

/**
 * Sends one HTTP/1.1 request over a fresh connection, exactly as given
 * (header values in UTF-8, but line breaks and NUL, which would end the
 * header, as spaces), so that a test may send any method and any Host.
 */
export async function rawRequest(
  port: number,
  request: { method: string; target: string; headers: [string, string][]; body?: Uint8Array },
): Promise<RawAnswer> {
  const body = request.body ?? new Uint8Array();
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  const names = request.headers.map(([name]) => name.toLowerCase());
  if (!names.includes("host")) lines.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value.replace(/[\r\n\0]/g, " ")}`);
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  const head = new TextEncoder().encode(lines.join("\r\n"));
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const chunks: Uint8Array[] = [];
  try {
    const out = new Uint8Array(head.length + body.length);
    out.set(head);
    out.set(body, head.length);
    // The server may answer (and close) before it read everything, as it does for a request it refuses early.
    await conn.write(out).catch(() => {});
    for (const chunk of await Array.fromAsync(conn.readable).catch(() => chunks)) chunks.push(chunk);
  } finally {
    try {
      conn.close();
    } catch {
      // Closed by reading to the end.
    }
  }
  return parseAnswer(new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer()));
}

function parseAnswer(bytes: Uint8Array): RawAnswer {
  const text = new TextDecoder("latin1").decode(bytes);
  const end = text.indexOf("\r\n\r\n");
  // Closed without a word: status 0.
  if (end === -1 && text === "") return { status: 0, headers: new Headers(), head: "", body: "" };
  if (end === -1) throw new Error(`No complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const head = text.slice(0, end);
  const [statusLine, ...headerLines] = head.split("\r\n");
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let raw = bytes.subarray(end + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) raw = unchunk(raw);
  return { status: Number(statusLine.split(" ")[1]), headers, head, body: new TextDecoder().decode(raw) };
}

function unchunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  const text = new TextDecoder("latin1").decode(bytes);
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) (out.set(part, offset), offset += part.length);
  return out;
}

/** A PKCE pair: a verifier and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = "v".repeat(20) + crypto.randomUUID();
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
  return { verifier, challenge };
}

/** The consent form that approves an authorization request of the community's client for PKCE `challenge`. */
export function approvalForm(served: Served, challenge: string): URLSearchParams {
  return new URLSearchParams({
    client_id: COMMUNITY.clientId,
    redirect_uri: served.communityRedirect,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    decision: "approve",
  });
}

/** Approves an authorization request of the community's client; the code it sends back and its verifier. */
export async function approve(served: Served): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = await pkcePair();
  const res = await fetch(`${served.base}/oauth2/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: served.origin },
    body: approvalForm(served, challenge),
  });
  await res.body?.cancel();
  const code = new URL(res.headers.get("location") ?? "http://x.invalid/").searchParams.get("code");
  if (res.status !== 303 || !code) throw new Error(`Consent answered ${res.status}, not a code`);
  return { code, verifier };
}

/** Every sandbox KV entry (key, value, versionstamp), as one comparable string. */
export async function dumpKv(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of kv.list({ prefix: [...SANDBOX_KV_PREFIX] })) {
    out.push(JSON.stringify([entry.key, entry.value, entry.versionstamp]));
  }
  return out;
}

/** Captures console output for the length of `fn`; the lines it gets. */
export async function captureConsole(fn: (logged: string[]) => Promise<void>): Promise<void> {
  const logged: string[] = [];
  const saved = {
    warn: console.warn,
    error: console.error,
    log: console.log,
    info: console.info,
    debug: console.debug,
  };
  for (const name of ["warn", "error", "log", "info", "debug"] as const) {
    console[name] = (...args: unknown[]) =>
      void logged.push(args.map((a) => typeof a === "string" ? a : Deno.inspect(a)).join(" "));
  }
  try {
    await fn(logged);
  } finally {
    Object.assign(console, saved);
  }
}
