import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { signToken, verifyToken } from "./tokens.ts";

const key = { kid: "11111111-1111-4111-8111-111111111111", secret: new Uint8Array(32).fill(7) };
const secretOf = (kid: string) => (kid === key.kid ? key.secret : undefined);

describe("playback tokens", () => {
  test("a token signed with a key verifies until it expires", () => {
    const token = signToken(key, { sub: "video-code", exp: 1000 });
    expect(verifyToken(token, secretOf, 999)).toEqual({ ok: true, claims: { sub: "video-code", exp: 1000, kid: key.kid } });
    expect(verifyToken(token, secretOf, 1000)).toEqual({ ok: false, reason: "expired" });
  });

  test("an unknown or revoked key, a changed claim or a token that is not yet valid is refused", () => {
    const token = signToken(key, { sub: "a", exp: 1000, nbf: 500 });
    expect(verifyToken(token, () => undefined, 1)).toEqual({ ok: false, reason: "unknown_key" });
    expect(verifyToken(token, secretOf, 400)).toEqual({ ok: false, reason: "not_yet_valid" });
    const [h, , s] = token.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: "b", exp: 1000, kid: key.kid })).toString("base64url")}.${s}`;
    expect(verifyToken(forged, secretOf, 600)).toEqual({ ok: false, reason: "bad_signature" });
    expect(verifyToken("not.a.token", secretOf, 600)).toEqual({ ok: false, reason: "malformed" });
  });

  test("a token minted by hand as the README shows verifies", () => {
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const input = `${b64({ alg: "HS256", kid: key.kid })}.${b64({ sub: "video-code", exp: 2000 })}`;
    const token = `${input}.${createHmac("sha256", key.secret).update(input).digest("base64url")}`;
    expect(verifyToken(token, secretOf, 1500).ok).toBe(true);
  });
});
