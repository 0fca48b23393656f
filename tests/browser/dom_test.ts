// browser/dom.ts on a DOM: addScript(), adj(), append(), replace() and
// remove(), with their TypeError and RangeError for bad arguments; and
// setDoc(), the document that lookups use.

import assert from "node:assert/strict";
import { addScript, adj, append, byId, remove, replace, setDoc } from "../../browser/mod.ts";
import { domTest, ids } from "./_dom.ts";

domTest("addScript() appends an async script to the head with its listeners", async ({ doc }) => {
  let errored = false;
  await new Promise<void>((resolve) => {
    addScript("/missing.js", {
      error: () => {
        errored = true;
        resolve();
      },
    });
  });
  const script = doc.head.querySelector("script")!;
  assert.equal(script.getAttribute("src"), "/missing.js");
  assert.equal(errored, true); // happy-dom here does not load scripts: error fires
});

domTest("addScript() rejects a non-string src and non-function listeners", ({ doc }) => {
  assert.throws(() => addScript(1 as unknown as string), { name: "TypeError", message: /'src'/ });
  assert.throws(() => addScript("/a.js", "x" as never), { name: "TypeError", message: /'opts'/ });
  assert.throws(() => addScript("/a.js", { load: "alert(1)" as never }), {
    name: "TypeError",
    message: `Expected 'opts.load' to be a function, got "alert(1)"`,
  });
  assert.equal(doc.querySelectorAll("script").length, 0);
});

domTest("adj() inserts markup before, front, back and after the node", ({ doc }) => {
  const list = byId("list")!;
  adj(list, "<li>front</li>", "front");
  adj(list, "<li>back</li>", "back");
  adj(list, `<p id="before"></p>`, "before");
  adj(list, `<p id="after"></p>`, "after");
  assert.deepEqual(Array.from(list.children, (li) => li.textContent), ["front", "mid", "back"]);
  assert.deepEqual(ids(doc.body.children as unknown as Element[]), ["before", "list", "after"]);
}, `<ul id="list"><li>mid</li></ul>`);

domTest("adj() before/after on a node without a parent does nothing", ({ doc }) => {
  const lone = doc.createElement("div");
  adj(lone, "<p>x</p>", "before");
  adj(lone, "<p>x</p>", "after");
  adj(lone, "<i>in</i>", "back");
  assert.equal(lone.outerHTML, "<div><i>in</i></div>");
});

domTest("adj() rejects an unknown position with a RangeError and bad types with a TypeError", ({ doc }) => {
  const el = doc.createElement("div");
  assert.throws(() => adj(el, "<p></p>", "inside" as never), {
    name: "RangeError",
    message: `Expected 'where' to be before, front, back, after, got "inside"`,
  });
  assert.throws(() => adj(el, "<p></p>", "beforebegin" as never), { name: "RangeError" });
  assert.throws(() => adj(el, 5 as never, "front"), { name: "TypeError", message: /'content'/ });
  assert.throws(() => adj({} as never, "x", "front"), { name: "TypeError", message: /'node'/ });
  assert.equal(el.innerHTML, "");
});

domTest("append() appends nodes and fragments, and ignores a missing one", ({ doc }) => {
  const box = doc.createElement("div");
  append(box, doc.createElement("p"));
  const fragment = doc.createDocumentFragment();
  fragment.append(doc.createElement("i"), doc.createElement("b"));
  append(box, fragment);
  append(box, null);
  append(null, doc.createElement("s"));
  append(undefined, undefined);
  assert.equal(box.innerHTML, "<p></p><i></i><b></b>");
  const into = doc.createDocumentFragment();
  append(into, doc.createTextNode("t"));
  assert.equal(into.textContent, "t");
});

domTest("append() throws a TypeError for non-nodes", ({ doc }) => {
  assert.throws(() => append("div" as never, doc.createElement("p")), {
    name: "TypeError",
    message: `Expected 'el' to be an element or fragment, got "div"`,
  });
  assert.throws(() => append(doc.body, "<p>" as never), { name: "TypeError", message: /'child'/ });
  assert.throws(() => append(doc.createTextNode("t") as never, doc.createElement("p")), { name: "TypeError" });
});

domTest("replace() swaps an element for another in place", ({ doc }) => {
  const next = doc.createElement("h2");
  next.id = "new";
  replace(byId("old"), next);
  assert.deepEqual(ids(doc.body.children as unknown as Element[]), ["a", "new", "b"]);
  assert.equal(byId("old"), null);
}, `<p id="a"></p><p id="old"></p><p id="b"></p>`);

domTest("replace() does nothing for a missing or detached element", ({ doc }) => {
  replace(null, doc.createElement("p"));
  replace(byId("a"), null);
  replace(doc.createElement("p"), doc.createElement("i"));
  assert.equal(doc.body.innerHTML, `<p id="a"></p>`);
  assert.throws(() => replace({} as never, doc.createElement("p")), { name: "TypeError", message: /'old'/ });
  assert.throws(() => replace(byId("a"), 3 as never), { name: "TypeError", message: /'newEl'/ });
}, `<p id="a"></p>`);

domTest("remove() takes an element out of the DOM and ignores a missing one", ({ doc }) => {
  remove(byId("x"));
  remove(null);
  remove(undefined);
  remove(doc.createElement("p"));
  assert.equal(doc.body.innerHTML, `<p id="y"></p>`);
  assert.throws(() => remove("x" as never), { name: "TypeError", message: `Expected 'el' to be a node, got "x"` });
}, `<p id="x"></p><p id="y"></p>`);

domTest("setDoc() returns the document and makes lookups use it", () => {
  const other = new (globalThis as unknown as { Object: ObjectConstructor }).Object() as never;
  assert.throws(() => setDoc(other), { name: "TypeError", message: "Expected 'doc' to be a document, got Object" });
  assert.throws(() => setDoc(null as never), {
    name: "TypeError",
    message: "Expected 'doc' to be a document, got null",
  });
  assert.equal(byId("here")?.id, "here");
}, `<p id="here"></p>`);
