// What the console's property tests check on every answer: a value's markup
// comes back escaped, and nothing the input holds forges a log line.

import assert from "node:assert/strict";

/** A tag that must never come back unescaped in a page. */
export const MARK = "<x-evil>";

/** Captures console.warn, error, log and info for the length of `fn`; the lines they got. */
export async function captureConsole(fn: (logged: string[]) => Promise<void>): Promise<void> {
  const logged: string[] = [];
  const saved = { warn: console.warn, error: console.error, log: console.log, info: console.info };
  for (const name of ["warn", "error", "log", "info"] as const) {
    console[name] = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
  }
  try {
    await fn(logged);
  } finally {
    Object.assign(console, saved);
  }
}

/** Asserts that `body`, the page of request `what` ("GET /x"), shows no markup of the input unescaped. */
export function assertEscaped(body: string, what: string): void {
  assert.ok(!body.includes(MARK), `${what} shows ${MARK} unescaped`);
  assert.ok(!body.includes("<x-evil a="), `${what} shows an attribute unescaped`);
}

/** Asserts that no line `logged` holds starts with FORGED, the line break the input tried to inject. */
export function assertNoForgedLine(logged: string[], what: string): void {
  for (const line of logged.join("\n").split(/\r\n|\r|\n/)) {
    assert.ok(!line.startsWith("FORGED"), `${what} forged a log line`);
  }
}
