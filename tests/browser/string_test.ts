import assert from "node:assert/strict";
import { capitalize, trim } from "../../browser/mod.ts";

Deno.test("capitalize() upper-cases the first character only", () => {
  assert.equal(capitalize("hello World"), "Hello World");
  assert.equal(capitalize("élan"), "Élan");
  assert.equal(capitalize("1abc"), "1abc");
  assert.equal(capitalize("\u{10428}x"), "\u{10400}x"); // a letter beyond the BMP: two UTF-16 units, one character
  assert.equal(capitalize(""), "");
  assert.throws(() => capitalize(5 as never), { name: "TypeError", message: "Expected 'str' to be a string, got 5" });
});

Deno.test("trim() removes whitespace from both ends", () => {
  assert.equal(trim(" \t a  b \n"), "a  b");
  assert.equal(trim("\u00a0x\u2003"), "x");
  assert.equal(trim(""), "");
  assert.throws(() => trim(null as never), { name: "TypeError", message: "Expected 'str' to be a string, got null" });
});
