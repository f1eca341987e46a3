// Every product and price rule of POST /v1/products/ answered with a 422 in Polar's shape, and
// nothing written: no product, no price row, no outbox event.
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  counts,
  expect422,
  fixed,
  ids,
  metered,
  monthly,
  oneTime,
  seller,
  t,
  withValidationTenants,
} from "../../../test/helpers/product-validation.ts";

withValidationTenants();

describe("POST /v1/products/ validation", () => {
  const cases: [string, () => unknown, (string | number)[]][] = [
    ["a name of two characters", () => oneTime([fixed()], { name: "ab" }), ["body", "name"]],
    [
      "a name over 64 characters",
      () => oneTime([fixed()], { name: "x".repeat(65) }),
      ["body", "name"],
    ],
    ["no prices", () => oneTime([]), ["body", "prices"]],
    [
      "an unknown amount type",
      () => oneTime([{ amount_type: "tiered" }]),
      ["body", "prices", 0, "amount_type"],
    ],
    [
      "a seat-based price without tiers",
      () => oneTime([{ amount_type: "seat_based", seat_tiers: {} }]),
      ["body", "prices", 0, "seat_tiers"],
    ],
    ["a negative fixed amount", () => oneTime([fixed(-1)]), ["body", "prices", 0, "price_amount"]],
    [
      "a fixed amount below the card minimum",
      () => oneTime([fixed(49)]),
      ["body", "prices", 0, "price_amount"],
    ],
    [
      "a fixed amount that is not an integer",
      () => oneTime([fixed(10.5)]),
      ["body", "prices", 0, "price_amount"],
    ],
    [
      "an unknown currency",
      () => oneTime([fixed(1000, { price_currency: "xxx" })]),
      ["body", "prices", 0, "price_currency"],
    ],
    [
      "an unknown tax behavior",
      () => oneTime([fixed(1000, { tax_behavior: "sometimes" })]),
      ["body", "prices", 0, "tax_behavior"],
    ],
    [
      "a custom minimum below the card minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 10 }]),
      ["body", "prices", 0, "minimum_amount"],
    ],
    [
      "a custom maximum below the minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 1000, maximum_amount: 500 }]),
      ["body", "prices", 0, "maximum_amount"],
    ],
    [
      "a custom preset above the maximum",
      () =>
        oneTime([
          { amount_type: "custom", minimum_amount: 100, maximum_amount: 500, preset_amount: 600 },
        ]),
      ["body", "prices", 0, "preset_amount"],
    ],
    [
      "a custom preset below the minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 500, preset_amount: 100 }]),
      ["body", "prices", 0, "preset_amount"],
    ],
    [
      "two fixed prices in one currency",
      () => oneTime([fixed(1000), fixed(2000)]),
      ["body", "prices", 1],
    ],
    [
      "a fixed and a free price in one currency",
      () => oneTime([fixed(1000), { amount_type: "free" }]),
      ["body", "prices", 1],
    ],
    [
      "a metered price on a one-time product",
      () => oneTime([metered()]),
      ["body", "prices", 0, "amount_type"],
    ],
    [
      "two metered prices on one meter",
      () => monthly([metered(), metered()]),
      ["body", "prices", 1, "meter_id"],
    ],
    [
      "a metered price on another organization's meter",
      () => monthly([metered({ meter_id: ids.otherMeter })]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a metered price on an archived meter",
      () => monthly([metered({ meter_id: ids.archivedMeter })]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a metered price without meter",
      () => monthly([{ amount_type: "metered_unit", unit_amount: "1" }]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a unit amount of zero",
      () => monthly([metered({ unit_amount: "0" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount that is not a number",
      () => monthly([metered({ unit_amount: "abc" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount with 13 decimals",
      () => monthly([metered({ unit_amount: "0.0000000000001" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount with 6 integer digits",
      () => monthly([metered({ unit_amount: "123456" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a negative numeric unit amount",
      () => monthly([metered({ unit_amount: -2 })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a negative cap",
      () => monthly([metered({ cap_amount: -1 })]),
      ["body", "prices", 0, "cap_amount"],
    ],
    [
      "an unknown recurring interval",
      () => monthly([fixed()], { recurring_interval: "quarter" }),
      ["body", "recurring_interval"],
    ],
    [
      "a recurring interval count of 1000",
      () => monthly([fixed()], { recurring_interval_count: 1000 }),
      ["body", "recurring_interval_count"],
    ],
    [
      "a recurring interval count on a one-time product",
      () => oneTime([fixed()], { recurring_interval_count: 2 }),
      ["body", "recurring_interval_count"],
    ],
    [
      "a trial on a one-time product",
      () => oneTime([fixed()], { trial_interval: "day", trial_interval_count: 7 }),
      ["body", "trial_interval"],
    ],
    [
      "a trial interval without its count",
      () => monthly([fixed()], { trial_interval: "day" }),
      ["body", "trial_interval_count"],
    ],
    [
      "a weekly meter cycle in a monthly billing interval (not a whole number of weeks)",
      () => monthly([fixed()], { meter_interval: "week" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle longer than the billing interval",
      () => monthly([fixed()], { meter_interval: "year" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle of 5 months in a yearly interval",
      () =>
        monthly([fixed()], {
          recurring_interval: "year",
          meter_interval: "month",
          meter_interval_count: 5,
        }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle on a one-time product",
      () => oneTime([fixed()], { meter_interval: "day" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter interval count without a meter interval",
      () => monthly([fixed()], { meter_interval_count: 2 }),
      ["body", "meter_interval_count"],
    ],
    [
      "an unknown visibility",
      () => oneTime([fixed()], { visibility: "hidden" }),
      ["body", "visibility"],
    ],
    [
      "media of another organization",
      () => oneTime([fixed()], { medias: [ids.otherMedia] }),
      ["body", "medias", 0],
    ],
    [
      "media that is not uploaded yet",
      () => oneTime([fixed()], { medias: [ids.pendingMedia] }),
      ["body", "medias", 0],
    ],
    [
      "a downloadable as media",
      () => oneTime([fixed()], { medias: [ids.downloadable] }),
      ["body", "medias", 0],
    ],
    [
      "a custom field of another organization",
      () =>
        oneTime([fixed()], {
          attached_custom_fields: [{ custom_field_id: ids.otherField, required: true }],
        }),
      ["body", "attached_custom_fields", 0, "custom_field_id"],
    ],
    [
      "a custom field attached twice",
      () =>
        oneTime([fixed()], {
          attached_custom_fields: [
            { custom_field_id: ids.field, required: true },
            { custom_field_id: ids.field, required: false },
          ],
        }),
      ["body", "attached_custom_fields", 1, "custom_field_id"],
    ],
    [
      "an attached custom field without required",
      () => oneTime([fixed()], { attached_custom_fields: [{ custom_field_id: ids.field }] }),
      ["body", "attached_custom_fields", 0, "required"],
    ],
    [
      "metadata with an empty string value",
      () => oneTime([fixed()], { metadata: { k: "" } }),
      ["body", "metadata", "k"],
    ],
    [
      "metadata with a list value",
      () => oneTime([fixed()], { metadata: { k: [1] } }),
      ["body", "metadata", "k"],
    ],
    [
      "an organization the token cannot write to",
      () => oneTime([fixed()], { organization_id: "00000000-0000-4000-8000-000000000000" }),
      ["body", "organization_id"],
    ],
  ];
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = await counts();
      await expect422(
        await api(t.url, "/v1/products/", { token: seller.token, body: body() }),
        loc,
      );
      expect(await counts()).toEqual(before);
    });
  }

  it("a float for an integer field → pydantic's int_from_float", async () => {
    for (const body of [
      oneTime([fixed(10.5)]),
      oneTime([{ amount_type: "custom", minimum_amount: 500.5 }]),
    ]) {
      const res = await api(t.url, "/v1/products/", { token: seller.token, body });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({
        msg: "Input should be a valid integer, got a number with a fractional part",
        type: "int_from_float",
      });
    }
  });
});
