// Private shared state of Library B: the document set with setDoc(), and the
// small argument checks every file uses. No side effects at import.

let current: Document | undefined;

/** Remembers the document set with `setDoc`. */
export function useDoc(doc: Document): void {
  current = doc;
}

/** The document set with `setDoc`, else the global one. */
export function getDoc(): Document {
  const doc = current ?? (globalThis as { document?: Document }).document;
  if (!doc) {
    throw new Error(
      "No document: call setDoc(document) first when running outside a browser",
    );
  }
  return doc;
}

/** The window of the document set with `setDoc`, falling back to `globalThis`. */
export function getWin(): Window & typeof globalThis {
  return (current?.defaultView ?? globalThis) as Window & typeof globalThis;
}

/** Shows a value in an error message without dumping it. */
function show(value: unknown): string {
  return typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "function"
    ? "a function"
    : value && typeof value === "object"
    ? value.constructor?.name || "Object"
    : String(value);
}

/** Throws `Expected 'arg' of fn() to be what, got value`. */
export function fail(
  fn: string,
  arg: string,
  what: string,
  value: unknown,
  Type: ErrorConstructor = TypeError,
): never {
  throw new Type(`Expected '${arg}' of ${fn}() to be ${what}, got ${show(value)}`);
}

/** Keys that `merge`, `set`, `clone` and `parseQuery` never write. */
export function isUnsafeKey(key: string): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype";
}

/** A node of any window (element, text, fragment, document...). */
export function isNode(obj: unknown): obj is Node {
  return !!obj && typeof (obj as Node).nodeType === "number";
}

/** An element of any window. */
export function isEl(obj: unknown): obj is HTMLElement {
  return isNode(obj) && obj.nodeType === 1;
}
