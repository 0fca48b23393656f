// Test helper: a fresh happy-dom window per test, set as Library B's document.
import { Window } from "happy-dom";
import { setDoc } from "../../browser/mod.ts";

/** A happy-dom window and its document, typed as the DOM lib's. */
export interface Dom {
  win: Window & typeof globalThis;
  doc: Document;
  /** Makes an event of the happy-dom window (`MouseEvent` when `mouse`). */
  event(type: string, init?: EventInit, mouse?: boolean): Event;
}

/**
 * Registers a `Deno.test` that gets a fresh happy-dom document (with `html`
 * in its body) set through `setDoc`, and closes the window afterwards.
 */
export function domTest(
  name: string,
  fn: (dom: Dom) => void | Promise<void>,
  html = "",
): void {
  Deno.test(name, async () => {
    const happy = new Window({
      url: "http://localhost:8000/page?x=1",
      settings: { disableJavaScriptFileLoading: true, disableCSSFileLoading: true },
    });
    const doc = happy.document as unknown as Document;
    doc.body.innerHTML = html;
    setDoc(doc);
    try {
      const event = (type: string, init?: EventInit, mouse?: boolean) =>
        new (mouse ? happy.MouseEvent : happy.Event)(type, init) as unknown as Event;
      await fn({ win: happy as unknown as Window & typeof globalThis, doc, event });
    } finally {
      await happy.happyDOM.close();
    }
  });
}

/** The ids of elements, for asserts that must not compare happy-dom nodes. */
export function ids(list: ArrayLike<Element | null> | null): (string | null)[] {
  return Array.from(list ?? [], (el) => el?.id ?? null);
}

/**
 * Runs `fn` with the standard `Object.prototype.__proto__` accessor in place:
 * Deno replaces it with one that does nothing, so a pollution test would
 * prove nothing. The previous descriptor is put back afterwards.
 */
export function withProtoAccessor(fn: () => void): void {
  const had = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__");
  Object.defineProperty(Object.prototype, "__proto__", {
    configurable: true,
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, proto: unknown) {
      if (Object(this) !== this) return;
      if (proto === null || Object(proto) === proto) Object.setPrototypeOf(this, proto as object);
    },
  });
  try {
    fn();
  } finally {
    if (had) Object.defineProperty(Object.prototype, "__proto__", had);
    else delete (Object.prototype as { __proto__?: unknown }).__proto__;
  }
}
