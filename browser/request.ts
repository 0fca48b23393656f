/**
 * XHR: `request`.
 *
 * @module
 */

import { getWin, need } from "./_doc.ts";
import { isStr } from "./is.ts";

/** Options of {@linkcode request}. */
export interface RequestOptions {
  /** Body to send. */
  data?: XMLHttpRequestBodyInit | null;
  /** Request headers as key/value pairs. */
  headers?: Record<string, string>;
  /** A value sent JSON-encoded as the body, with `Content-Type: application/json` unless `headers` names another. */
  json?: unknown;
  /** HTTP method (default `GET`). */
  method?: string;
  /** `true`: parse the response as JSON whatever its content type; `false`: never; absent: when the `Content-Type` contains `json`. */
  parseJson?: boolean;
  /** Properties set directly on the XMLHttpRequest (`timeout`, `withCredentials`, `responseType`...). */
  props?: Record<string, unknown>;
}

/** The error `request` reports: `status` is the HTTP status, or 0 for a network failure, timeout or abort. */
export interface RequestError extends Error {
  /** HTTP status, 0 when no response arrived. */
  status: number;
}

/** Called once when a request ends: `error` is `null` for a 2xx status. */
export type RequestCallback = (
  error: RequestError | null,
  // deno-lint-ignore no-explicit-any
  response: any,
  request: XMLHttpRequest,
) => unknown;

/**
 * Makes an XHR request. The callback gets `error` (`null` for a 2xx status,
 * else an `Error` carrying `status`; a network failure, timeout or abort
 * gives status 0, message `Network error` and response `null`), `response` (the text, or the parsed JSON when the
 * response's `Content-Type` contains `json`, such as
 * `application/problem+json`, unless `opts.parseJson` is `false`, or when it is `true`; on a JSON
 * parse failure `error` is the `SyntaxError` with `status` and `response`
 * the text) and the XMLHttpRequest itself. A GET or HEAD sends no body nor
 * a JSON `Content-Type`, `data` or `json` given or not, as browsers do.
 *
 * @param url the request address
 * @param callback called once with `(error, response, request)`
 * @param opts `data`, `headers`, `json`, `method` (default `GET`), `parseJson`, `props`
 * @returns the XMLHttpRequest, already sent
 * @throws {TypeError} when `url` is not a string, `callback` is not a function, or an option has the wrong type
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { request, setDoc } from "./mod.ts";
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) =>
 *   Response.json({ method: req.method, got: await req.json() }));
 * const base = `http://127.0.0.1:${server.addr.port}`;
 * const win = new Window({ url: base });
 * setDoc(win.document as unknown as Document);
 * const body = await new Promise((resolve, reject) =>
 *   request(`${base}/echo`, (err, res) => err ? reject(err) : resolve(res), {
 *     method: "POST",
 *     json: { a: 1 },
 *   })
 * );
 * assert.deepStrictEqual(body, { method: "POST", got: { a: 1 } });
 * await win.happyDOM.close();
 * await server.shutdown();
 * ```
 */
export function request(
  url: string,
  callback?: RequestCallback | null,
  opts: RequestOptions = {},
): XMLHttpRequest {
  need(url, "surl");
  need(callback, "Fcallback");
  need(opts, "oopts");
  const { headers, json, method = "GET", parseJson, props } = opts;
  need(method, "sopts.method");
  need(headers, "Oopts.headers");
  need(props, "Oopts.props");
  const xhr = new (getWin().XMLHttpRequest)();
  xhr.open(method, url);
  // as browsers do: a GET or HEAD sends no body (happy-dom's XHR would throw on one)
  const bodiless = /^(get|head)$/i.test(method);
  let body = (opts as RequestOptions).data;
  if (!(json === undefined || bodiless)) {
    body = JSON.stringify(json);
    // only a header named Content-Type (in any case) counts, not one that merely contains the words
    if (!new Headers(headers as Record<string, string>).has("content-type")) {
      xhr.setRequestHeader("content-type", "application/json");
    }
  }
  for (const key in headers) {
    xhr.setRequestHeader(key, headers[key]);
  }
  Object.assign(xhr, props);
  // loadend follows load, error, timeout and abort alike: one callback
  xhr.addEventListener("loadend", () => {
    const status = xhr.status;
    let error: RequestError | null = status > 199 && status < 300
      ? null
      : Error(status ? "Request failed with status " + status : "Network error") as RequestError;
    let response: unknown = status ? xhr.response : null;
    if (
      isStr(response) && response &&
      (parseJson ?? /json/i.test(xhr.getResponseHeader("content-type")!))
    ) {
      try {
        response = JSON.parse(response);
      } catch (err) {
        error ??= err as RequestError;
      }
    }
    if (error) error.status = status;
    callback?.(error, response, xhr);
  });
  xhr.send(bodiless ? null : body);
  return xhr;
}
