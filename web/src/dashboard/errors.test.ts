// The API's validation problems as the sentences the dashboard shows beside each field.
import { describe, expect, it } from "vitest";
import { humanize, problemsOf } from "./errors.ts";

describe("API errors for people", () => {
  it("a price under the currency's minimum, in the currency's major units", () => {
    expect(
      humanize(["prices", 0, "price_amount"], "must be 0 (free) or at least 50 in usd"),
    ).toMatch(/^Price must be free or at least (\$0\.50|US\$0\.50)\.$/);
  });

  it("zod's size and presence messages, named by the field's label", () => {
    expect(humanize(["description"], "Too small: expected string to have >=3 characters")).toBe(
      "Description must be at least 3 characters.",
    );
    expect(humanize(["properties", "units"], "Too small: expected number to be >=1")).toBe(
      "Units must be at least 1.",
    );
    expect(humanize(["properties", "files"], "Too small: expected array to have >=1 items")).toBe(
      "Files must be at least 1 item.",
    );
    expect(humanize(["name"], "Field required")).toBe("Name is required.");
    expect(humanize(["properties", "role_id"], "must be a Discord role id (a snowflake)")).toBe(
      "Role ID must be a Discord role id (a snowflake).",
    );
  });

  it("a 422 body becomes problems by field path without the body/query prefix; a string detail stays whole", () => {
    const { message, fields } = problemsOf(422, {
      error: "RequestValidationError",
      detail: [
        {
          loc: ["body", "prices", 0, "price_amount"],
          msg: "must be 0 (free) or at least 100 in eur",
          type: "greater_than_equal",
        },
        { loc: ["body", "name"], msg: "Field required", type: "missing" },
      ],
    });
    expect(fields.map((f) => f.path)).toEqual(["prices.0.price_amount", "name"]);
    expect(message).not.toContain("price_amount");
    expect(problemsOf(404, { error: "ResourceNotFound", detail: "Not found" })).toEqual({
      message: "Not found",
      fields: [],
    });
    expect(problemsOf(500, null).message).toBe("Request failed (HTTP 500)");
  });
});
