/**
 * Code and docs cite documents a newcomer can open: files in this repository,
 * and for `docs/<file>.md "<Section>"` a heading that exists in that file.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { $ } from "bun";

const ROOT = join(import.meta.dir, "..", "..");
const files = (await $`git ls-files -co --exclude-standard`.cwd(ROOT).text())
  .split("\n")
  .filter((f) => /\.(ts|tsx|sql|css|md|json)$/.test(f) && f !== "package-lock.json");
const texts = await Promise.all(
  files.map(
    async (f) =>
      [
        f,
        await Bun.file(join(ROOT, f))
          .text()
          .catch(() => ""),
      ] as const,
  ),
);

const headings = async (doc: string) =>
  new Set(
    (await Bun.file(join(ROOT, doc)).text())
      .split("\n")
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => l.replace(/^#+ /, "").trim()),
  );

describe("citations", () => {
  test("no file cites a document that is not in the repository", () => {
    const outside = texts.filter(([, text]) => /\b(SPEC|CONTRACT|DESIGN)\.md\b/.test(text)).map(([f]) => f);
    expect(outside).toEqual([]);
  });

  test('every docs/<file>.md "<Section>" names a heading of that file', async () => {
    const docs = { "docs/api.md": await headings("docs/api.md"), "docs/architecture.md": await headings("docs/architecture.md") };
    const missing: string[] = [];
    // A comment may wrap a title across lines: the comment markers and the break read as one space.
    for (const [file, text] of texts)
      for (const [, doc, section] of text.matchAll(/(docs\/(?:api|architecture)\.md) "([^"]+)"/g))
        if (!docs[doc as keyof typeof docs].has(section!.replace(/\s*\n\s*(?:\*|--|\/\/)?\s*/g, " "))) missing.push(`${file}: ${doc} "${section}"`);
    expect(missing).toEqual([]);
    expect(docs["docs/api.md"].has("Video settings")).toBe(true);
  });
});
