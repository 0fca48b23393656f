// setStyle's px rule against every style property real Chromium has, through
// the shipped global bundle (community.min.js on a page). Chromium says which
// values each property takes (CSS.supports): one that takes a bare number and
// no length must get the number bare, one that takes a length and no bare
// number must get px, and of those that take both, the ones where a number
// means something other than that many px (a multiple, a count) get it bare.
// Needs /usr/bin/chromium (apt-get install -y chromium) or BROWSER_TESTS=skip.
import assert from "node:assert/strict";
import type * as lib from "../../browser/mod.ts";
import { browserTestOptions } from "../_chromium.ts";
import { openBundlePage } from "./_bundle_page.ts";

/** Take a length or a bare number, and read the number as a multiple or a count: no px. */
const BOTH_BARE = [
  "lineHeight",
  "tabSize",
  "flex",
  "WebkitFlex",
  "borderImageWidth",
  "borderImageOutset",
  "WebkitMaskBoxImageWidth",
  "WebkitMaskBoxImageOutset",
];
/** Shorthands that take a bare number alone but whose usual value is no number: left to px (CSS drops both). */
const SHORTHANDS = ["animation", "WebkitAnimation", "borderImage", "WebkitBorderImage", "WebkitMaskBoxImage"];
/** Properties the defect report named: each must be among those checked as number-only. */
const NAMED = [
  "scale",
  "aspectRatio",
  "strokeMiterlimit",
  "fontSizeAdjust",
  "shapeImageThreshold",
  "mathDepth",
  "initialLetter",
  "hyphenateLimitChars",
  "borderImageSlice",
  "readingOrder",
  "WebkitOrder",
  "WebkitBoxOrdinalGroup",
  "WebkitMaskBoxImageSlice",
];

Deno.test({
  name: "setStyle() gives px exactly where Chromium reads a bare number as a length, for every property it has",
  ...browserTestOptions,
  fn: async () => {
    await openBundlePage({ title: "style" }, async (page, errors) => {
      const out = await page.evaluate(
        (bothBare: string[], shorthands: string[]) => {
          const b = globalThis as unknown as typeof lib;
          // computed styles list the longhands; the style object names the shorthands and aliases too
          const computed = getComputedStyle(document.documentElement);
          const names = new Set(Array.from({ length: computed.length }, (_, i) => computed[i]));
          for (const key in document.body.style) {
            if (!/^[a-z]/.test(key) || typeof document.body.style[key as never] !== "string") continue;
            names.add(key.replace(/[A-Z]/g, "-$&").toLowerCase().replace(/^webkit-/, "-webkit-"));
          }
          const el = document.createElement("div");
          const ref = document.createElement("div");
          const wrong: string[] = [];
          const numberOnly: string[] = [];
          const both: string[] = [];
          for (const dashed of names) {
            if (dashed.startsWith("--")) continue;
            const camel = dashed.replace(/-[a-z]/g, (c) => c[1].toUpperCase());
            const number = CSS.supports(dashed, "2");
            const length = CSS.supports(dashed, "2px");
            if (number && !length) numberOnly.push(camel);
            if (number && length) both.push(camel);
            let want;
            if (bothBare.includes(camel) || (number && !length && !shorthands.includes(camel))) want = "2";
            else if (length) want = "2px";
            else continue; // takes neither: nothing to get wrong
            ref.removeAttribute("style");
            ref.style.setProperty(dashed, want);
            for (const given of [camel, dashed]) {
              el.removeAttribute("style");
              b.setStyle(el, given, 2);
              const got = el.style.getPropertyValue(dashed);
              if (got !== ref.style.getPropertyValue(dashed)) {
                wrong.push(`${given}: ${got || "(dropped)"}, want ${want}`);
              }
            }
          }
          return { count: names.size, wrong, numberOnly, both };
        },
        BOTH_BARE,
        SHORTHANDS,
      );
      assert.ok(out.count > 500, `only ${out.count} properties`);
      assert.deepEqual(NAMED.filter((n) => !out.numberOnly.includes(n)), []);
      assert.deepEqual(BOTH_BARE.filter((n) => !out.both.includes(n)), []);
      assert.deepEqual(out.wrong, []);
      await page.close();
      assert.deepEqual(errors, []);
    });
  },
});
