import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Value } from "@sinclair/typebox/value";
import { TrackBody } from "../server/hosts/events/model.ts";
import { e164 as serverE164 } from "../server/hosts/events/identity.ts";
import { normaliseEventName } from "../contract/events.ts";
import { storedProperties } from "../server/hosts/events/service.ts";
import { isId } from "./identity.ts";
import { cut, e164, limitProperties, normaliseName, trackBody } from "./track-body.ts";

const ids = { sessionId: "a".repeat(32), deviceId: "b".repeat(32) };
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** What the events host checks on /v1/track before it records: the schema, the name, the value and the property rules. */
function serverAccepts(body: unknown): boolean {
  if (!Value.Check(TrackBody, body)) return false;
  const b = body as TrackBody;
  if (normaliseEventName(b.event) === "") return false;
  try {
    storedProperties(b.properties);
  } catch {
    return false;
  }
  return true;
}

describe("limitProperties", () => {
  test("keeps at most 20, cuts keys to 40 and strings to 100, drops what is not a scalar", () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, "x".repeat(200)]));
    const kept = limitProperties(many);
    expect(Object.keys(kept)).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`));
    expect(Object.values(kept).every((v) => v === "x".repeat(100))).toBe(true);

    const long = "k".repeat(41);
    expect(limitProperties({ [long]: 1, ok: true, n: 2.5, nan: Number.NaN, inf: Infinity, obj: { a: 1 }, list: [1], nil: null, undef: undefined })).toEqual({
      [long.slice(0, 40)]: 1,
      ok: true,
      n: 2.5,
    });
  });

  test("a key that repeats a kept one once cut is dropped; __proto__ is an ordinary key", () => {
    const a = "a".repeat(40);
    expect(limitProperties({ [a + "1"]: "first", [a + "2"]: "second" })).toEqual({ [a]: "first" });
    const odd = limitProperties(JSON.parse('{"__proto__": "x", "": "empty"}'));
    expect(Object.keys(odd)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
  });

  test("cut never leaves half a surrogate pair", () => {
    expect(cut("ab😀", 3)).toBe("ab");
    expect(cut("ab😀", 4)).toBe("ab😀");
    expect(cut("abc", 2)).toBe("ab");
  });
});

describe("the page applies the events host's own rules", () => {
  test("phones: E.164 with + or 00, separators dropped, anything else dropped, exactly as the host reads them", () => {
    const samples = [
      "+1 (555) 010-9999",
      "0049 151 1234567",
      "+49-151-1234567",
      "0151 1234567",
      "555 0109999",
      "+0 123456",
      "+12345",
      "+1234567890123456",
      " +44 20 7946 0958 ",
      "",
      "00",
      "+",
    ];
    for (const phone of samples) expect(e164(phone), phone).toBe(serverE164(phone));
    expect(e164("0049 151 1234567")).toBe("+491511234567");
    expect(e164("0151 1234567")).toBeUndefined();
  });

  test("names: normalised as the host does; ids: what fl_sid may carry", () => {
    for (const name of ["Signup", "Added To Cart", "!!!", "K-elvin_1", "İstanbul", "x".repeat(300)]) expect(normaliseName(name)).toBe(normaliseEventName(name));
    expect(isId("bridged_session_0001")).toBe(true);
    expect(isId("short")).toBe(false);
    expect(isId("has space in it")).toBe(false);
    expect(isId("x".repeat(101))).toBe(false);
  });
});

describe("trackBody", () => {
  test("value, identity and properties go where the host expects them; raw contact data is hashed", async () => {
    const body = await trackBody("ws_1", ids, "Signup", {
      value: 49,
      email: "  A@B.co ",
      phone: "+1 (555) 010-9999",
      external_id: "crm-9",
      profile_id: "prof-1",
      event_id: "order-1",
      email_md5: "0CC175B9C0F1B6A831C399E269772661",
      phone_sha256: "not a hash",
      video_code: "6f1c2a8e-3b7d-4c1e-9a2f-5d8b0e4c7a91",
      plan: "pro",
    });
    expect(body).toEqual({
      workspace_code: "ws_1",
      session_id: ids.sessionId,
      device_id: ids.deviceId,
      event: "Signup",
      value: 49,
      email_sha256: sha256("a@b.co"),
      phone_sha256: sha256("+15550109999"),
      external_id: "crm-9",
      profile_id: "prof-1",
      event_id: "order-1",
      email_md5: "0cc175b9c0f1b6a831c399e269772661",
      video_code: "6f1c2a8e-3b7d-4c1e-9a2f-5d8b0e4c7a91",
      properties: { plan: "pro" },
    });
    expect(serverAccepts(body)).toBe(true);
  });

  test("a name the host cannot use is not sent; a name too long for its schema goes normalised", async () => {
    expect(await trackBody("ws_1", ids, "!!!", {})).toBeUndefined();
    expect(await trackBody("ws_1", ids, "", {})).toBeUndefined();
    const long = await trackBody("ws_1", ids, "Big ".repeat(100), {});
    expect(long!.event).toBe(normaliseEventName("Big ".repeat(100)));
    expect(serverAccepts(long)).toBe(true);
  });

  test("out-of-range or non-numeric value, bad hashes and an over-long event_id are dropped, not sent", async () => {
    for (const value of [1e9 + 1, -1e9 - 1, Number.NaN, Infinity, "49"]) {
      const body = await trackBody("ws_1", ids, "buy", { value, event_id: "e".repeat(256), phone: "0151 1234567", email: "   " });
      expect(body).toEqual({ workspace_code: "ws_1", session_id: ids.sessionId, device_id: ids.deviceId, event: "buy" });
    }
    expect((await trackBody("ws_1", ids, "buy", { value: -1e9 }))!.value).toBe(-1e9);
  });

  test("whatever a page passes, the body is one the host accepts", async () => {
    // The check itself refuses what the host refuses.
    const base = { workspace_code: "ws_1", session_id: ids.sessionId, event: "ok" };
    expect(serverAccepts(base)).toBe(true);
    expect(serverAccepts({ ...base, properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, 1])) })).toBe(false);
    expect(serverAccepts({ ...base, properties: { ["k".repeat(41)]: 1 } })).toBe(false);
    expect(serverAccepts({ ...base, properties: { k: "x".repeat(101) } })).toBe(false);
    expect(serverAccepts({ ...base, value: 1e9 + 1 })).toBe(false);
    expect(serverAccepts({ ...base, event: "!!!" })).toBe(false);
    expect(serverAccepts({ ...base, phone_sha256: "nope" })).toBe(false);
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
    const text = () => pick(["", "a", "x".repeat(101), "😀".repeat(60), "k".repeat(41), "Ünïcødé", "__proto__", "value", "email"]);
    const scalar = () => pick<unknown>([text(), 0, -5.5, 1e12, Number.NaN, true, null, undefined, { a: 1 }, [1, 2], 1e9, -1e9 - 1]);
    for (let run = 0; run < 300; run++) {
      const props: Record<string, unknown> = {};
      for (let i = Math.floor(Math.random() * 40); i > 0; i--)
        props[pick([text(), `k${i}`, "value", "email", "phone", "external_id", "event_id", "profile_id", "email_sha256"])] = scalar();
      const body = await trackBody("ws_1", ids, pick(["Signup", "a b c", "x".repeat(300), "ok"]), props);
      expect(serverAccepts(body), JSON.stringify(props)).toBe(true);
    }
  });
});
