// Rules the checkout enforces on what the customer typed: custom field data against the product's
// attached fields (type, bounds, required), the tax ID against the billing country, and at confirm
// the billing address against the fields its country asks for.
import { hasStreetAddress } from "../../lib/billing-address-fields.ts";
import { firstDayAllowed, lastDayAllowed } from "../../lib/date-bounds.ts";
import { RequestValidationError, type ValidationIssue } from "../../lib/errors.ts";
import { validateTaxId } from "../customers/tax-id.ts";
import type { ProductOut } from "../products/schemas.ts";
import type { CheckoutRow } from "./repository.ts";
import { billingAddressFields, type CheckoutView, fullAddressRequired } from "./serialize.ts";
import { cardUse } from "./trial.ts";

type Attached = ProductOut["attached_custom_fields"][number];
type Value = string | number | boolean | null;

export function customFieldIssues(
  attached: Attached[],
  data: Record<string, Value>,
  requireAll: boolean,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const bySlug = new Map(attached.map((a) => [a.custom_field.slug, a]));
  for (const key of Object.keys(data)) {
    if (!bySlug.has(key))
      issues.push({
        loc: ["body", "custom_field_data", key],
        msg: "This product has no such field.",
        type: "extra_forbidden",
      });
  }
  for (const a of attached) {
    const field = a.custom_field as {
      slug: string;
      type: string;
      name: string;
      properties: Record<string, unknown>;
    };
    const loc = ["body", "custom_field_data", field.slug];
    const value = data[field.slug];
    const empty =
      value === undefined ||
      value === null ||
      value === "" ||
      (field.type === "checkbox" && value === false);
    if (empty) {
      if (requireAll && a.required)
        issues.push({ loc, msg: `${field.name} is required.`, type: "missing" });
      continue;
    }
    const p = field.properties;
    switch (field.type) {
      case "text": {
        if (typeof value !== "string")
          issues.push({ loc, msg: "Must be text.", type: "string_type" });
        else if (typeof p.min_length === "number" && value.length < p.min_length)
          issues.push({
            loc,
            msg: `At least ${p.min_length} characters.`,
            type: "string_too_short",
          });
        else if (typeof p.max_length === "number" && value.length > p.max_length)
          issues.push({ loc, msg: `At most ${p.max_length} characters.`, type: "string_too_long" });
        break;
      }
      case "number": {
        // Polar's value is an int. One past 2^53 was already rounded by JSON.parse: refused, not
        // stored as a number the buyer never typed.
        if (typeof value !== "number" || !Number.isFinite(value))
          issues.push({ loc, msg: "Must be a number.", type: "int_type" });
        else if (!Number.isInteger(value))
          issues.push({ loc, msg: "Must be a whole number.", type: "int_from_float" });
        else if (!Number.isSafeInteger(value))
          issues.push({
            loc,
            msg: `Must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`,
            type: "value_error",
          });
        else if (typeof p.ge === "number" && value < p.ge)
          issues.push({ loc, msg: `Must be at least ${p.ge}.`, type: "greater_than_equal" });
        else if (typeof p.le === "number" && value > p.le)
          issues.push({ loc, msg: `Must be at most ${p.le}.`, type: "less_than_equal" });
        break;
      }
      case "date": {
        const ok =
          typeof value === "string" &&
          /^\d{4}-\d{2}-\d{2}$/.test(value) &&
          !Number.isNaN(Date.parse(value));
        if (!ok) issues.push({ loc, msg: "Must be a date (YYYY-MM-DD).", type: "date_parsing" });
        else {
          const day = Date.parse(value as string) / 86_400_000;
          if (typeof p.ge === "number" && day < p.ge / 86_400)
            issues.push({
              loc,
              msg: `Choose ${firstDayAllowed(p.ge)} or later.`,
              type: "greater_than_equal",
            });
          if (typeof p.le === "number" && day > p.le / 86_400)
            issues.push({
              loc,
              msg: `Choose ${lastDayAllowed(p.le)} or earlier.`,
              type: "less_than_equal",
            });
        }
        break;
      }
      case "checkbox":
        if (typeof value !== "boolean")
          issues.push({ loc, msg: "Must be true or false.", type: "bool_type" });
        break;
      case "select": {
        const options = (p.options as { value: string }[] | undefined) ?? [];
        if (typeof value !== "string" || !options.some((o) => o.value === value))
          issues.push({ loc, msg: "Choose one of the options.", type: "enum" });
        break;
      }
    }
  }
  return issues;
}

/**
 * A tax ID typed at checkout, checked against the billing address's country as Polar's: its
 * compacted number (what the session keeps), or a 422 at `customer_tax_id`, or at the address when
 * there is no country to check it against.
 */
export function checkoutTaxId(number: string, country: string | null | undefined): string {
  if (!country)
    throw new RequestValidationError([
      {
        loc: ["body", "customer_billing_address"],
        msg: "Country is required to validate tax ID.",
        type: "missing",
        input: null,
      },
    ]);
  const result = validateTaxId(number, country);
  if (!result.ok)
    throw new RequestValidationError([
      {
        loc: ["body", "customer_tax_id"],
        msg: "Invalid tax ID.",
        type: "value_error",
        input: number,
      },
    ]);
  return result.value[0];
}

/**
 * Everything a confirm needs before any payment (Polar's _confirm_inner): a product and price still
 * on sale, the email, the billing address, the required custom fields, and a card when one is taken
 * now or saved for later.
 */
export function confirmIssues(view: CheckoutView, tokenId: string | null | undefined) {
  const { row } = view;
  const product = view.products.find((p) => p.id === row.productId) ?? null;
  const { formRequired } = cardUse(product, row, view.discount);
  const issues: ValidationIssue[] = [];
  // Retired by the seller since the session opened (Polar refuses an archived price here).
  if (product?.is_archived)
    issues.push({
      loc: ["body", "product_id"],
      msg: "Product is archived.",
      type: "value_error",
      input: row.productId,
    });
  else if (!product?.prices.some((p) => p.id === row.productPriceId && !p.is_archived))
    issues.push({
      loc: ["body", "product_price_id"],
      msg: "Price is archived.",
      type: "value_error",
      input: row.productPriceId,
    });
  if (!row.customerEmail) issues.push(missingField("customer_email"));
  // A business purchase is invoiced to the business: its name, as Polar asks.
  if (row.isBusinessCustomer && !row.customerBillingName?.trim())
    issues.push(missingField("customer_billing_name"));
  issues.push(
    ...addressIssues(row, formRequired),
    ...customFieldIssues(product?.attached_custom_fields ?? [], row.customFieldData, true),
  );
  if (formRequired && !tokenId)
    issues.push({
      loc: ["body", "confirmation_token_id"],
      msg: "Confirmation token is required.",
      type: "missing",
      input: null,
    });
  return issues;
}

/** Polar's error for a required confirm field that is neither on the session nor in the body. */
function missingField(...loc: string[]): ValidationIssue {
  return { loc: ["body", ...loc], msg: "Field is required.", type: "missing", input: null };
}

/**
 * Polar's required confirm fields for the address: with a card to enter, the address and each field
 * its country requires; for a business purchase, an address; and a full address (more than country
 * and state) when the seller or a business purchase asks for one, card or not. The confirm's
 * address is already on the row.
 */
function addressIssues(row: CheckoutRow, formRequired: boolean): ValidationIssue[] {
  const address = row.customerBillingAddress;
  const issues: ValidationIssue[] = [];
  const missing = (...loc: string[]) =>
    issues.push(missingField("customer_billing_address", ...loc));
  if ((formRequired || row.isBusinessCustomer) && !address) missing();
  if (formRequired)
    for (const [key, mode] of Object.entries(billingAddressFields(row)))
      if (mode === "required" && !address?.[key as keyof typeof address]) missing(key);
  if (fullAddressRequired(row) && !hasStreetAddress(address))
    issues.push({
      loc: ["body", "customer_billing_address"],
      msg: "Full billing address is required.",
      type: "value_error",
      input: address ?? null,
    });
  return issues;
}
