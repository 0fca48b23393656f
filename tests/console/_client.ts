/**
 * The console tests' HTTP client, which keeps cookies and does not follow
 * redirects, and their reading of HTML with happy-dom (re-exported by
 * `_helpers.ts`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { Window } from "happy-dom";

/** A fetch client that keeps cookies and does not follow redirects. */
export class Client {
  #origin: string;
  #fetch: typeof fetch;
  /** Cookies by name. */
  cookies: Map<string, string> = new Map();
  /** Every raw `Set-Cookie` header seen. */
  setCookies: string[] = [];

  /**
   * @param origin the console's origin
   * @param fetchFn how requests are sent (default the network)
   */
  constructor(origin: string, fetchFn: typeof fetch = fetch) {
    this.#origin = origin;
    this.#fetch = fetchFn;
  }

  #requests = new AbortController();

  /**
   * Aborts every request of this client still under way (a body still being sent, an answer still being read): a
   * test that fails before it ends one would otherwise leave its connection open, and the console's shutdown waits for
   * every connection.
   */
  abort(): void {
    this.#requests.abort(new Error("the test ended"));
    this.#requests = new AbortController();
  }

  /** Sends a request; relative paths go to the console. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.#origin);
    const headers = new Headers(init.headers);
    if (url.origin === this.#origin && this.cookies.size > 0) {
      headers.set(
        "cookie",
        [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      );
    }
    const ours = this.#requests.signal;
    const signal = init.signal ? AbortSignal.any([init.signal, ours]) : ours;
    const res = await this.#fetch(url, { ...init, headers, redirect: "manual", signal });
    for (const raw of res.headers.getSetCookie()) {
      this.setCookies.push(raw);
      const [pair] = raw.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(raw)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** GET and read the body as text (status checked when `status` given). */
  async text(path: string, status?: number): Promise<string> {
    const res = await this.fetch(path);
    const body = await res.text();
    if (status !== undefined) {
      assert.equal(res.status, status, `GET ${path}: ${body.slice(0, 300)}`);
    }
    return body;
  }

  /** Posts a form from the console's origin. */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    }
    return await this.fetch(path, {
      method: "POST",
      body,
      headers: { origin: this.#origin, ...headers },
    });
  }

  /** Follows redirects from `res` (GETs), returning the final response. */
  async follow(res: Response, max = 10): Promise<Response> {
    let current = res;
    for (let i = 0; i < max; i++) {
      const location = current.headers.get("location");
      if (current.status < 300 || current.status >= 400 || !location) {
        return current;
      }
      await current.body?.cancel();
      current = await this.fetch(new URL(location, current.url).href);
    }
    return current;
  }
}

/** Parses HTML with happy-dom; call `close()` when done. */
export function parse(html: string): { document: Document; close(): void } {
  const window = new Window({ url: "http://localhost/" });
  window.document.write(html);
  const document = window.document as unknown as Document;
  return {
    document,
    close: () => window.happyDOM.close(),
  };
}

/** The text of a page's error (`#page-error`), trimmed, or `null` when the page shows none. */
export function pageError(html: string): string | null {
  const page = parse(html);
  try {
    return page.document.querySelector("#page-error")?.textContent?.trim() ?? null;
  } finally {
    page.close();
  }
}

/** Reads the CSRF token of the first form of a page. */
export function csrfOf(html: string): string {
  const page = parse(html);
  try {
    const input = page.document.querySelector(
      'input[name="_csrf"]',
    ) as HTMLInputElement | null;
    assert.ok(input, "the page has a CSRF field");
    return input.value;
  } finally {
    page.close();
  }
}

/**
 * Walks a paged list of the console from `start`, following each page's
 * `#next-page` link; resolves with the `attribute` of every row matching
 * `rows`, page after page, and the number of pages.
 */
export async function collectPages(
  client: Client,
  start: string,
  options: { rows: string; attribute: string },
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let path: string | null = start;
  let pages = 0;
  while (path) {
    const page = parse(await client.text(path, 200));
    try {
      for (const row of page.document.querySelectorAll(options.rows)) {
        ids.push(row.getAttribute(options.attribute)!);
      }
      path = page.document.querySelector("#next-page")?.getAttribute("href") ?? null;
    } finally {
      page.close();
    }
    pages++;
  }
  return { ids, pages };
}
