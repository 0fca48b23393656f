// What the receiver reports of each request to `onAttempt`: the request's
// headers with every secret removed (the JiveEXTN signature, other schemes'
// credentials, cookies), and an excerpt of the body actually read.

/** Header parameters of JiveEXTN that carry no secret. */
const PUBLIC_PARAMS = new Set(["algorithm", "client_id", "jive_url", "tenant_id", "timestamp"]);
/**
 * Headers whose whole value may be a secret: cookies, and any name that
 * suggests a credential (`proxy-authorization`, `x-api-key`, `x-auth-token`,
 * `x-session-id`, `x-hub-signature`, ...), since a proxy may add its own.
 */
const SECRET_NAME = /auth|token|secret|key|session|passw|signature|credential|cookie/;
/** Longest header value or parameter kept. */
const MAX_VALUE_CHARS = 512;

/**
 * The `Authorization` value without its secret: for JiveEXTN, the scheme and
 * the known non-secret parameters (the signature and unknown names dropped);
 * for any other scheme, the scheme alone.
 */
export function maskAuthorization(value: string): string {
  const trimmed = value.trim();
  const space = trimmed.indexOf(" ");
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== "jiveextn") {
    // A lone token may be a credential itself: only a scheme-like word is kept.
    return space !== -1 && /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme) ? `${scheme} [removed]` : "[removed]";
  }
  // One pass over the `&`-separated pairs: the known public ones are kept, in order, each cut to its limit.
  // The next `=` is looked up only once passed, so a header of many `&` and few `=` costs one scan.
  let kept = "";
  let eq = -1;
  for (let start = space + 1; space !== -1 && start <= trimmed.length;) {
    let end = trimmed.indexOf("&", start);
    if (end === -1) end = trimmed.length;
    if (eq < start) eq = trimmed.indexOf("=", start);
    if (eq === -1) break;
    if (eq > start && eq < end && PUBLIC_PARAMS.has(trimmed.slice(start, eq))) {
      // A value holding '=', ',', ';' or a space is not one parameter: a header that lost an '&' (or used
      // another separator) would carry the signature inside a public parameter's value.
      const value = trimmed.slice(eq + 1, Math.min(end, start + MAX_VALUE_CHARS));
      kept += `${kept ? "&" : ""}${trimmed.slice(start, eq)}=${/[=,;\s]/.test(value) ? "[removed]" : value}`;
    }
    start = end + 1;
  }
  return kept ? `${scheme} ${kept}` : scheme;
}

/** The request's headers as a plain object, secrets removed and values cut to 512 characters. */
export function maskHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  // forEach: the same pairs as iterating, at a fraction of the cost (no iterator result per header).
  headers.forEach((value, name) => {
    if (name === "authorization") out[name] = maskAuthorization(value);
    else if (SECRET_NAME.test(name)) out[name] = "[removed]"; // names come lower-cased
    else out[name] = value.slice(0, MAX_VALUE_CHARS);
  });
  return out;
}

const decoder = new TextDecoder();

/** The first bytes read of the body as text (at most 2048 bytes). */
export function excerpt(head: Uint8Array): string {
  return decoder.decode(head);
}
