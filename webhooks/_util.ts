// Argument checks shared by the stores, and the blotting of secrets out of text.

/** Throws a `TypeError` unless `value` is a non-empty string. */
export function requireString(value: unknown, what: string, action: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Cannot ${action}: '${what}' must be a non-empty string, got ${describe(value)}`,
    );
  }
  return value;
}

/**
 * Throws a `TypeError` unless `value` is a number (NaN and the infinities too: their range is the caller's check),
 * saying it must be `kind` (the caller's range words, "a positive integer" say). A number given as a string or a
 * BigInt is shown as given: a range error's "got 5000" would read as a good one.
 */
export function requireNumber(value: unknown, what: string, action: string, kind = "a number"): number {
  if (typeof value !== "number") {
    throw new TypeError(`Cannot ${action}: '${what}' must be ${kind}, got ${describe(value)}`);
  }
  return value;
}

/**
 * Throws a `TypeError` unless `value` is a non-empty string that KV can key by: one with a lone surrogate (no UTF-8
 * spells it) is written as U+FFFD in a key, so it would share its key with other strings.
 */
export function requireKeyString(value: unknown, what: string, action: string): string {
  requireString(value, what, action);
  if (!(value as string).isWellFormed()) {
    throw new TypeError(
      `Cannot ${action}: '${what}' must be a well-formed string (no lone surrogate), got ${describe(value)}`,
    );
  }
  return value as string;
}

/**
 * Why a community address cannot take an API path joined after it, or `undefined`: one with a query or a fragment
 * (even an empty `?` or `#`) would carry the path inside them, and the request would go to the address's own path.
 */
export function baseUrlTailProblem(baseUrl: string): string | undefined {
  return /[?#]/.test(baseUrl)
    ? "'baseUrl' must have no query and no fragment (the API path is joined after it)"
    : undefined;
}

/**
 * Shows a value in an error message without dumping large objects. Never throws: a function (its toString may
 * throw, or show its whole source) is `a function`, and a revoked Proxy (Array.isArray throws on one) `an object`,
 * so that a refusal still names what it refuses.
 */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? value.slice(0, 77) + "..." : value);
  if (typeof value === "function") return "a function";
  if (value === null || value === undefined || typeof value !== "object") return String(value);
  return isArray(value) ? "an array" : "an object";
}

/** `Array.isArray`, false for a revoked Proxy (on which it throws). */
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** The longest delay a timer holds (2^31-1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A value's kind as a message says it (`null`, `an array`, `an object`, `a number`...), never the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * `url` with all that may be user info shown as `***`: from its scheme's end (slashes or backslashes after it kept) to
 * its last `@`, so that even a URL no parser reads keeps a password or token in it hidden; one without `@` as given.
 */
export function hideUserInfo(url: string): string {
  if (!url.includes("@")) return url;
  const start = /^[a-z][a-z0-9+.-]*:[\/\\]*/i.exec(url)?.[0].length ?? 0;
  return `${url.slice(0, start)}***${url.slice(url.lastIndexOf("@"))}`;
}

/**
 * A URL in an error message ({@linkcode describe}), its user info (which may hold a password, sent as Basic auth)
 * shown as `***` ({@linkcode hideUserInfo}).
 */
export function describeUrl(value: unknown): string {
  return describe(typeof value === "string" ? hideUserInfo(value) : value);
}

/**
 * Checks a page size: 1 to 1000, default 100. Not a number (`"10"`, `null`) is a TypeError, a number out of range a
 * RangeError; both name `limit` and the call (`action`), as the relay's lists do.
 */
export function pageLimit(limit: unknown, action: string): number {
  if (limit === undefined) return 100;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    const Refusal = typeof limit === "number" ? RangeError : TypeError;
    throw new Refusal(`Cannot ${action}: 'limit' must be an integer from 1 to 1000, got ${describe(limit)}`);
  }
  return limit;
}

/** A list's options: absent or `null` as none; anything else that is not a plain object is a TypeError naming them. */
export function checkListOptions<T extends object>(options: T | null | undefined, action: string): Partial<T> {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`Cannot ${action}: 'options' must be an object, got ${describe(options)}`);
  }
  return options;
}

/** Checks a page cursor: absent, or the string a previous page returned (KV's own error names no argument). */
export function checkCursor(cursor: unknown, action: string): void {
  if (cursor !== undefined && cursor !== null && typeof cursor !== "string") {
    throw new TypeError(`Cannot ${action}: 'cursor' must be a string from a previous page, got ${describe(cursor)}`);
  }
}

/**
 * Every spelling of the secrets to blot, each once: a secret, each of its
 * lines (an error may quote only a secret's first line), and each of those
 * form- or URL-encoded (a platform may echo the request it refused: `+`,
 * `/`, `=` escaped). Parts shorter than four characters are left, as they
 * would blot ordinary words.
 */
function spellingsOf(secrets: string[]): string[] {
  const out = new Set<string>();
  for (const secret of secrets) {
    for (const part of [secret, ...secret.split(/[\r\n]+/)]) {
      if (part.length < 4) continue;
      const form = new URLSearchParams({ s: part }).toString().slice(2);
      out.add(part).add(form).add(form.replaceAll("+", "%20"));
    }
  }
  return [...out];
}

function blot(text: string, spellings: string[], mark: string): string {
  for (const spelling of spellings) text = text.split(spelling).join(mark);
  return text;
}

/** `text` with every secret replaced by `mark`, in every spelling {@linkcode spellingsOf} lists. */
export function blotSecrets(text: string, secrets: string[], mark: string): string {
  return blot(text, spellingsOf(secrets), mark);
}

/**
 * A parsed JSON value with {@linkcode blotSecrets} applied to every string in
 * it, keys too (the spellings worked out once). Past 32 levels of nesting a
 * value is replaced by `mark`.
 */
export function blotSecretsDeep(value: unknown, secrets: string[], mark: string): unknown {
  const spellings = spellingsOf(secrets);
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return blot(value, spellings, mark);
    if (value === null || typeof value !== "object") return value;
    if (depth >= 32) return mark;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [blot(key, spellings, mark), walk(item, depth + 1)]),
    );
  };
  return walk(value, 0);
}

/** The chunks a stream reader gave, `size` bytes in all, as one array. */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
