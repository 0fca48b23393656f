// SPEC.md 4.3, word by word, where no other test pinned the words down: what setDoc and processEvent return,
// that setStyles passes `resolve` on, and that request's opts.props land on the XMLHttpRequest itself.
import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { listen, processEvent, request, setDoc, setStyles } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";
import { startServer } from "./_server.ts";

Deno.test("setDoc() returns the document passed in", async () => {
  const happy = new Window();
  try {
    const doc = happy.document as unknown as Document;
    assert.equal(setDoc(doc), doc);
  } finally {
    await happy.happyDOM.close();
  }
});

domTest("processEvent() returns the event target, not the node listened on", ({ doc, event }) => {
  doc.body.innerHTML = `<ul id="list"><li id="item">x</li></ul>`;
  const list = doc.getElementById("list")!;
  let returned: EventTarget | null = null;
  listen(list, "click", (e) => returned = processEvent(e));
  doc.getElementById("item")!.dispatchEvent(event("click", { bubbles: true }));
  assert.equal((returned as Element | null)?.id, "item");
});

domTest("setStyles() with resolve gives every property its prefixed name", () => {
  const set: string[] = [];
  const style = new Proxy({}, {
    has: (_, key) => key === "WebkitBoxReflect",
    get: (_, key) => key === "setProperty" ? (name: string, value: string) => set.push(`${name}=${value}`) : undefined,
  }) as CSSStyleDeclaration;
  setStyles({ style } as never, { boxReflect: "below", color: "red" }, true);
  setStyles({ style } as never, { boxReflect: "above" }); // resolve defaults to false
  assert.deepEqual(set, ["-webkit-box-reflect=below", "color=red", "box-reflect=above"]);
});

Deno.test("request() sets opts.props on the XMLHttpRequest it returns and passes to the callback", async () => {
  const server = startServer();
  const win = new Window({ url: server.base + "/" });
  setDoc(win.document as unknown as Document);
  try {
    const seen = await new Promise<unknown[]>((resolve) => {
      const xhr = request(`${server.base}/text`, (error, response, req) => {
        queueMicrotask(() =>
          resolve([error, response, req === xhr, req.timeout, (req as never as { tag: string }).tag])
        );
      }, { props: { timeout: 4321, tag: "mine" } });
      assert.equal(xhr.timeout, 4321);
    });
    assert.deepEqual(seen, [null, "plain text", true, 4321, "mine"]);
  } finally {
    await win.happyDOM.close();
    await server.close();
  }
});
