import assert from "node:assert/strict";
import { listen, processEvent } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

domTest("listen() adds a listener that receives the event", ({ doc }) => {
  const button = doc.createElement("button");
  const seen: string[] = [];
  listen(button, "click", (e) => seen.push(e.type));
  listen(button, "click", () => seen.push("second"));
  button.click();
  assert.deepEqual(seen, ["click", "second"]);
});

domTest("listen() works on the window too", ({ win, event }) => {
  let fired = 0;
  listen(win, "resize", () => fired++);
  win.dispatchEvent(event("resize"));
  assert.equal(fired, 1);
});

domTest("listen() throws a TypeError naming the bad argument", ({ doc }) => {
  const el = doc.createElement("p");
  assert.throws(() => listen({} as never, "click", () => {}), {
    name: "TypeError",
    message: "Expected 'obj' to be an event target, got Object",
  });
  assert.throws(() => listen(el, 1 as never, () => {}), { name: "TypeError", message: /'type'/ });
  assert.throws(() => listen(el, "click", "alert(1)" as never), {
    name: "TypeError",
    message: `Expected 'fn' to be a function, got "alert(1)"`,
  });
});

domTest("processEvent() prevents, stops, and returns the target", ({ doc, event }) => {
  doc.body.innerHTML = `<div id="outer"><a id="link" href="#x">x</a></div>`;
  const outer = doc.getElementById("outer")!;
  const link = doc.getElementById("link")!;
  let bubbled = 0;
  let target = "";
  let prevented = false;
  listen(outer, "click", () => bubbled++);
  listen(link, "click", (e) => {
    target = (processEvent(e, true, true) as Element).id;
    prevented = e.defaultPrevented;
  });
  link.dispatchEvent(event("click", { bubbles: true, cancelable: true }, true));
  assert.equal(target, "link");
  assert.equal(prevented, true);
  assert.equal(bubbled, 0);
});

domTest("processEvent() without flags neither prevents nor stops", ({ doc, event }) => {
  doc.body.innerHTML = `<div id="outer"><a id="link">x</a></div>`;
  let bubbled = 0;
  let prevented = true;
  listen(doc.getElementById("outer")!, "click", () => bubbled++);
  listen(doc.getElementById("link")!, "click", (e) => {
    processEvent(e);
    prevented = e.defaultPrevented;
  });
  doc.getElementById("link")!.dispatchEvent(event("click", { bubbles: true, cancelable: true }, true));
  assert.equal(bubbled, 1);
  assert.equal(prevented, false);
});

domTest("processEvent() rejects a non-event with a TypeError", () => {
  assert.throws(() => processEvent({ target: 1 } as never, true), {
    name: "TypeError",
    message: "Expected 'e' to be an event, got Object",
  });
  assert.throws(() => processEvent(undefined as never), { name: "TypeError", message: /'e'/ });
});
