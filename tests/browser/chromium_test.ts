// Library B in real Chromium: the global bundle loaded by a <script> tag, layout
// (getOffset, getScroll, computed styles), animation frames, vendor prefixes,
// and prototype pollution attempts (addScript and XHR against a real
// 127.0.0.1 server: chromium_request_test.ts).
// Needs /usr/bin/chromium (apt-get install -y chromium) or BROWSER_TESTS=skip.
import assert from "node:assert/strict";
import * as lib from "../../browser/mod.ts";
import { browserTestOptions } from "../_chromium.ts";
import { openBundlePage } from "./_bundle_page.ts";

type Lib = typeof lib;

/** The page's head: laid out for the layout steps. */
const STYLE = `<style>
  body { margin: 0; }
  #box { position: absolute; left: 30px; top: 40px; width: 200px; height: 50px; }
  #inner { margin-left: 7px; margin-top: 5px; width: 50%; height: 10px; color: rgb(255, 0, 0); }
  #tall { height: 5000px; }
</style>`;
const BODY = `<div id="box"><div id="inner"></div></div><div id="tall"></div>`;

Deno.test({
  name: "Library B in Chromium",
  ...browserTestOptions,
  fn: (t) =>
    openBundlePage(
      { title: "Library B", head: STYLE, body: BODY },
      async (page, errors) => {
        await t.step("the bundle from a <script> tag installs every helper on window", async () => {
          const names = Object.keys(lib).sort();
          assert.equal(names.length, 56);
          const missing = await page.evaluate(
            (names: string[]) =>
              names.filter((n) => typeof (globalThis as unknown as Record<string, unknown>)[n] !== "function"),
            names,
          );
          assert.deepEqual(missing, []);
          assert.equal(await page.evaluate(() => typeof (globalThis as unknown as Lib).parent), "function");
          assert.deepEqual(errors, []);
        });

        await t.step("DOM helpers work on the real document", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const li = b.create("li", {
              className: "item",
              parentNode: b.create("ul", { id: "list", parentNode: document.body }),
            });
            b.addClass(li, "done");
            b.adj(b.byId("list")!, "<li id='first'>1</li>", "front");
            const out = b.render(b.frag("<p>{{ who }}</p>"), { who: "<b>x</b>" }) as DocumentFragment;
            let invalid = "";
            try {
              b.create("a b");
            } catch (err) {
              invalid = (err as Error).name;
            }
            return {
              classes: li.className,
              first: b.bySelector("#list li")?.id,
              count: b.byTag("li", b.byId("list")).length,
              rendered: (out.firstChild as Element).innerHTML,
              invalid,
            };
          });
          assert.deepEqual(out, {
            classes: "item done",
            first: "first",
            count: 2,
            rendered: "&lt;b&gt;x&lt;/b&gt;",
            invalid: "InvalidCharacterError",
          });
        });

        await t.step("getOffset() gives the position in the document, whatever the scroll", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const before = [b.getOffset(b.byId("box")!), b.getOffset(b.byId("inner")!)];
            scrollTo(0, 250);
            const after = [b.getOffset(b.byId("box")!), b.getOffset(b.byId("inner")!)];
            scrollTo(0, 0);
            return { before, after };
          });
          assert.deepEqual(out.before, [{ x: 30, y: 40 }, { x: 37, y: 45 }]);
          assert.deepEqual(out.after, out.before);
        });

        await t.step("getScroll() gives the window's vertical scroll as an integer", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const top = b.getScroll();
            scrollTo(0, 123);
            const moved = b.getScroll();
            scrollTo(0, 0);
            return [top, moved];
          });
          assert.deepEqual(out, [0, 123]);
        });

        await t.step("getStyle() reads computed values, def when unset", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const inner = b.byId("inner")!;
            b.setStyle(inner, "paddingTop", 3);
            b.setStyles(inner, { opacity: 0.5, "--gap": "2px" });
            return [
              b.getStyle(inner, "color"),
              b.getStyle(inner, "width"),
              b.getStyle(inner, "marginLeft"),
              b.getStyle(inner, "paddingTop"),
              b.getStyle(inner, "opacity"),
              b.getStyle(inner, "--gap").trim(),
              b.getStyle(inner, "notAProperty", "none"),
              b.getStyle(inner, "--unset", "fallback"),
            ];
          });
          assert.deepEqual(out, ["rgb(255, 0, 0)", "100px", "7px", "3px", "0.5", "2px", "none", "fallback"]);
        });

        await t.step("onFrame() calls back every frame until cancelFrame()", async () => {
          const out = await page.evaluate(async () => {
            const b = globalThis as unknown as Lib;
            const calls: { self: boolean; arg: string; ts: number }[] = [];
            const scope = { id: 1 };
            function fn(this: unknown, arg: string, ts: number) {
              calls.push({ self: this === scope, arg, ts });
            }
            const frames = (n: number) =>
              new Promise<void>((resolve) => {
                const step = () => (--n ? requestAnimationFrame(step) : resolve());
                requestAnimationFrame(step);
              });
            b.onFrame(fn, scope, "a");
            await frames(5);
            b.cancelFrame(fn);
            const seen = calls.length;
            await frames(5);
            return {
              seen,
              after: calls.length,
              first: calls[0],
              rising: calls.every((c, i) => !i || c.ts > calls[i - 1].ts),
            };
          });
          assert.equal(out.seen >= 3, true, `only ${out.seen} frames`);
          assert.equal(out.after, out.seen);
          assert.equal(out.first.self, true);
          assert.equal(out.first.arg, "a");
          assert.equal(typeof out.first.ts, "number");
          assert.equal(out.rising, true);
        });

        await t.step("vendor prefixes resolve against Chromium's real style object", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const el = b.byId("inner")!;
            b.setStyle(el, "boxReflect", "below", true);
            return {
              prefix: b.getVendorPrefix("boxReflect"),
              css: b.getVendorPrefix("boxReflect", true),
              none: b.getVendorPrefix("color"),
              resolved: b.resolvePrefix("boxReflect"),
              lower: b.resolvePrefix("boxReflect", el, true),
              plain: b.resolvePrefix("transform"),
              property: b.resolveProperty("box-reflect"),
              plainProperty: b.resolveProperty("color"),
              applied: getComputedStyle(el).getPropertyValue("-webkit-box-reflect"),
            };
          });
          assert.deepEqual({ ...out, applied: out.applied.startsWith("below") }, {
            prefix: "Webkit",
            css: "-webkit-",
            none: "",
            resolved: "WebkitBoxReflect",
            lower: "webkitBoxReflect",
            plain: "transform",
            property: "-webkit-box-reflect",
            plainProperty: "color",
            applied: true,
          });
        });

        await t.step("merge, set, clone and parseQuery cannot pollute Object.prototype in Chromium", async () => {
          const out = await page.evaluate(() => {
            const b = globalThis as unknown as Lib;
            const probe = () => ({} as Record<string, unknown>).polluted;
            // control: Chromium's real __proto__ accessor lets a naive merge pollute
            const naive = (to: Record<string, unknown>, from: Record<string, unknown>) => {
              for (const k in from) {
                if (typeof from[k] === "object") {
                  naive((to[k] ??= {}) as Record<string, unknown>, from[k] as Record<string, unknown>);
                } else to[k] = from[k];
              }
            };
            naive({}, JSON.parse(`{"__proto__": {"polluted": "naive"}}`));
            const control = probe();
            delete (Object.prototype as Record<string, unknown>).polluted;
            for (
              const json of [`{"__proto__": {"polluted": 1}}`, `{"constructor": {"prototype": {"polluted": 1}}}`]
            ) {
              b.merge({}, JSON.parse(json));
              b.merge({}, JSON.parse(json), { shallow: true });
              b.clone(JSON.parse(json));
            }
            b.set({}, "__proto__.polluted", 1);
            b.set({}, "constructor.prototype.polluted", 1);
            const parsed = b.parseQuery("__proto__=1&constructor=2&prototype=3&ok=1");
            return {
              control,
              after: probe() ?? "clean",
              parsed: Object.keys(parsed),
              proto: Object.getPrototypeOf(parsed) === Object.prototype,
            };
          });
          assert.deepEqual(out, { control: "naive", after: "clean", parsed: ["ok"], proto: true });
        });

        await page.close();
        assert.deepEqual(errors, []);
      },
    ),
});
