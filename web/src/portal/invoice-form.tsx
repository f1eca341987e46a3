// The details an order's invoice is made out to, asked once before it is generated (as Polar's
// portal does): they are frozen with the invoice, so the buyer sees and may correct them first.
// The country and state decided the order's tax: once the order has an address they stay.
import { useState } from "react";
import { subdivisionName } from "../checkout/countries.ts";
import type { Address, Order, PortalApi } from "./api.ts";

const FIELDS = [
  ["line1", "Address", true],
  ["line2", "Address line 2 (optional)", false],
  ["city", "City", true],
  ["postal_code", "Postal code", true],
] as const;

/** Saves the billing details and generates the invoice; resolves once it exists. */
export function InvoiceForm({
  api,
  order,
  onGenerated,
  onCancel,
}: {
  api: PortalApi;
  order: Order;
  onGenerated: () => Promise<void>;
  onCancel: () => void;
}) {
  const start = order.billing_address;
  const [name, setName] = useState(order.billing_name ?? "");
  const [address, setAddress] = useState<Address>({
    line1: start?.line1 ?? "",
    line2: start?.line2 ?? "",
    city: start?.city ?? "",
    postal_code: start?.postal_code ?? "",
    state: start?.state ?? "",
    country: start?.country ?? "",
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = (field: string) => `invoice-${order.id}-${field}`;
  const set = (field: keyof Address, value: string) =>
    setAddress((a) => ({ ...a, [field]: value }));

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.updateOrderBilling(order.id, {
        billing_name: name.trim(),
        billing_address: {
          line1: address.line1?.trim() || null,
          line2: address.line2?.trim() || null,
          city: address.city?.trim() || null,
          postal_code: address.postal_code?.trim() || null,
          state: address.state?.trim() || null,
          country: address.country.trim().toUpperCase(),
        },
      });
      await api.generateInvoice(order.id);
      await onGenerated();
    } catch (err) {
      setError(err instanceof Error ? err.message : "The invoice could not be made. Try again.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="invoice-form"
      aria-labelledby={id("h")}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 id={id("h")}>Invoice details for {order.description}</h3>
      <p className="muted">The invoice is made out to these details and cannot change after.</p>
      <div className="field">
        <label htmlFor={id("name")}>Billing name</label>
        <input
          id={id("name")}
          required
          maxLength={256}
          autoComplete="organization"
          value={name}
          // biome-ignore lint/a11y/noAutofocus: opened by the buyer's own click, to fill in at once
          autoFocus
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      {FIELDS.map(([field, label, required]) => (
        <div className="field" key={field}>
          <label htmlFor={id(field)}>{label}</label>
          <input
            id={id(field)}
            required={required}
            value={address[field] ?? ""}
            onChange={(e) => set(field, e.target.value)}
          />
        </div>
      ))}
      <div className="pair">
        <div className="field">
          <label htmlFor={id("state")}>State or region</label>
          {/* Fixed, it is shown by its name ("New York"); the code it stands for is sent. */}
          <input
            id={id("state")}
            value={
              start ? subdivisionName(address.country, address.state ?? "") : (address.state ?? "")
            }
            readOnly={Boolean(start)}
            onChange={(e) => set("state", e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={id("country")}>Country code</label>
          <input
            id={id("country")}
            required
            pattern="[A-Za-z]{2}"
            maxLength={2}
            autoComplete="country"
            value={address.country}
            readOnly={Boolean(start?.country)}
            onChange={(e) => set("country", e.target.value)}
          />
        </div>
      </div>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Back
        </button>
        <button type="submit" className="create-invoice" disabled={busy}>
          {busy ? "Making the invoice…" : "Create invoice"}
        </button>
      </div>
    </form>
  );
}
