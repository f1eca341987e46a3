// Billing addresses for purchases in tests. A paid checkout asks a US buyer for the state, street,
// city and postal code (as Polar's billing_address_fields), so a US purchase sends all of them.
export const US_ADDRESS = {
  country: "US",
  state: "US-NY",
  line1: "1 Main St",
  city: "New York",
  postal_code: "10001",
} as const;

/** The same address as @polar-sh/sdk takes it (camelCase). */
export const US_ADDRESS_SDK = {
  country: US_ADDRESS.country,
  state: US_ADDRESS.state,
  line1: US_ADDRESS.line1,
  city: US_ADDRESS.city,
  postalCode: US_ADDRESS.postal_code,
} as const;

/** A buyer's address for the SDK: the complete one in the US, the country alone elsewhere. */
export function sdkAddressIn(country: string) {
  return country === "US" ? US_ADDRESS_SDK : { country: country as "US" };
}
