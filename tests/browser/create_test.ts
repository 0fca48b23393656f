// browser/create.ts on a DOM: create(), frag(), render() (data as text,
// never as markup) and setAttrs(), with their TypeError for bad arguments.

import assert from "node:assert/strict";
import { byId, create, frag, render, setAttrs } from "../../browser/mod.ts";
import { domTest, ids } from "./_dom.ts";

domTest("create() makes an element with attributes, children, styles and listeners", ({ doc }) => {
  let clicks = 0;
  const link = create("a", {
    href: "/x",
    className: "nav big",
    "data-id": 7,
    styles: { color: "red", marginTop: 2 },
    children: [doc.createTextNode("go")],
    parentNode: doc.body,
  }, { click: () => clicks++ });
  link.click();
  assert.equal(clicks, 1);
  assert.equal(link.tagName, "A");
  assert.equal(doc.body.lastElementChild?.getAttribute("href"), "/x");
  assert.equal(link.className, "nav big");
  assert.equal(link.getAttribute("data-id"), "7");
  assert.equal(link.style.marginTop, "2px");
  assert.equal(link.textContent, "go");
});

domTest("create() without attributes returns a bare element, and a string is innerHTML", () => {
  assert.equal(create("section").outerHTML, "<section></section>");
  assert.equal(create("p", "<b>bold</b>").innerHTML, "<b>bold</b>");
});

domTest("create() rejects a non-string tag with a TypeError", () => {
  assert.throws(() => create(1 as never), { name: "TypeError", message: "Expected 'el' to be a string, got 1" });
});

domTest("frag() parses markup, clones a node, and is empty without content", ({ doc }) => {
  const parsed = frag(`<li id="a">1</li><li id="b">2</li>`);
  assert.equal(parsed.nodeType, 11);
  assert.deepEqual(ids(parsed.children as unknown as Element[]), ["a", "b"]);
  const p = doc.createElement("p");
  p.innerHTML = "<i>x</i>";
  const copy = frag(p);
  assert.equal(copy.firstChild === p, false);
  assert.equal((copy.firstChild as Element).outerHTML, "<p><i>x</i></p>");
  assert.equal(p.parentNode, null); // the original stays where it was
  assert.equal(frag().childNodes.length, 0);
  assert.equal(frag(null).childNodes.length, 0);
  assert.throws(() => frag(5 as never), { name: "TypeError", message: "Expected 'content' to be a node, got 5" });
});

domTest("frag() does not run scripts in its markup", ({ doc, win }) => {
  const f = frag(`<img src="x" onerror="window.hacked = 1"><script>window.hacked = 2</script>`);
  doc.body.append(f);
  assert.equal((win as unknown as { hacked?: number }).hacked, undefined);
});

domTest("render() fills a cloned fragment and leaves the template alone", () => {
  const tpl = frag(`<p class="{{ cls }}" title="{{user.name}}">Hi {{ user.name }}, {{ n }} new{{missing}}</p>`);
  const out = render(tpl, { cls: "big", n: 3, user: { name: "Ada" } }) as DocumentFragment;
  const p = out.firstChild as Element;
  assert.equal(p.textContent, "Hi Ada, 3 new");
  assert.equal(p.getAttribute("class"), "big");
  assert.equal(p.getAttribute("title"), "Ada");
  assert.equal(out === tpl, false);
  assert.equal(tpl.textContent, "Hi {{ user.name }}, {{ n }} new{{missing}}");
});

domTest("render() inserts data as text, never as markup", () => {
  const el = render(frag(`<div title="{{x}}">{{x}}</div>`), { x: `<img src=x onerror="alert(1)">"` });
  const div = (el as DocumentFragment).firstChild as Element;
  assert.equal(div.children.length, 0);
  assert.equal(div.textContent, `<img src=x onerror="alert(1)">"`);
  assert.equal(div.getAttribute("title"), `<img src=x onerror="alert(1)">"`);
});

domTest("render() leaves script contents and on* attributes untouched", () => {
  const out = render(frag(`<button onclick="go('{{x}}')">{{x}}</button><script>var a = "{{x}}"</script>`), {
    x: `'); steal(); ('`,
  }) as DocumentFragment;
  const [button, script] = Array.from(out.children);
  assert.equal(button.getAttribute("onclick"), "go('{{x}}')");
  assert.equal(button.textContent, `'); steal(); ('`);
  assert.equal(script.textContent, `var a = "{{x}}"`);
});

domTest("render() renders an element in place and returns it", () => {
  const card = byId("card")!;
  const out = render(card, { who: { first: "Grace" }, empty: null });
  assert.equal(out === card, true);
  assert.equal(card.textContent, "Grace|");
  assert.equal(card.querySelector("a")?.getAttribute("href"), "/u/Grace");
}, `<div id="card"><a href="/u/{{who.first}}">{{who.first}}</a>|{{empty}}</div>`);

domTest("render() clones a <template>'s content", () => {
  const tpl = byId("t")!;
  const out = render(tpl, { v: "ok" }) as DocumentFragment;
  assert.equal(out.nodeType, 11);
  assert.equal(out.textContent, "ok");
  assert.equal((tpl as HTMLTemplateElement).content.textContent, "{{v}}");
}, `<template id="t"><b>{{v}}</b></template>`);

domTest("render() rejects a non-node target and non-object data", ({ doc }) => {
  assert.throws(() => render("<p>" as never, {}), { name: "TypeError", message: /'frag'/ });
  assert.throws(() => render(doc.createElement("p"), "x" as never), {
    name: "TypeError",
    message: `Expected 'data' to be an object, got "x"`,
  });
});

domTest("setAttrs() sets attributes, className, innerHTML, styles, parent and children", ({ doc }) => {
  const kid = doc.createElement("i");
  const el = setAttrs(doc.createElement("div"), {
    id: "d",
    title: 5,
    className: "k",
    styles: { width: 10, opacity: 0.5 },
    children: kid,
    parentNode: doc.body,
  });
  assert.equal(byId("d") === el, true);
  assert.equal(el.getAttribute("title"), "5");
  assert.equal(el.className, "k");
  assert.equal(el.style.width, "10px");
  assert.equal(el.style.opacity, "0.5");
  assert.equal(kid.parentNode === el, true);
  setAttrs(el, { innerHTML: "<b>x</b>", title: null });
  assert.equal(el.innerHTML, "<b>x</b>");
  assert.equal(el.hasAttribute("title"), false);
});

domTest("setAttrs() with a string sets innerHTML, and adds listeners from events", ({ doc, event }) => {
  const seen: string[] = [];
  const el = setAttrs(doc.createElement("div"), "<span>hi</span>", {
    click: (e) => seen.push(e.type),
    keyup: (e) => seen.push(e.type),
  });
  assert.equal(el.innerHTML, "<span>hi</span>");
  el.click();
  el.dispatchEvent(event("keyup"));
  assert.deepEqual(seen, ["click", "keyup"]);
});

domTest("setAttrs() on a fragment replaces its children and appends children", ({ doc }) => {
  const fragment = doc.createDocumentFragment();
  setAttrs(fragment, "<p>a</p><p>b</p>");
  assert.equal(fragment.childNodes.length, 2);
  setAttrs(fragment, { children: [doc.createElement("hr"), null], title: "ignored" });
  assert.equal(fragment.childNodes.length, 3);
  setAttrs(fragment, { parentNode: doc.body });
  assert.equal(doc.body.innerHTML, "<p>a</p><p>b</p><hr>");
});

domTest("setAttrs() rejects bad arguments with a TypeError", ({ doc }) => {
  const el = doc.createElement("p");
  assert.throws(() => setAttrs("p" as never, {}), { name: "TypeError", message: /'el'/ });
  assert.throws(() => setAttrs(el, 3 as never), {
    name: "TypeError",
    message: "Expected 'attrs' to be an object, got 3",
  });
  assert.throws(() => setAttrs(el, {}, "click" as never), { name: "TypeError", message: /'events'/ });
  assert.throws(() => setAttrs(el, {}, { click: "alert(1)" as never }), { name: "TypeError", message: /'fn'/ });
  assert.throws(() => setAttrs(el, { "a b": 1 }));
  assert.equal(el.attributes.length, 0);
});

domTest("setAttrs() with className null or undefined removes the class attribute", ({ doc }) => {
  const el = doc.createElement("p");
  el.className = "a b";
  setAttrs(el, { className: null as never });
  assert.equal(el.hasAttribute("class"), false);
  assert.equal(el.hasAttribute("className"), false);
});
