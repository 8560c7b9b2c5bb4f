/** Group commit of small Postgres statements: one statement at a time, the next one takes everything that waited. */
import { expect, test } from "bun:test";
import { Group } from "./group.ts";

test("calls arriving while a statement runs all go into the next one; each caller gets its own result", async () => {
  const batches: number[][] = [];
  const group = new Group<number, number>(async (items) => {
    batches.push(items);
    await Bun.sleep(30);
    return items.map((n) => n * 10);
  }, 2);
  const first = group.add(1);
  await Bun.sleep(10); // the first statement is running now
  const rest = Array.from({ length: 100 }, (_, i) => group.add(i + 2));
  expect(await first).toBe(10);
  expect(await Promise.all(rest)).toEqual(Array.from({ length: 100 }, (_, i) => (i + 2) * 10));
  expect(batches.map((b) => b.length)).toEqual([1, 100]);
});

test("a failed statement fails only its own callers; the next batch still runs", async () => {
  let calls = 0;
  const group = new Group<string, string>(
    async (items) => {
      calls++;
      await Bun.sleep(20);
      if (calls === 1) throw new Error("database went away");
      return items.map((s) => s.toUpperCase());
    },
    1,
    3,
  );
  const a = group.add("a");
  await Bun.sleep(5);
  const later = ["b", "c", "d", "e"].map((s) => group.add(s));
  await expect(a).rejects.toThrow("database went away");
  expect(await Promise.all(later)).toEqual(["B", "C", "D", "E"]);
  expect(calls).toBe(3); // at most 3 items per statement: [a], [b, c, d], [e]
});
