/** Wire schemas of SPEC.md "Conversions (server to server)" and "Browser conversion fallback". */
import { t } from "elysia";

const Text = (max: number, description?: string) => t.String({ maxLength: max, description });

export const ConversionBody = t.Object({
  video_code: t.String({ minLength: 1, maxLength: 100, description: "Video credited; must exist in this workspace.", error: "The video_code is required." }),
  session_code: t.Optional(Text(100, "Viewer session; without it the sale counts in totals but is not traced to a viewer or split-test winner.")),
  conversion_id: t.Optional(t.String({ minLength: 1, maxLength: 190, description: "Order id; default a generated UUID." })),
  conversion_value: t.Optional(t.Number({ description: "Feeds revenue, EPC, RPV, AOV, ROAS.", error: "The conversion_value must be a number." })),
  conversion_currency: t.Optional(t.String({ minLength: 3, maxLength: 3, error: "The conversion currency must be exactly 3 characters." })),
  conversion_product_code: t.Optional(Text(190)),
  conversion_product_name: t.Optional(Text(255)),
  conversion_customer_email: t.Optional(Text(255)),
  conversion_customer_name: t.Optional(Text(255)),
  conversion_customer_phone: t.Optional(Text(64)),
  conversion_data: t.Optional(
    t.Record(t.String(), t.Unknown(), {
      description:
        "Free-form extras. `integration` (string, max 60) names the cart integration this postback comes from: the ledger then keys the sale as " +
        "`<integration>:<conversion_id>`, the same key as the browser fallback, so the verified postback replaces the browser row.",
    }),
  ),
  is_test: t.Optional(t.Boolean({ error: "The is_test field must be true or false." })),
  split_test_id: t.Optional(Text(190, "Send together with split_test_variation_id.")),
  split_test_variation_id: t.Optional(Text(190, "Send together with split_test_id.")),
  occurred_at: t.Optional(t.String({ description: "ISO 8601 date-time; default now.", error: "The occurred_at must be a date-time." })),
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
    workspace_code: t.String({ minLength: 1, maxLength: 100 }),
    integration: t.String({ minLength: 1, maxLength: 60 }),
    order_id: t.String({ minLength: 1, maxLength: 190, description: "Dedup key (with the integration)." }),
    value: t.Number({ minimum: 0 }),
    currency: t.Optional(t.String({ minLength: 1, maxLength: 3, description: "Default USD." })),
    conversion_type: t.Optional(t.String({ minLength: 1, maxLength: 40, description: "Default purchase." })),
    is_test: t.Optional(t.Boolean()),
    session_id: t.Optional(Text(100, "Attributes the sale; supplies the session's last video when video_code is omitted.")),
    device_id: t.Optional(Text(100)),
    video_code: t.Optional(Text(100, "Wins over the session's last video.")),
    customer_email: t.Optional(Text(255)),
    customer_phone: t.Optional(Text(64)),
    customer_name: t.Optional(Text(255)),
    product_name: t.Optional(Text(255)),
    product_code: t.Optional(Text(190)),
    properties: t.Optional(t.Record(t.String(), t.Unknown())),
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
