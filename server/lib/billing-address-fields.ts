// Which billing address fields a checkout asks for, as Polar's Checkout.billing_address_fields: the
// country always; the state in the US and Canada; street, city and postal code for a US buyer or when
// a full address is required. The server answers it and checks confirm against it; the checkout page
// computes it from the country being picked, so it never hides a field the server will ask for.
export type FieldMode = "required" | "optional" | "disabled";

export type AddressField = "country" | "state" | "city" | "postal_code" | "line1" | "line2";

export type AddressFieldModes = Record<AddressField, FieldMode>;

/** Polar's Address.has_address: more than a country and state (a street, city or postal code). */
export function hasStreetAddress(
  a:
    | {
        line1?: string | null;
        line2?: string | null;
        city?: string | null;
        postal_code?: string | null;
      }
    | null
    | undefined,
): boolean {
  return Boolean(a && (a.line1 || a.line2 || a.city || a.postal_code));
}

export function billingAddressFieldModes(
  country: string | null | undefined,
  /** Polar's is_billing_address_required: require_billing_address or a business purchase. */
  fullAddressRequired: boolean,
): AddressFieldModes {
  const full = fullAddressRequired || country === "US";
  const street: FieldMode = full ? "required" : "disabled";
  return {
    country: "required",
    state: country === "US" || country === "CA" ? "required" : full ? "optional" : "disabled",
    city: street,
    postal_code: street,
    line1: street,
    line2: full ? "optional" : "disabled",
  };
}
