// Which ETag values count as a sha256 (Hugging Face's LFS files) and which are opaque.
import { expect, it } from "vitest";
import { sha256FromHeader } from "./fetch-following-redirects.ts";

it("reads a sha256 only from a 64-hex ETag", () => {
  const sha = "a".repeat(32) + "B".repeat(32);
  expect(sha256FromHeader(`"${sha}"`)).toBe(sha.toLowerCase());
  expect(sha256FromHeader(`W/"${sha}"`)).toBe(sha.toLowerCase());
  expect(sha256FromHeader(sha)).toBe(sha.toLowerCase());
  expect(sha256FromHeader('"5d41402abc4b2a76b9719d911017c592"')).toBeUndefined();
  expect(sha256FromHeader(null)).toBeUndefined();
});
