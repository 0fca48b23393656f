// Regular tests of the defects a hostile review of Library B found, one per
// defect, each failing on the code before its fix.
import assert from "node:assert/strict";
import { frag, render } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

const SVG = "http://www.w3.org/2000/svg";

domTest("render() leaves the contents of an SVG <script> untouched, as those of an HTML one", ({ doc }) => {
  // an SVG script's tagName is "script", lower case; happy-dom's parser drops its text, so it is built by hand
  const tpl = frag(`<svg></svg>`);
  const script = tpl.firstChild!.appendChild(doc.createElementNS(SVG, "script"));
  script.textContent = `var a = "{{x}}";`;
  const out = render(tpl, { x: `"; steal(); "` });
  assert.equal(out.querySelector("script")?.textContent, `var a = "{{x}}";`);
  const el = doc.createElement("div");
  el.appendChild(doc.createElementNS(SVG, "svg")).appendChild(doc.createElementNS(SVG, "script")).textContent = "{{x}}";
  render(el, { x: "steal()" });
  assert.equal(el.textContent, "{{x}}");
});
