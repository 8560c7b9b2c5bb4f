/** Wire schemas of docs/api.md "Conversions (server to server)" and "Browser conversion fallback". */
import { t } from "elysia";
import { DateTime, JsonObject, Num, PropertyMap, Text as SafeText } from "../../http/schemas.ts";

const Text = (max: number, description?: string) => SafeText({ maxLength: max, description });
/**
 * Money as the ledger stores it (numeric(18, 4)): up to a trillion either way
 * (a refund may be negative); more decimals are rounded to four.
 */
export const MAX_CONVERSION_VALUE = 1_000_000_000_000;
/** How deep `conversion_data` may nest, counted from the object itself. */
export const CONVERSION_DATA_DEPTH = 16;

export const ConversionBody = t.Object({
  video_code: SafeText({ minLength: 1, maxLength: 100, description: "Video credited; must exist in this workspace.", error: "The video_code is required." }),
  session_code: t.Optional(Text(100, "Viewer session; without it the sale counts in totals but is not traced to a viewer or split-test winner.")),
  conversion_id: t.Optional(SafeText({ minLength: 1, maxLength: 190, description: "Order id; default a generated UUID." })),
  conversion_value: t.Optional(
    Num(-MAX_CONVERSION_VALUE, MAX_CONVERSION_VALUE, {
      description: "Feeds revenue, EPC, RPV, AOV, ROAS. From -1,000,000,000,000 to 1,000,000,000,000; stored to 4 decimals.",
      error: "The conversion_value must be a number from -1000000000000 to 1000000000000.",
    }),
  ),
  conversion_currency: t.Optional(SafeText({ minLength: 3, maxLength: 3, error: "The conversion currency must be exactly 3 characters." })),
  conversion_product_code: t.Optional(Text(190)),
  conversion_product_name: t.Optional(Text(255)),
  conversion_customer_email: t.Optional(Text(255)),
  conversion_customer_name: t.Optional(Text(255)),
  conversion_customer_phone: t.Optional(Text(64)),
  conversion_data: t.Optional(
    JsonObject({
      maxDepth: CONVERSION_DATA_DEPTH,
      description:
        "Free-form extras. `integration` (string, max 60) names the cart integration this postback comes from: the ledger then keys the sale as " +
        "`<integration>:<conversion_id>`, the same key as the browser fallback, so the verified postback replaces the browser row.",
    }),
  ),
  is_test: t.Optional(t.Boolean({ error: "The is_test field must be true or false." })),
  split_test_id: t.Optional(Text(190, "Send together with split_test_variation_id.")),
  split_test_variation_id: t.Optional(Text(190, "Send together with split_test_id.")),
  occurred_at: t.Optional(
    DateTime({
      description: "ISO 8601 date-time (1970 to 2100); default now.",
      error: "The occurred_at must be an ISO 8601 date-time from 1970-01-01 to 2100-12-31.",
    }),
  ),
});
export type ConversionBody = typeof ConversionBody.static;

export const ConversionReply = t.Object({
  recorded: t.Boolean({ description: "False when this exact sale was already recorded and verified (a retry; nothing counted twice)." }),
  conversion_id: t.String(),
  video_code: t.String(),
  attributed_to_split_test: t.Boolean(),
});

export const BrowserConversionBody = t.Object(
  {
    workspace_code: SafeText({ minLength: 1, maxLength: 100 }),
    integration: SafeText({ minLength: 1, maxLength: 60 }),
    order_id: SafeText({ minLength: 1, maxLength: 190, description: "Dedup key (with the integration)." }),
    value: Num(0, MAX_CONVERSION_VALUE, { description: "From 0 to 1,000,000,000,000; stored to 4 decimals." }),
    currency: t.Optional(SafeText({ minLength: 1, maxLength: 3, description: "Default USD." })),
    conversion_type: t.Optional(SafeText({ minLength: 1, maxLength: 40, description: "Default purchase." })),
    is_test: t.Optional(t.Boolean()),
    session_id: t.Optional(Text(100, "Attributes the sale; supplies the session's last video when video_code is omitted.")),
    device_id: t.Optional(Text(100)),
    video_code: t.Optional(Text(100, "Wins over the session's last video.")),
    customer_email: t.Optional(Text(255)),
    customer_phone: t.Optional(Text(64)),
    customer_name: t.Optional(Text(255)),
    product_name: t.Optional(Text(255)),
    product_code: t.Optional(Text(190)),
    properties: t.Optional(PropertyMap()),
  },
  { additionalProperties: false },
);
export type BrowserConversionBody = typeof BrowserConversionBody.static;

export const BrowserConversionReply = t.Object({
  ok: t.Boolean(),
  id: t.String({ description: "<integration>:<order_id>" }),
  conversion_source: t.Literal("browser"),
  verified: t.Literal(false),
  attributed: t.Boolean({ description: "True when session_id resolved to a known session." }),
});
