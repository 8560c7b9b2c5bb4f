/**
 * Playback protection over HTTP (README "Playback protection"): the per-video and
 * workspace settings, the media host's refusals for a protected video's playlists,
 * segments and posters, signed tokens from the API and from an offline signing key,
 * and a revoked key.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHmac } from "node:crypto";
import { KEY_REFRESH_MS } from "../../server/domains/playback/state.ts";
import { decryptSegment, ivFor } from "../../server/domains/encoding/hls-encryption.ts";
import { runNextEncryption } from "../../server/workers/encryptor.ts";
import { looksLikeTransportStream } from "../helpers/hls.ts";
import { appAndWorkspace, BASE, invalidFields, testApp, type TestApp, type TestVideo, type TestWorkspace } from "../helpers/app.ts";

setDefaultTimeout(60_000);

let t: TestApp;
let ws: TestWorkspace;
const SEGMENT = new Uint8Array(500).map((_, i) => i % 199);

/** A video with a master playlist, a variant, a segment and a poster in the media store. */
async function videoWithMedia(body: Record<string, unknown> = {}): Promise<TestVideo & { prefix: string }> {
  const video = await t.createVideo(ws, body);
  const prefix = `videos/${video.code}/landscape/1/`;
  const store = t.deps.blobs.media;
  await store.put(`${prefix}master.m3u8`, "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=640x360\n360p/index.m3u8\n");
  await store.put(`${prefix}360p/index.m3u8`, "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\nseg_000.ts\n#EXT-X-ENDLIST\n");
  await store.put(`${prefix}360p/seg_000.ts`, SEGMENT);
  await store.put(`${prefix}poster.jpg`, new Uint8Array([0xff, 0xd8, 0xff, 0xd9]));
  return { ...video, prefix };
}

/** A media GET, its body read whole (an unread file body would hold its file open). */
async function media(key: string, headers: Record<string, string> = {}) {
  const res = await t.app.handle(new Request(`${BASE}/media/${key}`, { headers }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: () => new TextDecoder().decode(bytes) };
}
const patch = (id: number, body: unknown) => t.call("PATCH", `/api/v1/videos/${id}`, { token: ws.token, body });
const mint = async (id: number, body: unknown = {}) => (await t.call("POST", `/api/v1/videos/${id}/token`, { token: ws.token, body })).body.token as string;

/** A token made as the README's Node example makes it, from a signing key alone. */
function offlineToken(key: { id: string; secret: string }, code: string, exp: number): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const input = `${b64({ alg: "HS256", typ: "JWT", kid: key.id })}.${b64({ sub: code, kid: key.id, exp })}`;
  return `${input}.${createHmac("sha256", Buffer.from(key.secret, "base64url")).update(input).digest("base64url")}`;
}

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
});

describe("protection settings", () => {
  test("a new video is public; PATCH sets allowed origins (normalised) and signed URLs, shown in the video", async () => {
    const video = await t.createVideo(ws);
    expect(video.allowed_origins).toEqual([]);
    expect(video.require_signed_urls).toBe(false);
    const res = await patch(video.id, {
      allowed_origins: [" Shop.Example.com ", "*.example.org", "localhost:3000", "shop.example.com"],
      require_signed_urls: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.video.allowed_origins).toEqual(["shop.example.com", "*.example.org", "localhost:3000"]);
    expect(res.body.video.require_signed_urls).toBe(true);
    expect(res.body.video.title).toBe("Video");
    const read = await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(read.body.video.allowed_origins).toEqual(["shop.example.com", "*.example.org", "localhost:3000"]);
  });

  test("a bad origin or a wrong type is a 422 naming the field, and changes nothing", async () => {
    const video = await t.createVideo(ws);
    await patch(video.id, { allowed_origins: ["good.example"] });
    for (const bad of [["https://shop.example.com"], ["shop.example.com/path"], ["*shop.com"], ["host:99999"], "shop.example.com"]) {
      expect(invalidFields(await patch(video.id, { allowed_origins: bad, title: "Changed" }))).toEqual(["allowed_origins"]);
    }
    expect(invalidFields(await patch(video.id, { require_signed_urls: "yes" }))).toEqual(["require_signed_urls"]);
    const read = await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(read.body.video.allowed_origins).toEqual(["good.example"]);
    expect(read.body.video.title).toBe("Video");
  });

  test("workspace defaults apply to videos created afterwards, not to existing ones, and stay in their workspace", async () => {
    const other = await t.workspace();
    const before = await t.createVideo(other);
    expect((await t.call("GET", "/api/v1/playback-defaults", { token: other.token })).body).toEqual({
      playback_defaults: { allowed_origins: [], require_signed_urls: false },
    });
    expect(invalidFields(await t.call("PATCH", "/api/v1/playback-defaults", { token: other.token, body: { allowed_origins: ["not a host"] } }))).toEqual([
      "allowed_origins",
    ]);
    const set = await t.call("PATCH", "/api/v1/playback-defaults", {
      token: other.token,
      body: { allowed_origins: ["Sales.Example"], require_signed_urls: true },
    });
    expect(set.body).toEqual({ playback_defaults: { allowed_origins: ["sales.example"], require_signed_urls: true } });
    const partial = await t.call("PATCH", "/api/v1/playback-defaults", { token: other.token, body: { require_signed_urls: false } });
    expect(partial.body.playback_defaults).toEqual({ allowed_origins: ["sales.example"], require_signed_urls: false });
    const after = await t.createVideo(other);
    expect([after.allowed_origins, after.require_signed_urls]).toEqual([["sales.example"], false]);
    const old = await t.call("GET", `/api/v1/videos/${before.id}`, { token: other.token });
    expect(old.body.video.allowed_origins).toEqual([]);
    // The first workspace keeps its own (empty) defaults.
    expect((await t.createVideo(ws)).allowed_origins).toEqual([]);
  });
});

describe("allowed origins at the media host", () => {
  test("a public video's files go to any page, as before; a path whose code is no UUID is a plain 404", async () => {
    expect((await media("videos/not-a-code/landscape/1/master.m3u8")).status).toBe(404);
    const v = await videoWithMedia();
    expect((await media(`${v.prefix}master.m3u8`)).status).toBe(200);
    expect((await media(`${v.prefix}360p/seg_000.ts`, { Origin: "https://anyone.test" })).status).toBe(200);
  });

  test("a protected video's playlists, segments and poster go only to an allowed Origin or Referer", async () => {
    const v = await videoWithMedia();
    await patch(v.id, { allowed_origins: ["shop.example.com", "*.example.org"] });
    for (const file of ["master.m3u8", "360p/index.m3u8", "360p/seg_000.ts", "poster.jpg"]) {
      expect((await media(`${v.prefix}${file}`)).status).toBe(403);
      expect((await media(`${v.prefix}${file}`, { Origin: "https://ripper.test" })).status).toBe(403);
      expect((await media(`${v.prefix}${file}`, { Referer: "https://shop.example.com.ripper.test/page" })).status).toBe(403);
      expect((await media(`${v.prefix}${file}`, { Origin: "https://shop.example.com" })).status).toBe(200);
      expect((await media(`${v.prefix}${file}`, { Referer: "https://www.example.org/sales" })).status).toBe(200);
    }
    const refused = await media(`${v.prefix}360p/seg_000.ts`, { Origin: "https://ripper.test" });
    expect(refused.text()).toBe("This video can't be played on this site.");
    // Allowing every site again opens it at once.
    await patch(v.id, { allowed_origins: [] });
    expect((await media(`${v.prefix}360p/seg_000.ts`)).status).toBe(200);
  });
});

describe("signed URLs", () => {
  test("POST /token answers a token and its ISO expiry; bad bodies are 422s", async () => {
    const v = await t.createVideo(ws);
    const now = Math.floor(Date.now() / 1000);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/token`, { token: ws.token, body: { exp: now + 600 } });
    expect(res.status).toBe(200);
    expect(res.body.token.split(".")).toHaveLength(3);
    expect(res.body.expires_at).toBe(new Date((now + 600) * 1000).toISOString());
    const plain = await t.call("POST", `/api/v1/videos/${v.id}/token`, { token: ws.token });
    expect(plain.status).toBe(200);
    expect(Date.parse(plain.body.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(invalidFields(await t.call("POST", `/api/v1/videos/${v.id}/token`, { token: ws.token, body: { exp: now - 10 } }))).toEqual(["exp"]);
    expect(invalidFields(await t.call("POST", `/api/v1/videos/${v.id}/token`, { token: ws.token, body: { exp: "soon" } }))).toEqual(["exp"]);
    const other = await t.workspace();
    expect((await t.call("POST", `/api/v1/videos/${v.id}/token`, { token: other.token })).status).toBe(404);
  });

  test("segments need a valid token for that video: none, expired, another video's or a forged one is refused", async () => {
    const v = await videoWithMedia();
    const w = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true });
    await patch(w.id, { require_signed_urls: true });
    const seg = `${v.prefix}360p/seg_000.ts`;
    const now = Math.floor(Date.now() / 1000);
    const good = await mint(v.id);
    expect((await media(seg)).status).toBe(403);
    expect((await media(`${seg}?token=${await mint(w.id)}`)).status).toBe(403);
    expect((await media(`${seg}?token=${good.slice(0, -2)}xx`)).status).toBe(403);
    const res = await media(`${seg}?token=${good}`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(SEGMENT);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    // An expired one, made with an exp one second ahead.
    const shortLived = await mint(v.id, { exp: now + 1 });
    await Bun.sleep(2100);
    expect((await media(`${seg}?token=${shortLived}`)).status).toBe(403);
  });

  test("a playlist served for a token passes it to every variant and segment, so any HLS player follows", async () => {
    const v = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true });
    const token = await mint(v.id);
    const master = (await media(`${v.prefix}master.m3u8?token=${token}`)).text();
    expect(master).toContain(`360p/index.m3u8?token=${token}`);
    const variant = (await media(`${v.prefix}360p/index.m3u8?token=${token}`)).text();
    expect(variant).toContain(`seg_000.ts?token=${token}`);
    const segment = variant.split("\n").find((l) => l.startsWith("seg_"))!;
    expect((await media(`${v.prefix}360p/${segment}`)).bytes).toEqual(SEGMENT);
  });

  test("with both, a valid token from a disallowed origin is still refused", async () => {
    const v = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true, allowed_origins: ["shop.example.com"] });
    const token = await mint(v.id);
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${token}`, { Origin: "https://ripper.test" })).status).toBe(403);
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${token}`, { Origin: "https://shop.example.com" })).status).toBe(200);
  });

  test("a token minted offline with a signing key plays until the key is revoked; keys stay in their workspace", async () => {
    const v = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true });
    const made = await t.call("POST", "/api/v1/signing-keys", { token: ws.token });
    expect(made.status).toBe(201);
    const key = made.body.signing_key;
    expect(key.jwk).toEqual({ kty: "oct", kid: key.id, alg: "HS256", k: key.secret });
    const listed = await t.call("GET", "/api/v1/signing-keys", { token: ws.token });
    expect(listed.body.data.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);

    const token = offlineToken(key, v.code, Math.floor(Date.now() / 1000) + 600);
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${token}`)).status).toBe(200);

    // Another workspace's key cannot sign for this video, nor revoke this key.
    const other = await t.workspace();
    const foreign = (await t.call("POST", "/api/v1/signing-keys", { token: other.token })).body.signing_key;
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${offlineToken(foreign, v.code, Math.floor(Date.now() / 1000) + 600)}`)).status).toBe(403);
    expect((await t.call("DELETE", `/api/v1/signing-keys/${key.id}`, { token: other.token })).status).toBe(404);

    expect((await t.call("DELETE", `/api/v1/signing-keys/${key.id}`, { token: ws.token })).body).toEqual({ deleted: true });
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${token}`)).status).toBe(403);
    expect((await t.call("DELETE", `/api/v1/signing-keys/${key.id}`, { token: ws.token })).status).toBe(404);
  });
});

describe("downloadable and accessRules in the token", () => {
  let tp: TestApp;
  let wsp: TestWorkspace;
  // Behind a proxy that sets X-Forwarded-For (README "TLS and the reverse proxy"), so the test can choose the viewer's IP.
  beforeAll(async () => {
    ({ t: tp, ws: wsp } = await appAndWorkspace({ config: { trustProxy: true } }));
  });
  const post = (id: number, body: unknown) => tp.call("POST", `/api/v1/videos/${id}/token`, { token: wsp.token, body });
  const claims = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
  const from = async (key: string, ip: string) => {
    const res = await tp.app.handle(new Request(`${BASE}/media/${key}`, { headers: { "X-Forwarded-For": ip } }));
    await res.arrayBuffer();
    return res.status;
  };

  test("downloadable defaults to false; accessRules are carried normalised; bad rules are 422s naming the rule and field", async () => {
    const v = await tp.createVideo(wsp);
    const plain = await post(v.id, {});
    expect(claims(plain.body.token)).toMatchObject({ sub: v.code, downloadable: false });
    expect(claims(plain.body.token).accessRules).toBeUndefined();
    const rules = [
      { type: "ip.geoip.country", action: "allow", country: ["us"] },
      { type: "any", action: "block" },
    ];
    const ruled = await post(v.id, { downloadable: true, accessRules: rules });
    expect(ruled.status).toBe(200);
    expect(claims(ruled.body.token)).toMatchObject({ downloadable: true, accessRules: [{ ...rules[0], country: ["US"] }, rules[1]] });
    const bad = await post(v.id, {
      accessRules: [
        { type: "ip.asn", action: "allow" },
        { type: "ip.src", action: "allow", ip: ["10.0.0.0/99"] },
      ],
    });
    expect(invalidFields(bad)).toEqual(["accessRules.0.type", "accessRules.1.ip"]);
    expect(bad.body.errors["accessRules.1.ip"]).toEqual(['Not IP addresses or CIDR ranges: "10.0.0.0/99".']);
    expect(invalidFields(await post(v.id, { accessRules: [{ type: "ip.geoip.country", action: "allow" }] }))).toEqual(["accessRules.0.country"]);
    expect(invalidFields(await post(v.id, { accessRules: [{ type: "any", action: "maybe" }] }))).toEqual(["accessRules.0.action"]);
    expect(invalidFields(await post(v.id, { downloadable: "yes" }))).toEqual(["downloadable"]);
  });

  test("the media host applies the rules to playlists and segments: first match wins, by country (geoip) and by IP", async () => {
    const video = await tp.createVideo(wsp);
    const prefix = `videos/${video.code}/landscape/1/`;
    await tp.deps.blobs.media.put(`${prefix}360p/index.m3u8`, "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\nseg_000.ts\n#EXT-X-ENDLIST\n");
    await tp.deps.blobs.media.put(`${prefix}360p/seg_000.ts`, SEGMENT);
    await tp.call("PATCH", `/api/v1/videos/${video.id}`, { token: wsp.token, body: { require_signed_urls: true } });
    const seg = `${prefix}360p/seg_000.ts`;
    const list = `${prefix}360p/index.m3u8`;
    // 8.8.8.8 is in the US and 81.2.69.142 in Great Britain in the bundled country database.
    const usOnly = (
      await post(video.id, {
        accessRules: [
          { type: "ip.geoip.country", action: "allow", country: ["US"] },
          { type: "any", action: "block" },
        ],
      })
    ).body.token;
    expect(await from(`${seg}?token=${usOnly}`, "8.8.8.8")).toBe(200);
    expect(await from(`${list}?token=${usOnly}`, "8.8.8.8")).toBe(200);
    expect(await from(`${seg}?token=${usOnly}`, "81.2.69.142")).toBe(403);
    expect(await from(`${list}?token=${usOnly}`, "81.2.69.142")).toBe(403);
    const officeBlocked = (
      await post(video.id, {
        accessRules: [
          { type: "ip.src", action: "block", ip: ["203.0.113.0/24"] },
          { type: "ip.src", action: "allow", ip: ["203.0.113.7"] },
        ],
      })
    ).body.token;
    // The block comes first, so it wins for the whole range; anyone matching no rule is allowed.
    expect(await from(`${seg}?token=${officeBlocked}`, "203.0.113.7")).toBe(403);
    expect(await from(`${seg}?token=${officeBlocked}`, "198.51.100.1")).toBe(200);
    const refused = await tp.app.handle(new Request(`${BASE}/media/${seg}?token=${usOnly}`, { headers: { "X-Forwarded-For": "81.2.69.142" } }));
    expect(await refused.text()).toBe("This video's token does not allow playback from this network or country.");
  });
});

describe("encrypted streams", () => {
  /** Runs the queued encryption jobs (this run's other videos' too); answers how many. */
  const encryptAll = async () => {
    let n = 0;
    while (await runNextEncryption(t.deps)) n++;
    return n;
  };
  test("encryption is none by default, set with PATCH, shown in the video; anything else is a 422", async () => {
    const v = await t.createVideo(ws);
    expect(v.encryption).toBe("none");
    expect(invalidFields(await patch(v.id, { encryption: "aes-256" }))).toEqual(["encryption"]);
    const res = await patch(v.id, { encryption: "aes-128" });
    expect(res.status).toBe(200);
    expect(res.body.video.encryption).toBe("aes-128");
    expect((await t.call("GET", `/api/v1/videos/${v.id}`, { token: ws.token })).body.video.encryption).toBe("aes-128");
  });

  test("the job encrypts a ready video's segments in place of the plain ones; the key goes only to an allowed origin with a token", async () => {
    const v = await videoWithMedia();
    const ts = new Uint8Array(188 * 4).map((_, i) => (i % 188 === 0 ? 0x47 : (i * 7) % 256));
    await t.deps.blobs.media.put(`${v.prefix}360p/seg_000.ts`, ts);
    await t.deps.sql`UPDATE videos SET landscape_hls = ${`${v.prefix}master.m3u8`}, landscape_thumb = ${`${v.prefix}poster.jpg`},
                     landscape_media = '{"status":"ready","progress":100,"error":null,"job_id":1}' WHERE id = ${v.id}`;
    t.deps.videoCache.evict(v.id);
    const page = { Origin: "https://shop.example" };
    expect((await patch(v.id, { allowed_origins: ["shop.example"], require_signed_urls: true, encryption: "aes-128" })).status).toBe(200);
    await encryptAll();
    const read = (await t.call("GET", `/api/v1/videos/${v.id}`, { token: ws.token })).body.video;
    expect(read.landscape_hls).toEndWith(`${v.prefix}master-aes128.m3u8`);

    // At rest: only encrypted segments, none a valid MPEG-TS (sync byte 0x47) any more.
    const stored = await Array.fromAsync(t.deps.blobs.media.list(v.prefix));
    const segments = stored.filter((f) => f.key.endsWith(".ts"));
    expect(segments.map((f) => f.key)).toEqual([`${v.prefix}360p/seg_000-aes128.ts`]);
    expect(stored.some((f) => f.key.endsWith("/master.m3u8") || f.key.endsWith("/index.m3u8"))).toBe(false);
    const sealed = new Uint8Array(await new Response((await t.deps.blobs.media.get(segments[0]!.key))!.body).arrayBuffer());
    expect(looksLikeTransportStream(ts)).toBe(true);
    expect(looksLikeTransportStream(sealed)).toBe(false);
    expect(sealed.length % 16).toBe(0);

    // The key: 403 without a token or from another site; the 16 bytes with both, and they open the segment.
    const keyPath = `videos/${v.code}/aes128.key`;
    const token = await mint(v.id);
    expect((await media(keyPath, page)).status).toBe(403);
    expect((await media(`${keyPath}?token=${token}`, { Origin: "https://elsewhere.example" })).status).toBe(403);
    expect((await media(`${keyPath}?token=${token}`)).status).toBe(403);
    const key = await media(`${keyPath}?token=${token}`, page);
    expect(key.status).toBe(200);
    expect(key.bytes.length).toBe(16);
    expect(key.headers.get("cache-control")).toBe("private, no-store");
    expect(decryptSegment(sealed, key.bytes, ivFor(0))).toEqual(ts);

    // The playlist served for a token names the key with the token too.
    const list = await media(`${v.prefix}360p/index-aes128.m3u8?token=${token}`, page);
    expect(list.text()).toContain(
      `#EXT-X-KEY:METHOD=AES-128,URI="../../../aes128.key?token=${encodeURIComponent(token)}",IV=0x00000000000000000000000000000000`,
    );
    // Again: nothing left to do, nothing changed.
    await patch(v.id, { encryption: "aes-128" });
    expect(await encryptAll()).toBeGreaterThan(0);
    expect((await t.call("GET", `/api/v1/videos/${v.id}`, { token: ws.token })).body.video.landscape_hls).toBe(read.landscape_hls);
    // A video without encryption has no key to answer.
    const plain = await videoWithMedia();
    expect((await media(`videos/${plain.code}/aes128.key`)).status).toBe(404);
  });
});

describe("another process", () => {
  test("a key revoked in one process stops playing in another within the documented delay", async () => {
    let ahead = 0;
    const second = await testApp({ clock: { now: () => Date.now() + ahead }, media: t.deps.blobs.media });
    const v = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true });
    const key = (await t.call("POST", "/api/v1/signing-keys", { token: ws.token })).body.signing_key;
    const token = offlineToken(key, v.code, Math.floor(Date.now() / 1000) + 600);
    const there = async () => {
      const res = await second.app.handle(new Request(`${BASE}/media/${v.prefix}360p/seg_000.ts?token=${token}`));
      await res.arrayBuffer();
      return res.status;
    };
    // A key made elsewhere a moment ago is picked up on first sight.
    expect(await there()).toBe(200);
    await t.call("DELETE", `/api/v1/signing-keys/${key.id}`, { token: ws.token });
    ahead = KEY_REFRESH_MS - 1000;
    expect(await there()).toBe(200);
    ahead = KEY_REFRESH_MS;
    expect(await there()).toBe(403);
    await second.deps.close();
  });
});

describe("the embed player's token", () => {
  test("answered to an allowed page, refused to another, 404 for an unknown code", async () => {
    const v = await videoWithMedia();
    await patch(v.id, { require_signed_urls: true, allowed_origins: ["shop.example.com"] });
    const ask = (headers: Record<string, string>, code = v.code) => t.call("GET", `/v1/playback/${code}/token`, { headers });
    const ok = await ask({ Origin: "https://shop.example.com" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    expect((await media(`${v.prefix}360p/seg_000.ts?token=${ok.body.token}`, { Origin: "https://shop.example.com" })).status).toBe(200);
    const refused = await ask({ Origin: "https://ripper.test" });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "ORIGIN_NOT_ALLOWED", message: "This video can't be played on this site." });
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect((await ask({ Origin: "https://shop.example.com" }, crypto.randomUUID())).status).toBe(404);
    expect((await ask({ Origin: "https://shop.example.com" }, "not-a-code")).status).toBe(404);
  });
});
