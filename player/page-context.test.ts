import { describe, expect, test } from "bun:test";
import { pageContext } from "./page-context.ts";

const at = (url: string) => {
  const u = new URL(url);
  return { hostname: u.hostname, pathname: u.pathname, search: u.search } as Location;
};

describe("pageContext", () => {
  test("page host and path, the referrer's host and the utm_* parameters", () => {
    expect(
      pageContext(at("https://Shop.Example/offer?utm_source=facebook&utm_medium=cpc&utm_campaign=%20spring%20&x=1"), "https://www.Facebook.com/ads?id=1"),
    ).toEqual({
      page_host: "shop.example",
      page_path: "/offer",
      referrer_host: "www.facebook.com",
      utm_source: "facebook",
      utm_medium: "cpc",
      utm_campaign: "spring",
    });
  });

  test("a referrer on the page's own host is internal navigation; no referrer, no utm: nothing", () => {
    expect(pageContext(at("https://shop.example/step-2"), "https://shop.example/step-1")).toEqual({ page_host: "shop.example", page_path: "/step-2" });
    expect(pageContext(at("https://shop.example/"), "")).toEqual({ page_host: "shop.example", page_path: "/" });
    expect(pageContext(at("https://shop.example/"), "not a url")).toEqual({ page_host: "shop.example", page_path: "/" });
  });
});
