import { describe, expect, test } from "bun:test";
import { contrast, readable, themeVars } from "./styles.ts";

describe("contrast fallback", () => {
  test("WCAG ratios: black on white is 21, a colour on itself 1", () => {
    expect(contrast("#000", "#fff")).toBeCloseTo(21, 5);
    expect(contrast("#2563eb", "#2563eb")).toBe(1);
  });

  test("a colour that keeps AA passes; one that fails falls back to black or white, whichever reads better", () => {
    expect(readable("#ffffff", "#2563eb")).toBe("#ffffff");
    expect(readable("#facc15", "#fde047")).toBe("#000");
    expect(readable("#333333", "#000000", 3)).toBe("#fff");
    // 3:1 is enough for icons, not for text.
    expect(readable("#949494", "#000000", 3)).toBe("#949494");
    expect(readable("#5a5a5a", "#000000")).toBe("#fff");
    // Colours that are not hex are the browser's business.
    expect(readable("rebeccapurple", "#000")).toBe("rebeccapurple");
  });

  test("the theme: text on the background, the glyph on the main colour, icons on the dark control row", () => {
    const v = themeVars({ style_options: { main_color: "#fde047", background_color: "#ffffff", text_color: "#ffffff" } });
    expect(v["--fl-text"]).toBe("#000");
    expect(v["--fl-on-main"]).toBe("#000");
    expect(v["--fl-icon"]).toBe("#fff");
    expect(themeVars({})["--fl-text"]).toBe("#fff");
  });
});
