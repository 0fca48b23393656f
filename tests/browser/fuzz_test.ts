// Fuzzing Library B with fast-check (issue 13 item 3): random and adversarial
// paths, objects and query strings never touch a built-in prototype or method,
// throw only the documented errors, and parse as the platform would. The same
// properties run in Chromium in chromium_fuzz_test.ts.
import assert from "node:assert/strict";
import fc from "fast-check";
import * as lib from "../../browser/mod.ts";
import { withProtoAccessor } from "./_dom.ts";
import { referenceParse, runProperties } from "./_fuzz_props.ts";
import { domTest } from "./_dom.ts";

Deno.test("Library B's untrusted-input helpers hold every property over 1,000 random runs each", () => {
  // with the standard __proto__ accessor in place, as in browsers, so an attack would really pollute
  withProtoAccessor(() => {
    const findings = runProperties(lib, fc, 1000);
    assert.deepEqual(findings, []);
  });
});

Deno.test("parseQuery() agrees with the platform's decoding on malformed escapes, + and broken UTF-8", () => {
  for (const query of ["a=%", "a=%ZZ", "%=1", "a=%E9", "a=%F0%9F&b", "a+b=c+d", "x=%2B%20", "a=b=c", "&&a&", "?x#y"]) {
    assert.deepEqual(lib.parseQuery(query), referenceParse(query), query);
  }
});

domTest("render() inserts adversarial data as text and never pollutes", ({ doc }) => {
  withProtoAccessor(() => {
    fc.assert(
      fc.property(
        fc.constantFrom("__proto__", "constructor.prototype", "a.__proto__.b", "toString", "a", "a.b"),
        fc.dictionary(fc.constantFrom("a", "b", "__proto__"), fc.oneof(fc.string(), fc.constant("<img src=x>"))),
        (path, data) => {
          const tpl = doc.createElement("template");
          tpl.innerHTML = `<p title="{{ ${path} }}">{{${path}}}</p>`;
          const out = lib.render(tpl, JSON.parse(JSON.stringify(data)));
          assert.equal(out.querySelectorAll("*").length, 1);
          assert.equal(({} as Record<string, unknown>).b, undefined);
        },
      ),
      { numRuns: 200 },
    );
  });
});
