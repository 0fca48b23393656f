import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { buildBrowserBundle, DEFAULT_OUT } from "../build/mod.ts";

/** Library B's budget: every helper, minified and gzipped (level 9), within 4 KB. */
const BUDGET = 4096;

Deno.test("buildBrowserBundle() writes a minified classic script and reports its sizes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bundle_test_" });
  try {
    const result = await buildBrowserBundle(`${dir}/nested/b.min.js`);
    assert.equal(result.path, `${dir}/nested/b.min.js`);
    const bytes = await Deno.readFile(result.path);
    assert.equal(result.bytes, bytes.byteLength);
    assert.equal(result.gzipBytes, gzipSync(bytes, { level: 9 }).byteLength);
    const code = new TextDecoder().decode(bytes);
    assert.equal(code.includes("\n  "), false); // minified
    assert.equal(/^\s*(import|export)\b/m.test(code), false); // a classic script, not a module
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the browser bundle stays within its gzipped size ceiling", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bundle_test_" });
  try {
    const { gzipBytes } = await buildBrowserBundle(`${dir}/b.js`);
    assert.ok(gzipBytes <= BUDGET, `${gzipBytes} bytes gzipped, budget ${BUDGET}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the bundle installs every Library B helper on the global object of a fresh realm", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bundle_test_" });
  try {
    const { path } = await buildBrowserBundle(`${dir}/b.js`);
    const code = await Deno.readTextFile(path);
    // run it in a child Deno (no DOM) so this process's globals stay clean
    const script =
      `${code}\nconsole.log(JSON.stringify(Object.keys(globalThis).filter((k) => typeof globalThis[k] === "function" && /^(addClass|delClass|setClass|hasClass|addScript|adj|append|replace|remove|create|frag|render|setAttrs|setDoc|byId|byName|byClass|byTag|bySelector|bySelectorAll|parent|getOffset|getScroll|getStyle|setStyle|setStyles|getVendorPrefix|resolvePrefix|resolveProperty|onFrame|cancelFrame|listen|processEvent|args|bind|clone|merge|each|extend|get|set|remix|capitalize|trim|buildQuery|parseQuery|request|isArray|isBool|isDom|isFunc|isNull|isNum|isObj|isStr|isUnd)$/.test(k)).length), capitalize("ok"), buildQuery({ a: [1, 2] }));`;
    await Deno.writeTextFile(`${dir}/run.js`, script);
    const out = await new Deno.Command(Deno.execPath(), { args: ["run", "--no-config", `${dir}/run.js`] }).output();
    assert.equal(new TextDecoder().decode(out.stderr), "");
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "56 Ok a=1&a=2");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the default output is the console's gitignored _build folder", () => {
  assert.match(DEFAULT_OUT, /console\/static\/_build\/community\.min\.js$/);
});
