// Amounts typed and shown in the dashboard: minor units are cents for most currencies but whole
// units for zero-decimal ones (yen), so ¥1,500 is 1500 both ways and never 150000.
import { describe, expect, it } from "vitest";
import { money, toMajorText, toMinorUnits } from "./format.ts";

describe("dashboard amounts", () => {
  it("reads typed amounts in the currency's own minor units", () => {
    expect(toMinorUnits("15", "usd")).toBe(1500);
    expect(toMinorUnits("15,50", "eur")).toBe(1550);
    expect(toMinorUnits("0.1", "usd")).toBe(10);
    expect(toMinorUnits("1500", "jpy")).toBe(1500);
    expect(toMinorUnits("1500", "JPY")).toBe(1500);
    // Yen has no fraction: 15.50 yen is not an amount.
    expect(toMinorUnits("15.50", "jpy")).toBeNull();
    expect(toMinorUnits("abc", "usd")).toBeNull();
    // A comma before three digits is a thousands separator, not cents: refused, never $1.00.
    expect(toMinorUnits("1,000", "usd")).toBeNull();
    expect(toMinorUnits("12,5", "usd")).toBe(1250);
  });

  it("shows and pre-fills amounts in major units", () => {
    expect(toMajorText(1500, "usd")).toBe("15.00");
    expect(toMajorText(1500, "jpy")).toBe("1500");
    expect(money(1500, "usd")).toMatch(/15\.00/);
    expect(money(1500, "jpy")).toMatch(/1,500/);
    expect(money(1500, "jpy")).not.toMatch(/15\b/);
  });
});
