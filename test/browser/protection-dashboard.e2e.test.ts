/**
 * The dashboard's playback protection in Chromium (README "Playback protection"): a
 * seller sets a video's allowed sites and signed URLs in its Protection form, sees a
 * bad entry named beside the field, sets the workspace defaults, and makes, reads once
 * and revokes a signing key. What the forms save is read back through the API.
 */
import { expect, test } from "bun:test";
import { dashboardOnAPort, signedInWithAdminKey } from "../helpers/dashboard.ts";

let videoId: number;

const dash = dashboardOnAPort(async ({ t, ws }) => {
  videoId = (await t.createVideo(ws, { title: "Members' masterclass" })).id;
});

const signIn = () => signedInWithAdminKey(dash);

const api = (path: string) => dash.t.call("GET", `/api/v1${path}`, { token: dash.ws.token });

test("a video's Protection form saves its allowed sites, signed URLs and encryption, and names a bad entry", async () => {
  const { page, base } = await signIn();
  await page.goto(`${base}/videos/${videoId}`);
  const form = page.getByRole("form", { name: "Protection" });
  await form.getByLabel("Allowed sites").fill("https://shop.example.com");
  await form.getByRole("button", { name: "Save protection" }).click();
  await expect(form.locator("[data-field-error]").textContent()).resolves.toContain("is not a host name");
  expect((await api(`/videos/${videoId}`)).body.video.allowed_origins).toEqual([]);

  await form.getByLabel("Allowed sites").fill("Shop.Example.com\n*.example.org");
  await form.getByLabel("Require signed URLs").check();
  await form.getByLabel("Encrypt the stream (AES-128)").check();
  await form.getByRole("button", { name: "Save protection" }).click();
  await form.getByText("Saved.").waitFor();
  expect(await form.getByLabel("Allowed sites").inputValue()).toBe("shop.example.com\n*.example.org");
  const stored = (await api(`/videos/${videoId}`)).body.video;
  expect([stored.allowed_origins, stored.require_signed_urls, stored.encryption]).toEqual([["shop.example.com", "*.example.org"], true, "aes-128"]);
  await page.close();
});

test("Settings → Playback protection: defaults for new videos, and a signing key shown once and revoked", async () => {
  const { page, base } = await signIn();
  await page.goto(`${base}/settings/protection`);
  const defaults = page.getByRole("form", { name: "Defaults for new videos" });
  await defaults.getByLabel("Allowed sites").fill("members.example.com");
  await defaults.getByRole("button", { name: "Save protection" }).click();
  await defaults.getByText("Saved.").waitFor();
  expect((await api("/playback-defaults")).body.playback_defaults).toEqual({ allowed_origins: ["members.example.com"], require_signed_urls: false });
  expect((await dash.t.createVideo(dash.ws, { title: "Next lesson" })).allowed_origins).toEqual(["members.example.com"]);

  const keys = page.getByRole("form", { name: "Signing keys" });
  await keys.getByRole("button", { name: "Create a signing key" }).click();
  const secret = (await keys.locator("#new-key-secret").textContent())!;
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const listed = (await api("/signing-keys")).body.data as { id: string }[];
  expect(listed).toHaveLength(1);
  await keys.getByRole("cell", { name: listed[0]!.id, exact: true }).waitFor();
  page.once("dialog", (d) => void d.accept());
  await keys.getByRole("button", { name: `Revoke key ${listed[0]!.id}` }).click();
  await keys.getByText("No signing keys yet.").waitFor();
  expect((await api("/signing-keys")).body.data).toEqual([]);
  await page.close();
});
