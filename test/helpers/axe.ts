/** axe-core (devDependency) in a Playwright page: the serious and critical violations, one line per node. */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT } from "./browser.ts";

const AXE = join(ROOT, "node_modules/axe-core/axe.min.js");

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** `rule: target (what to fix)` for each serious or critical violation in `selector` (the whole document by default); empty when clean. */
export async function axeProblems(page: Page, selector?: string): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async (sel) => {
    const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(sel ? { include: [sel] } : document, { resultTypes: ["violations"] })).violations;
  }, selector ?? null);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")} (${n.failureSummary?.split("\n")[1]?.trim() ?? ""})`));
}
