// Amounts the CLI prints: cents for most currencies, whole units for zero-decimal ones (yen).
import { describe, expect, it } from "vitest";
import { formatMoney, formatUnitMoney } from "./output.ts";

describe("printed amounts", () => {
  it("prints minor units in the currency's major units", () => {
    expect(formatMoney(1500, "usd")).toBe("15.00 USD");
    expect(formatMoney(1500, "jpy")).toBe("1500 JPY");
    expect(formatMoney(null)).toBe("-");
    expect(formatUnitMoney("0.5", "usd")).toBe("0.005 USD");
    expect(formatUnitMoney("2", "jpy")).toBe("2.00 JPY");
  });
});
