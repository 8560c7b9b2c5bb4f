/**
 * Funnels in the dashboard, in Chromium (README "Funnels"): a quiz whose choice names
 * the next video shows that video in its "Then play video" select, which offers the
 * workspace's videos; the video's Funnel paths tab draws the path viewers took, with
 * its figures, each row naming its whole path.
 */
import { expect, test } from "bun:test";
import type { TestVideo } from "../helpers/app.ts";
import { dashboardOnAPort, signedInWithAdminKey } from "../helpers/dashboard.ts";

let entry: TestVideo;
let next: TestVideo;

const dash = dashboardOnAPort(async ({ t, ws }) => {
  entry = await t.createVideo(ws, { title: "Which fits you?" });
  next = await t.createVideo(ws, { title: "The plan for you" });
  await t.createVideo(ws, { title: "Another video" });
  const deployed = await t.call("POST", `/api/v1/videos/${entry.id}/deploy`, {
    token: ws.token,
    body: {
      quiz_options: {
        enabled: true,
        questions: [{ id: "q1", time_s: 1, question: "Selling already?", choices: [{ id: "yes", text: "Yes, show me", next_video_code: next.code }] }],
      },
    },
  });
  expect(deployed.status).toBe(200);
  let at = Date.now() - 10 * 60_000;
  const ev = (type: string, fields: Record<string, unknown> = {}) => ({ type, t: (at += 1000), video_time: 0, ...fields });
  const collect = async (video: TestVideo, session: string, events: Record<string, unknown>[]) => {
    const res = await t.app.handle(
      new Request("http://127.0.0.1/v1/collect", {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ workspace_code: ws.code, video_code: video.code, session_id: session, device_id: `d-${session}`, events }),
      }),
    );
    expect(res.status).toBe(200);
  };
  for (const session of [crypto.randomUUID(), crypto.randomUUID()]) {
    await collect(entry, session, [
      ev("load"),
      ev("play"),
      ev("quiz_answered", { properties: { question_id: "q1", choice_id: "yes", next_video_code: next.code } }),
    ]);
    await collect(next, session, [ev("load"), ev("play"), ev("ended")]);
  }
  await collect(entry, crypto.randomUUID(), [ev("load"), ev("play")]);
});

test("the quiz form offers the workspace's videos as the next video; the Funnel paths tab draws the path with its figures", async () => {
  const { page, base } = await signedInWithAdminKey(dash);

  await page.goto(`${base}/videos/${entry.id}/settings`);
  const select = page.getByLabel("Then play video");
  await select.waitFor({ timeout: 15_000 });
  // The list arrives after the form: until then the chosen code shows as a placeholder ("…").
  await select.locator("option", { hasText: `(#${entry.id})` }).waitFor({ state: "attached" });
  expect(await select.inputValue()).toBe(next.code);
  const offered = await select.locator("option").allTextContents();
  expect(offered).toEqual([
    "None: stay on this video",
    `Another video (#${offered[1]!.match(/#(\d+)/)![1]})`,
    `The plan for you (#${next.id})`,
    `Which fits you? (#${entry.id})`,
  ]);

  await page.getByRole("link", { name: "Funnel paths" }).click();
  await page.waitForURL(new RegExp(`/videos/${entry.id}/paths$`));
  const table = page.getByRole("table", { name: "Funnel paths" });
  await table.waitFor({ timeout: 15_000 });
  const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => c.textContent?.trim())));
  expect(rows).toEqual([
    ["Which fits you?Which fits you?", "3", "3", "3", "0", "0", "—"],
    ["Which fits you? → “Yes, show me” → The plan for you↳ “Yes, show me” → The plan for you", "2 (66.7 %)", "2", "2", "2", "0", "—"],
  ]);
  await page.close();
}, 60_000);
