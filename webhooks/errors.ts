/**
 * The errors of Module A's calls: a failed platform call, a community name
 * already used by another tenant.
 *
 * @module
 */

/** Options of {@linkcode PlatformError}. */
export interface PlatformErrorOptions {
  /** The lower-level error, such as a network failure. */
  cause?: unknown;
  /** The platform's parsed error body, when it sent one. */
  body?: unknown;
  /** The platform may have carried the request out though no usable answer came. */
  uncertain?: boolean;
}

/**
 * A platform request that failed: a non-2xx answer (`status` is the HTTP
 * status), a time-out or an unreadable answer (`status` is `0`). The message
 * names the method, the URL and the status; it never holds a token.
 *
 * @example Usage
 * ```ts
 * import { PlatformError } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const error = new PlatformError("POST", "https://c.example/api/core/v3/webhooks", 403, "Forbidden");
 * assert.equal(error.status, 403);
 * assert.equal(error.uncertain, false);
 * assert.equal(error.message, "POST https://c.example/api/core/v3/webhooks failed with status 403: Forbidden");
 * ```
 */
export class PlatformError extends Error {
  /** HTTP status of the answer, or `0` when none came. */
  readonly status: number;
  /** HTTP method of the failed request. */
  readonly method: string;
  /** URL of the failed request. */
  readonly url: string;
  /** The platform's parsed error body, if any. */
  readonly body: unknown;
  /**
   * `true` when the platform may have carried the request out though no
   * usable answer came: a time-out (a gateway's 504 too), an answer that broke
   * off, or a 2xx answer that could not be read. `false` when it certainly did
   * not.
   */
  readonly uncertain: boolean;

  /**
   * Makes the error.
   *
   * @param method HTTP method of the request.
   * @param url URL of the request.
   * @param status HTTP status, `0` when no answer came.
   * @param detail What went wrong, in a few words.
   * @param options The cause and the platform's error body.
   */
  constructor(
    method: string,
    url: string,
    status: number,
    detail: string,
    options: PlatformErrorOptions = {},
  ) {
    super(`${method} ${url} failed with status ${status}: ${detail}`, { cause: options.cause });
    this.name = "PlatformError";
    this.status = status;
    this.method = method;
    this.url = url;
    this.body = options.body;
    this.uncertain = options.uncertain ?? false;
  }
}

/**
 * A second community claims a name that another tenant already uses.
 *
 * @example Usage
 * ```ts
 * import { ConflictError } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const error = new ConflictError("Community name 'Acme' is already used by another tenant");
 * assert.equal(error.name, "ConflictError");
 * ```
 */
export class ConflictError extends Error {
  /**
   * Makes the error.
   *
   * @param message What conflicts.
   */
  constructor(message: string) {
    super(message);
    this.name = "ConflictError";
  }
}
